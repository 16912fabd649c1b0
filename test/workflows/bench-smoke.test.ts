// Issue 11: the bench runs in CI as a smoke test (tiny sizes, one rep, no gates) on the jest run's
// dev server, so a change that breaks a bench scenario or its figures fails here, not at release.
import { runBench, type ReplannerFigures } from '../../bench/run';
import { temporalAddress } from '../support/harness';

jest.setTimeout(120_000);

describe('npm run bench -- --smoke', () => {
  it('B1 every scenario runs to DONE and yields its figures; the floor replays the run shape', async () => {
    const doc = (await runBench({ reps: 1, smoke: true, only: ['a', 'b', 'c', 'd'], address: temporalAddress() })) as Record<string, any>;
    // --json prints exactly this document.
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);

    const graph = doc.graph as { runs: ReplannerFigures[]; floor: Record<string, number> };
    expect(graph.runs).toHaveLength(2);
    for (const r of graph.runs) {
      // Smoke graph: 2 chains of 1 task, then a join; each task 2 worker steps (one file + summary).
      expect(r.llmCallsPerPurpose.worker_step).toBe(6);
      expect(r.llmCallsPerPurpose.judge).toBe(3);
      // Phases + their decisions (9) + the chain c0s0 → join, 4 calls per task.
      expect(r.criticalPathCalls).toBe(17);
      expect(r.boundMs).toBe(r.latencyMs * 17);
      expect(r.makespanMs).toBeGreaterThan(r.boundMs);
      expect(r.historyEventsPerLlmCall).toBeGreaterThan(0);
      // run + 5 phases + one task child each.
      expect(r.workflows).toBeGreaterThanOrEqual(9);
    }
    expect(graph.floor['maxParallelTasks=1']).toBeGreaterThan(0);
    expect(graph.floor['maxParallelTasks=2']).toBeGreaterThan(0);
    expect(graph.floor.activities).toBeGreaterThanOrEqual(21);

    expect(doc.independent.runs.map((r: ReplannerFigures) => r.maxParallelTasks)).toEqual([1, 4]);
    expect(doc.independent.floorSpeedUp).toBeGreaterThan(0);
    // One share per rep, each from runs measured beside their floors (smoke: 1 rep).
    expect(doc.independent.speedUpSharePerRep).toHaveLength(doc.reps);
    expect(doc.independent.speedUpSharePerRep[0]).toBeGreaterThan(0);
    expect(doc.largePlan.tasks).toBe(10);
    expect(doc.largePlan.largestHistory).toBeGreaterThan(0);
    expect(doc.largePlan.largestHistoryBytes).toBeGreaterThan(0);
    expect(doc.concurrent).toMatchObject({ runs: 3, allDone: true });
    expect(doc.concurrent.workerPeakRssMiB).toBeGreaterThan(0);
    expect(doc.concurrent.workerCpuMsPerLlmCall).toBeGreaterThan(0);
  });

  it('issue 23 scale: 1 worker process against 2 (distinct hosts, roots split), concurrent runs all DONE, throughput and a named limit', async () => {
    const doc = (await runBench({ reps: 1, smoke: true, only: ['scale'], address: temporalAddress() })) as Record<string, any>;
    const sc = doc.scale;
    expect(sc).toMatchObject({ runs: 4, tasksPerRun: 3, reps: 1 });
    expect(sc.criticalCallsPerRun).toBeGreaterThan(0);
    expect(sc.floorMakespanMs).toBeGreaterThan(0);
    expect(sc.configs.map((c: any) => c.workers)).toEqual([1, 2]);
    for (const c of sc.configs) {
      expect(c.allDone).toBe(true);
      expect(c.runsPerMin).toBeGreaterThan(0);
      expect(c.llmCallsPerS).toBeGreaterThan(0);
      expect(c.limits.map((l: any) => l.kind).sort()).toEqual(['llm-latency', 'machine-cpu', 'temporal-floor', 'worker-cpu']);
      expect(typeof c.limitedBy).toBe('string');
      // Every activity ran on one of this configuration's worker processes, named by its host
      // (which of the two takes what is Temporal's choice before workspace affinity).
      expect(Object.keys(c.activitiesByHost).length).toBeGreaterThan(0);
      for (const host of Object.keys(c.activitiesByHost)) expect(c.hosts.map((h: any) => h.host)).toContain(host);
      // Every activity was scheduled on the batch's queue or a host queue of it.
      const sum = (o: Record<string, number>) => Object.values(o).reduce((x, y) => x + y, 0);
      expect(sum(c.activitiesByQueue)).toBe(sum(c.activitiesByHost));
      for (const q of Object.keys(c.activitiesByQueue)) expect(q).toMatch(/^<queue>(@bench-[ab])?$/);
    }
    expect(sc.configs[0].hosts).toEqual([{ host: 'bench-a', roots: [expect.any(String), expect.any(String)] }]);
    const [a, b] = sc.configs[1].hosts;
    expect([a.host, b.host]).toEqual(['bench-a', 'bench-b']);
    expect(a.roots).toHaveLength(1);
    expect(b.roots).toHaveLength(1);
    expect(a.roots[0]).not.toBe(b.roots[0]);
    // The dev server is jest's, not a child of the bench: no CPU figure for it.
    expect(sc.configs[0].coresUsed.server).toBeNull();
  });
});
