// Builds the Worker: the workflow bundle, the activities wired to an LLM gateway, one task queue.
import { NativeConnection, Worker, bundleWorkflowCode, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from './activities';
import { BOUNDS } from './domain/config';
import { LlmGateway, type LlmSettings } from './llm/gateway';

export const DEFAULT_TASK_QUEUE = 'replanner';

export { WORKER_NODE_ARGS } from './worker-node-args';

export function workflowsPath(): string {
  // Works from src/ (ts-jest) and from dist/src (compiled): both hold workflows/index.{ts,js}.
  return require.resolve('./workflows');
}

/** Bundling takes seconds: do it once and share the bundle between workers (tests, demo). */
export async function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietBundlerLogger, preloadModules: sharedWorkflowModules() });
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
  /** Bench only: activities registered beside Replanner's (the floor's no-op) on the same worker. */
  extraActivities?: Record<string, (...args: never[]) => unknown>;
  /** Bench only: worker settings to measure (bench/README.md "What the engine allows"); applied last. */
  overrides?: Partial<WorkerOptions>;
}

/** Activities one worker runs at once by default (REPLANNER_MAX_CONCURRENT_ACTIVITIES overrides it). */
export const ACTIVITY_SLOTS = 2 * BOUNDS.parallelTasks;

export async function createWorker(p: WorkerParams): Promise<Worker> {
  return Worker.create({
    connection: p.connection,
    namespace: p.namespace ?? 'default',
    taskQueue: p.taskQueue ?? DEFAULT_TASK_QUEUE,
    activities: { ...p.extraActivities, ...createActivities(new LlmGateway(p.llm)) },
    ...(p.workflowBundle
      ? { workflowBundle: p.workflowBundle }
      : { workflowsPath: workflowsPath(), bundlerOptions: { preloadModules: sharedWorkflowModules() } }),
    // A run at the largest maxParallelTasks has each task's LLM call and each finished task's replan
    // decision in flight at once; fewer slots queue them, and a call with no free slot also loses
    // eager dispatch (≈ 50 ms more through matching). bench/README.md "Parallel 16 (session 6)".
    maxConcurrentActivityTaskExecutions: p.maxConcurrentActivityTaskExecutions ?? ACTIVITY_SLOTS,
    // Cancellation reaches an activity only through a heartbeat: keep them frequent so a cancelled
    // run stops its workers within seconds.
    maxHeartbeatThrottleInterval: '2 seconds',
    defaultHeartbeatThrottleInterval: '1 second',
    ...p.overrides,
  });
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (m: string, meta?: unknown) => console.warn(m, meta ?? ''),
  error: (m: string, meta?: unknown) => console.error(m, meta ?? ''),
};
