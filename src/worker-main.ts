// `replanner worker` / `npm run worker`: a long-running worker for the configured Temporal server.
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { llmSettingsFromEnv } from './llm/gateway';
import { createWorker, DEFAULT_TASK_QUEUE } from './worker';
import { describeSandbox, sandboxSettingsFromEnv } from './activities/tools/sandbox';

export async function runWorkerProcess(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  Runtime.install({ logger: new DefaultLogger((env.REPLANNER_LOG_LEVEL as 'INFO') || 'INFO') });
  const address = env.TEMPORAL_ADDRESS || 'localhost:7233';
  const connection = await NativeConnection.connect({ address });
  const llm = llmSettingsFromEnv(env);
  const taskQueue = env.REPLANNER_TASK_QUEUE || DEFAULT_TASK_QUEUE;
  // A prebuilt workflow bundle (tests, containers) saves the seconds of bundling at start.
  const bundle = env.REPLANNER_WORKFLOW_BUNDLE;
  const worker = await createWorker({
    connection,
    taskQueue,
    llm,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
    overrides: workerOverridesFromEnv(env),
  });
  console.log(`replanner worker: task queue "${taskQueue}" on ${address}, model ${llm.model} at ${llm.baseURL}`);
  console.log(`replanner worker: ${describeSandbox(sandboxSettingsFromEnv(env))}`);
  await worker.run();
  await connection.close();
}

if (require.main === module) {
  runWorkerProcess().catch((err) => {
    console.error(`replanner worker failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}

/** Operator knobs (see README): REPLANNER_MAX_CACHED_WORKFLOWS bounds the sticky cache. */
export function workerOverridesFromEnv(env: NodeJS.ProcessEnv): { maxCachedWorkflows?: number } {
  const v = env.REPLANNER_MAX_CACHED_WORKFLOWS;
  if (v === undefined || v === '') return {};
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`REPLANNER_MAX_CACHED_WORKFLOWS must be a whole number ≥ 0, got "${v}"`);
  return { maxCachedWorkflows: n };
}
