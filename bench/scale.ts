// Scenario "scale" (issue 23): 1 worker process against 2 on one machine, N concurrent runs. The
// pure parts: which worker owns which workspace root, the throughput figures, and what limits them
// (bench/README.md, "Scale: 1 worker against 2"). The processes and runs are in bench/run.ts.
import * as path from 'node:path';
import { TestCluster } from '../test/support/cluster';

/** One worker process of the scenario: its REPLANNER_HOST and REPLANNER_WORKSPACE_ROOTS. */
export interface ScaleWorkerSpec {
  host: string;
  roots: string[];
}

/**
 * The workers of one configuration over the workspace roots: one worker owns every root; with
 * more, worker i owns root i (roots.length workers at most). Host names are bench-a, bench-b, ….
 */
export function scaleWorkerSpecs(workers: number, roots: string[]): ScaleWorkerSpec[] {
  if (!Number.isInteger(workers) || workers < 1 || workers > roots.length) throw new Error(`workers must be 1 to ${roots.length}, got ${workers}`);
  const host = (i: number) => `bench-${String.fromCharCode(97 + i)}`;
  if (workers === 1) return [{ host: host(0), roots: [...roots] }];
  return roots.slice(0, workers).map((r, i) => ({ host: host(i), roots: [r] }));
}

/** REPLANNER_WORKSPACE_ROOTS of a worker: its roots joined by the platform's path delimiter. */
export const workspaceRootsEnv = (spec: ScaleWorkerSpec): string => spec.roots.join(path.delimiter);

/** The root run i's workspace goes under: the runs alternate between the roots (split evenly). */
export const rootOfRun = (i: number, roots: string[]): string => roots[i % roots.length]!;

/** CPU time of the whole machine from /proc/stat's first line, in ms (USER_HZ = 100): busy and total. */
export function machineCpuMs(procStat: string): { busyMs: number; totalMs: number } {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('no "cpu " line in /proc/stat');
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice).
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  return { busyMs: (total - idle) * 10, totalMs: total * 10 };
}

/** What one batch of concurrent runs measured (one configuration, one rep). */
export interface ScaleSample {
  workers: number;
  runs: number;
  makespanMs: number;
  llmCalls: number;
  /** The scripted LLM's fixed latency per call. */
  latencyMs: number;
  /** LLM calls on one run's critical path (measured on a run alone): latency × this bounds any run's makespan. */
  criticalCallsPerRun: number;
  /** CPU ms of each worker process during the batch, by host. */
  workerCpuMs: Record<string, number>;
  /** CPU ms of the dev server during the batch (null: the bench did not start it, e.g. under jest). */
  serverCpuMs: number | null;
  /** CPU ms of the bench process during the batch: the client and the scripted LLM server. */
  benchCpuMs: number;
  /** The whole machine's CPU during the batch (/proc/stat). */
  machine: { busyMs: number; totalMs: number };
  /** Makespan of Temporal's floor for the same load: as many concurrent floor runs of one run's shape, no-op activities, one worker. */
  floorMakespanMs: number;
}

export interface ScaleLimit {
  /** machine-cpu | worker-cpu | temporal-floor | llm-latency */
  kind: string;
  /** How close this limit is to the makespan: 1 = it alone accounts for all of it. */
  share: number;
  detail: string;
}

export interface ScaleFigures {
  workers: number;
  makespanMs: number;
  runsPerMin: number;
  llmCallsPerS: number;
  /** Cores busy on average during the batch: each worker process, the dev server, the bench process, the machine. */
  coresUsed: { workers: Record<string, number>; server: number | null; bench: number; machine: number };
  cores: number;
  /** Every limit with its share, largest first; `limitedBy` is the first. */
  limits: ScaleLimit[];
  limitedBy: string;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Share from which a limit counts as reached (below it for every limit: "no single limit"). */
export const LIMIT_REACHED = 0.8;

/**
 * Throughput of one batch and what limits it. Each limit is a share of the makespan it explains:
 * the machine's CPU (busy / all cores), a worker's CPU (its busy time / the makespan, against one
 * core: a Node worker's activities, LLM client and the SDK's dispatch share one event loop),
 * Temporal's floor (its makespan for the same load / ours) and the LLM's latency (one run's
 * critical path of calls × latency / the makespan). The largest at or above LIMIT_REACHED names
 * the limit.
 */
export function scaleFigures(s: ScaleSample, cores: number): ScaleFigures {
  const perMs = (ms: number) => round(ms / s.makespanMs);
  const workers = Object.fromEntries(Object.entries(s.workerCpuMs).map(([h, ms]) => [h, perMs(ms)]));
  const machine = s.machine.totalMs > 0 ? s.machine.busyMs / s.machine.totalMs : 0;
  const busiest = Object.entries(workers).sort((a, b) => b[1] - a[1])[0];
  const bound = s.latencyMs * s.criticalCallsPerRun;
  // This bench's own processes; the rest of the machine's busy time is other load (a shared machine).
  const ours = (Object.values(s.workerCpuMs).reduce((a, b) => a + b, 0) + (s.serverCpuMs ?? 0) + s.benchCpuMs) / s.makespanMs;
  const limits: ScaleLimit[] = [
    {
      kind: 'machine-cpu',
      share: round(machine),
      detail: `the machine's ${cores} cores ${Math.round(machine * 100)}% busy (this bench's processes: ${round(ours)} cores)`,
    },
    ...(busiest
      ? [
          {
            kind: 'worker-cpu',
            share: busiest[1],
            detail: `worker ${busiest[0]} used ${busiest[1]} cores (one event loop: about 1 at most for its activities)`,
          },
        ]
      : []),
    {
      kind: 'temporal-floor',
      share: round(s.floorMakespanMs / s.makespanMs),
      detail: `Temporal's floor for ${s.runs} runs of this shape: ${Math.round(s.floorMakespanMs)} ms`,
    },
    {
      kind: 'llm-latency',
      share: round(bound / s.makespanMs),
      detail: `${s.criticalCallsPerRun} LLM calls on a run's critical path × ${s.latencyMs} ms = ${bound} ms`,
    },
  ].sort((a, b) => b.share - a.share);
  const top = limits[0]!;
  return {
    workers: s.workers,
    makespanMs: Math.round(s.makespanMs),
    runsPerMin: round((s.runs / s.makespanMs) * 60_000, 1),
    llmCallsPerS: round((s.llmCalls / s.makespanMs) * 1000, 1),
    coresUsed: {
      workers,
      server: s.serverCpuMs === null ? null : perMs(s.serverCpuMs),
      bench: perMs(s.benchCpuMs),
      machine: round(machine * cores),
    },
    cores,
    limits,
    limitedBy:
      top.share >= LIMIT_REACHED ? top.detail : `no single limit reached (largest: ${top.detail}, ${Math.round(top.share * 100)}% of the makespan)`,
  };
}

/** The rep whose makespan is the median (the lower of the two middle ones for an even count): its figures stand for the configuration. */
export function medianRep<T extends { makespanMs: number }>(reps: T[]): T {
  if (reps.length === 0) throw new Error('no reps');
  return [...reps].sort((a, b) => a.makespanMs - b.makespanMs)[Math.floor((reps.length - 1) / 2)]!;
}

/** Counts by worker host of the identities in a history (`<pid>@<machine>` by default): an identity naming a worker's pid is that worker's. */
export function countByHost(identities: string[], pidToHost: Record<number, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const id of identities) {
    const pid = Object.keys(pidToHost).find((p) => new RegExp(`(^|\\D)${p}(\\D|$)`).test(id));
    const key = pid ? pidToHost[Number(pid)]! : id || '(none)';
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/**
 * Activities by the task queue they were scheduled on, the batch's queue written `<queue>`: before
 * workspace affinity all are on `<queue>`; after it a workspace's activities are on `<queue>@<host>`.
 */
export function countByQueue(queues: string[], queue: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const q of queues) {
    const key = q === queue ? '<queue>' : q.startsWith(`${queue}@`) ? `<queue>${q.slice(queue.length)}` : q;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/**
 * `--cluster` (issue 29): the bench against a real Temporal cluster instead of the dev server:
 * PostgreSQL and frontend, history, matching and worker as four processes (scripts/ensure-cluster,
 * deploy/temporal/), started for the bench and stopped after it. `bench` gets the frontend's address.
 */
export async function onCluster<T extends Record<string, unknown>>(
  log: ((line: string) => void) | undefined,
  bench: (address: string) => Promise<T>,
): Promise<T> {
  log?.('starting a Temporal cluster (scripts/ensure-cluster: PostgreSQL, four server processes)…');
  const cluster = await TestCluster.start();
  try {
    return {
      ...(await bench(cluster.address)),
      server: `temporal cluster ${cluster.address} (scripts/ensure-cluster: PostgreSQL + frontend, history, matching, worker processes)`,
    };
  } finally {
    await cluster.stop();
  }
}
