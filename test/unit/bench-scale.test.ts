// Issue 23, bench scenario "scale" (1 worker process against 2, concurrent runs): its pure parts,
// which workspaces each worker owns, the throughput figures and what limits them.
import * as path from 'node:path';
import {
  countByHost,
  countByQueue,
  LIMIT_REACHED,
  machineCpuMs,
  medianRep,
  rootOfRun,
  scaleFigures,
  scaleWorkerSpecs,
  workspaceRootsEnv,
  type ScaleSample,
} from '../../bench/scale';
import { BENCH_OPTIONS, BENCH_USAGE, SCENARIOS } from '../../bench/run';

const sample = (over: Partial<ScaleSample> = {}): ScaleSample => ({
  workers: 2,
  runs: 20,
  makespanMs: 30_000,
  llmCalls: 420,
  latencyMs: 100,
  criticalCallsPerRun: 13,
  workerCpuMs: { 'bench-a': 9_000, 'bench-b': 6_000 },
  serverCpuMs: 12_000,
  benchCpuMs: 3_000,
  machine: { busyMs: 36_000, totalMs: 60_000 },
  floorMakespanMs: 6_000,
  ...over,
});

describe('bench scale: workers and their workspaces', () => {
  it('one worker owns both roots; two split them, one root each, with distinct hosts', () => {
    expect(scaleWorkerSpecs(1, ['/r/a', '/r/b'])).toEqual([{ host: 'bench-a', roots: ['/r/a', '/r/b'] }]);
    expect(scaleWorkerSpecs(2, ['/r/a', '/r/b'])).toEqual([
      { host: 'bench-a', roots: ['/r/a'] },
      { host: 'bench-b', roots: ['/r/b'] },
    ]);
    expect(() => scaleWorkerSpecs(3, ['/r/a', '/r/b'])).toThrow(/workers must be 1 to 2, got 3/);
    expect(() => scaleWorkerSpecs(0, ['/r/a'])).toThrow(/workers must be 1 to 1/);
  });

  it('REPLANNER_WORKSPACE_ROOTS joins the roots with path.delimiter; runs alternate between the roots', () => {
    expect(workspaceRootsEnv({ host: 'h', roots: ['/r/a', '/r/b'] })).toBe(`/r/a${path.delimiter}/r/b`);
    expect([0, 1, 2, 3].map((i) => rootOfRun(i, ['/r/a', '/r/b']))).toEqual(['/r/a', '/r/b', '/r/a', '/r/b']);
  });

  it('--only knows the scale, cache and load scenarios beside a–e', () => {
    expect(SCENARIOS).toEqual(['a', 'b', 'c', 'd', 'e', 'scale', 'cache', 'load']);
  });
});

describe('bench scale: figures and limits', () => {
  it('reads busy and total CPU from /proc/stat (idle and iowait are not busy)', () => {
    const stat = 'cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 50 2 25 400 10 1 1 0 0 0\nintr 1\n';
    expect(machineCpuMs(stat)).toEqual({ busyMs: (100 + 5 + 50 + 3 + 2) * 10, totalMs: 980 * 10 });
    expect(() => machineCpuMs('intr 1')).toThrow(/no "cpu " line/);
  });

  it('throughput: runs per minute and LLM calls per second over the makespan; cores used per process', () => {
    const f = scaleFigures(sample(), 2);
    expect(f.runsPerMin).toBe(40);
    expect(f.llmCallsPerS).toBe(14);
    expect(f.coresUsed).toEqual({ workers: { 'bench-a': 0.3, 'bench-b': 0.2 }, server: 0.4, bench: 0.1, machine: 1.2 });
  });

  it('no limit reached: says which is largest and how far', () => {
    const f = scaleFigures(sample(), 2);
    expect(f.limits.map((l) => [l.kind, l.share])).toEqual([
      ['machine-cpu', 0.6],
      ['worker-cpu', 0.3],
      ['temporal-floor', 0.2],
      ['llm-latency', 0.04],
    ]);
    expect(f.limitedBy).toMatch(
      /^no single limit reached \(largest: the machine's 2 cores 60% busy \(this bench's processes: 1 cores\), 60% of the makespan\)$/,
    );
  });

  it('the machine saturated: the machine CPU names the limit, with the share that was this bench', () => {
    const f = scaleFigures(sample({ machine: { busyMs: 57_000, totalMs: 60_000 } }), 2);
    expect(f.limits[0]!.kind).toBe('machine-cpu');
    expect(f.limitedBy).toBe("the machine's 2 cores 95% busy (this bench's processes: 1 cores)");
  });

  it('one worker busy for the whole makespan: its CPU names the limit (one event loop)', () => {
    const f = scaleFigures(sample({ workers: 1, workerCpuMs: { 'bench-a': 29_000 } }), 8);
    expect(f.limits[0]).toMatchObject({ kind: 'worker-cpu', share: 0.97 });
    expect(f.limitedBy).toMatch(/^worker bench-a used 0.97 cores/);
  });

  it('the LLM latency or Temporal floor name the limit when they account for the makespan', () => {
    const llm = scaleFigures(sample({ latencyMs: 2_000, makespanMs: 30_000, criticalCallsPerRun: 13 }), 2);
    expect(llm.limits[0]!.kind).toBe('llm-latency');
    expect(llm.limitedBy).toBe("13 LLM calls on a run's critical path × 2000 ms = 26000 ms");
    const floor = scaleFigures(sample({ floorMakespanMs: 27_000 }), 2);
    expect(floor.limitedBy).toBe("Temporal's floor for 20 runs of this shape: 27000 ms");
    expect(LIMIT_REACHED).toBe(0.8);
  });

  it('a server the bench did not start has no CPU figure', () => {
    expect(scaleFigures(sample({ serverCpuMs: null }), 2).coresUsed.server).toBeNull();
  });

  it('the median rep stands for a configuration (the lower middle for an even count)', () => {
    expect(medianRep([{ makespanMs: 5 }, { makespanMs: 1 }, { makespanMs: 3 }])).toEqual({ makespanMs: 3 });
    expect(medianRep([{ makespanMs: 4 }, { makespanMs: 1 }, { makespanMs: 3 }, { makespanMs: 2 }])).toEqual({ makespanMs: 2 });
    expect(() => medianRep([])).toThrow(/no reps/);
  });

  it('work by host: an identity naming a worker pid is that worker; others are kept as they are', () => {
    const hosts = { 1234: 'bench-a', 567: 'bench-b' };
    expect(countByHost(['1234@box', '567@box', '1234@box', '12345@box', ''], hosts)).toEqual({
      'bench-a': 2,
      'bench-b': 1,
      '12345@box': 1,
      '(none)': 1,
    });
  });

  it('activities by queue: the batch queue as <queue>, a host queue as <queue>@<host>, any other kept', () => {
    expect(countByQueue(['bq', 'bq@bench-a', 'bq', 'bq@bench-b', 'bq2', 'other'], 'bq')).toEqual({
      '<queue>': 2,
      '<queue>@bench-a': 1,
      '<queue>@bench-b': 1,
      bq2: 1,
      other: 1,
    });
  });
});

describe('npm run bench -- --help', () => {
  it('names every option the bench takes and every scenario', () => {
    for (const o of Object.keys(BENCH_OPTIONS)) expect(BENCH_USAGE).toContain(`--${o} `);
    for (const sc of SCENARIOS) expect(BENCH_USAGE).toContain(sc);
  });
});
