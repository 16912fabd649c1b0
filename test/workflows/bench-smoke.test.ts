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
});
