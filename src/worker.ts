// Builds the Worker: the workflow bundle, the activities wired to an LLM gateway, the endpoint queue and this host's queue.
import { NativeConnection, Worker, bundleWorkflowCode, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { hostQueueOf, presenceQueueOf, workerIdentity } from './domain/workspace-host';
import { hostSettingsFromEnv, type HostSettings } from './host-settings';

export { hostSettingsFromEnv, type HostSettings } from './host-settings';
import { createActivities } from './activities';
import { BOUNDS } from './domain/config';
import { LlmGateway, type LlmSettings } from './llm/gateway';
import type { Tracing } from './telemetry';

export const DEFAULT_TASK_QUEUE = 'replanner';

export { WORKER_NODE_ARGS } from './worker-node-args';

export function workflowsPath(): string {
  // Works from src/ (ts-jest) and from dist/src (compiled): both hold workflows/index.{ts,js}.
  return require.resolve('./workflows');
}

/** The payload converter of the workflows and activities (a payload that is not JSON is refused, not fatal). */
export function payloadConverterPath(): string {
  return require.resolve('./payload-converter');
}

/** Bundling takes seconds: do it once and share the bundle between workers (tests, demo). */
export async function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    logger: quietBundlerLogger,
    preloadModules: sharedWorkflowModules(),
    payloadConverterPath: payloadConverterPath(),
  });
}

/** Stateless modules evaluated once per worker, not once per cached workflow (src/workflows/preload.ts). */
export function sharedWorkflowModules(): string[] {
  return [require.resolve('./workflows/preload')];
}

export interface WorkerParams {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  llm: LlmSettings;
  workflowBundle?: WorkflowBundleWithSourceMap | { codePath: string };
  maxConcurrentActivityTaskExecutions?: number;
  /** Workspace affinity: this worker's host and the workspaces it owns (default: hostSettingsFromEnv). */
  host?: HostSettings;
  /** Bench only: activities registered beside Replanner's (the floor's no-op) on the same worker. */
  extraActivities?: Record<string, (...args: never[]) => unknown>;
  /** Bench only: worker settings to measure (bench/README.md "What the engine allows"); applied last. */
  overrides?: Partial<WorkerOptions>;
  /** Traces (src/telemetry.ts startTracing): its plugins on every SDK worker of this one. */
  tracing?: Tracing;
}

/** Activities one worker runs at once by default (REPLANNER_MAX_CONCURRENT_ACTIVITIES overrides it). */
export const ACTIVITY_SLOTS = 2 * BOUNDS.parallelTasks;

/**
 * A Replanner worker: one SDK Worker on the endpoint-and-model queue (every workflow, the planning
 * LLM calls, notifications), one on this host's queue `<queue>@<host>` (the activities that touch a
 * workspace this host owns) and a small one on the host's presence queue (is the host there?),
 * sharing the connection. Both carry the identity `<pid>@<host> roots=…`.
 */
export class ReplannerWorker {
  constructor(
    readonly endpoint: Worker,
    readonly hostWorker: Worker,
    /** Answers "is the host there?" with slots of its own, so a busy host is never called offline. */
    readonly presence: Worker,
    readonly settings: HostSettings & { taskQueue: string; hostQueue: string; identity: string },
  ) {}

  get workers(): Worker[] {
    return [this.endpoint, this.hostWorker, this.presence];
  }

  /** Runs both until shutdown (or until either fails, which stops the other). */
  async run(): Promise<void> {
    const runs = this.workers.map((w) =>
      w.run().catch((err: unknown) => {
        this.shutdown();
        throw err;
      }),
    );
    const results = await Promise.allSettled(runs);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  shutdown(): void {
    for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
  }

  /** The endpoint worker's state (both start and stop together). */
  getState(): ReturnType<Worker['getState']> {
    return this.endpoint.getState();
  }
}

export async function createWorker(p: WorkerParams): Promise<ReplannerWorker> {
  const host = p.host ?? hostSettingsFromEnv();
  const taskQueue = p.taskQueue ?? DEFAULT_TASK_QUEUE;
  const hostQueue = hostQueueOf(taskQueue, host.host);
  const identity = workerIdentity(process.pid, host.host, host.roots);
  const activities = { ...p.extraActivities, ...createActivities(new LlmGateway(p.llm), { journalDir: host.stateDir }) };
  const common = {
    connection: p.connection,
    namespace: p.namespace ?? 'default',
    identity,
    activities,
    dataConverter: { payloadConverterPath: payloadConverterPath() },
    // A run at the largest maxParallelTasks has each task's LLM call and each finished task's replan
    // decision in flight at once; fewer slots queue them, and a call with no free slot also loses
    // eager dispatch (≈ 50 ms more through matching). bench/README.md "Parallel 16 (session 6)".
    maxConcurrentActivityTaskExecutions: p.maxConcurrentActivityTaskExecutions ?? ACTIVITY_SLOTS,
    // Cancellation reaches an activity only through a heartbeat: keep them frequent so a cancelled
    // run stops its workers within seconds.
    maxHeartbeatThrottleInterval: '2 seconds',
    defaultHeartbeatThrottleInterval: '1 second',
    ...(p.tracing ? { plugins: p.tracing.plugins } : {}),
  } satisfies Partial<WorkerOptions>;
  // The tracing interceptors are workflow code too: a prebuilt bundle lacks them, so bundle anew.
  const bundle = p.tracing ? undefined : p.workflowBundle;
  const endpoint = await Worker.create({
    ...common,
    taskQueue,
    ...(bundle ? { workflowBundle: bundle } : { workflowsPath: workflowsPath(), bundlerOptions: { preloadModules: sharedWorkflowModules() } }),
    ...p.overrides,
  });
  // Activities only: the workflows of every run stay on the endpoint queue.
  const { maxCachedWorkflows: _cache, ...activityOverrides } = p.overrides ?? {};
  const hostWorker = await Worker.create({ ...common, taskQueue: hostQueue, ...activityOverrides });
  const presence = await Worker.create({
    connection: p.connection,
    namespace: p.namespace ?? 'default',
    identity,
    taskQueue: presenceQueueOf(hostQueue),
    activities: { hostPresent: () => activities.hostPresent() },
    maxConcurrentActivityTaskExecutions: 4,
    ...(p.tracing ? { plugins: p.tracing.plugins } : {}),
  });
  return new ReplannerWorker(endpoint, hostWorker, presence, { ...host, taskQueue, hostQueue, identity });
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (m: string, meta?: unknown) => console.warn(m, meta ?? ''),
  error: (m: string, meta?: unknown) => console.error(m, meta ?? ''),
};
