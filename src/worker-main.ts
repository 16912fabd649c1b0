// `replanner worker` / `npm run worker`: a long-running worker for the configured Temporal server.
// Its task queue is REPLANNER_TASK_QUEUE, else the one its endpoint + model route to (the CLI
// sends runs started with the same OPENAI_BASE_URL and REPLANNER_MODEL there). With
// REPLANNER_WORKER_IDLE_EXIT (set by the CLI for the workers it starts) it exits when idle.
import * as fs from 'node:fs';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { workerLogger } from './worker-logger';
import { builtWorkflowBundle } from './workflow-bundle-path';
import { metricsAddress, runtimeTelemetryFromEnv, startTracing, tracingEndpoint } from './telemetry';
import { llmSettingsFromEnv } from './llm/gateway';
import { createWorker, hostSettingsFromEnv, type ReplannerWorker } from './worker';
import { describeSandbox, sandboxSettingsFromEnv } from './activities/tools/sandbox';
import { commandSlotsFromEnv, setCommandSlots } from './activities/tools/command-slots';
import { routeOf } from './route';
import { formatDuration, mayLeaveQueue, normaliseEndpoint, parseIdleExit, shouldIdleExit } from './domain/worker-lifecycle';
import { serverCommand } from './domain/printed-commands';
import { Client, type Connection } from '@temporalio/client';
import { connectClient, connectFailure, describeTarget, isLocalDevTarget, temporalTarget, type TemporalTarget } from './connection';

/** The worker could not reach Temporal at start (exit 3, like the CLI's "Temporal unreachable"). */
export class TemporalUnreachable extends Error {}

export async function runWorkerProcess(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const idleMs = parseIdleExit(env.REPLANNER_WORKER_IDLE_EXIT, 0);
  if (typeof idleMs !== 'number') throw new Error(idleMs.error);
  // Sandboxed commands have their own bound, apart from the activity slots (LLM calls mostly wait).
  const commands = commandSlotsFromEnv(env);
  setCommandSlots(commands);
  // REPLANNER_METRICS_PORT: the runtime's metrics for Prometheus (src/telemetry.ts).
  const metrics = runtimeTelemetryFromEnv(env);
  Runtime.install({ logger: workerLogger((env.REPLANNER_LOG_LEVEL as 'INFO') || 'INFO'), ...(metrics ? { telemetryOptions: metrics } : {}) });
  // OTEL_EXPORTER_OTLP_ENDPOINT: traces of the runs this worker serves; unset, nothing is loaded.
  const tracing = await startTracing(env);
  // The `temporal` CLI's settings: env vars and TOML profiles, TLS and API keys (src/connection.ts).
  const target = temporalTarget(env);
  const { address, namespace } = target;
  const connection = await NativeConnection.connect(target.connectOptions).catch(async (e: unknown) => {
    throw new TemporalUnreachable(
      isLocalDevTarget(target)
        ? `no Temporal server answers at ${address} (${e instanceof Error ? e.message.slice(0, 200) : String(e)}). ` +
            `Start one in another shell, from the clone: ${serverCommand({ address, ...(env.TEMPORAL_UI_PORT ? { uiPort: env.TEMPORAL_UI_PORT } : {}) })} ` +
            '(any `run` starts it too), or point TEMPORAL_ADDRESS at yours.'
        : await connectFailure(e, target),
    );
  });
  const llm = llmSettingsFromEnv(env);
  const { taskQueue } = routeOf(env);
  // Workspace affinity: this worker's host and the workspaces it owns (REPLANNER_HOST, REPLANNER_WORKSPACE_ROOTS).
  const host = hostSettingsFromEnv(env);
  // A prebuilt workflow bundle (tests, containers, the build's) saves the seconds of bundling at start.
  const bundle = env.REPLANNER_WORKFLOW_BUNDLE || builtWorkflowBundle();
  const worker = await createWorker({
    connection,
    taskQueue,
    llm,
    host,
    namespace,
    ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
    overrides: workerOverridesFromEnv(env),
    ...(tracing ? { tracing } : {}),
  });
  console.log(
    `replanner worker: task queue "${taskQueue}" on ${address} (${describeTarget(target)}), model ${llm.model} at ${normaliseEndpoint(llm.baseURL)} (pid ${process.pid}, started ${new Date().toISOString()})`,
  );
  console.log(
    `replanner worker: host ${host.host} owns the workspaces under ${host.roots.join(', ')} (REPLANNER_HOST, REPLANNER_WORKSPACE_ROOTS); their activities on task queue "${worker.settings.hostQueue}"`,
  );
  console.log(`replanner worker: the workflows ${bundle && !tracing ? `from the bundle ${bundle}` : 'bundled at start'}`);
  console.log(`replanner worker: ${describeSandbox(sandboxSettingsFromEnv(env))}`);
  console.log(`replanner worker: at most ${commands} command(s) at once (REPLANNER_MAX_CONCURRENT_COMMANDS)`);
  if (tracing) console.log(`replanner worker: traces go to ${tracingEndpoint(env)} over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT)`);
  if (metrics) console.log(`replanner worker: runtime metrics for Prometheus at http://${metricsAddress(metrics)}/metrics (REPLANNER_METRICS_PORT)`);
  console.log(
    idleMs > 0
      ? `replanner worker: exits after ${formatDuration(idleMs)} without work (REPLANNER_WORKER_IDLE_EXIT)`
      : 'replanner worker: runs until stopped (Ctrl-C or SIGTERM)',
  );
  const open = openWorkflowCounter(target, taskQueue);
  const stopIdle = idleMs > 0 ? exitWhenIdle(worker, idleMs, open.count) : () => undefined;
  try {
    await worker.run();
  } finally {
    stopIdle();
    await open.close();
    await connection.close();
    await tracing?.shutdown();
    // The CLI's record of this worker (auto-started workers) goes with it.
    const record = env.REPLANNER_WORKER_RECORD;
    if (record) removeOwnRecord(record);
    console.log(`replanner worker: stopped (pid ${process.pid})`);
  }
}

/**
 * Shuts the worker down once it has had no activity or workflow task for `idleMs` and no workflow
 * on its queue is open (mayLeaveQueue: an open run may have a timer due that needs a worker).
 */
function exitWhenIdle(worker: ReplannerWorker, idleMs: number, openWorkflows: () => Promise<number | undefined>): () => void {
  let lastWork = Date.now();
  const inFlight = worker.workers.map(() => ({ activities: 0, activations: 0 }));
  let activities = 0;
  let activations = 0;
  let checking = false;
  let stopped = false;
  const total = () => {
    activities = inFlight.reduce((n, w) => n + w.activities, 0);
    activations = inFlight.reduce((n, w) => n + w.activations, 0);
    lastWork = Date.now();
  };
  // Every change of the in-flight counts (of the endpoint and the host worker) is work starting or ending.
  const subs = worker.workers.flatMap((w, i) => [
    w.numInFlightActivities$.subscribe((n) => {
      inFlight[i]!.activities = n;
      total();
    }),
    w.numInFlightActivations$.subscribe((n) => {
      inFlight[i]!.activations = n;
      total();
    }),
  ]);
  const timer = setInterval(
    () => {
      const now = Date.now();
      if (checking || !shouldIdleExit({ inFlightActivities: activities, inFlightActivations: activations, lastWorkMs: lastWork, nowMs: now, idleMs }))
        return;
      checking = true;
      void openWorkflows()
        .then((open) => {
          if (stopped) return;
          if (!mayLeaveQueue(open)) {
            console.log(
              `replanner worker: no work for ${formatDuration(now - lastWork)}, but ${open === undefined ? 'the open workflows on its queue could not be counted' : `${open} workflow(s) on its queue are open`}; staying (a run may have a timer due)`,
            );
            // Ask again after another idle period, not at every tick.
            lastWork = Date.now();
            return;
          }
          console.log(
            `replanner worker: no work for ${formatDuration(now - lastWork)}; exiting (no open workflow on its queue; REPLANNER_WORKER_IDLE_EXIT)`,
          );
          clearInterval(timer);
          worker.shutdown();
        })
        .finally(() => (checking = false));
    },
    Math.max(200, Math.min(5000, idleMs / 10)),
  );
  return () => {
    stopped = true;
    clearInterval(timer);
    for (const s of subs) s.unsubscribe();
  };
}

/** Visibility's count of running workflow executions on `taskQueue` (undefined when it cannot say), and closing its connection. */
function openWorkflowCounter(target: TemporalTarget, taskQueue: string): { count: () => Promise<number | undefined>; close: () => Promise<void> } {
  let connection: Promise<Connection> | undefined;
  const query = `TaskQueue = '${taskQueue.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running'`;
  return {
    count: async () => {
      try {
        connection ??= connectClient(target);
        const client = new Client({ connection: await connection, namespace: target.namespace });
        return (await client.workflow.count(query)).count;
      } catch (e) {
        connection = undefined;
        console.log(`replanner worker: could not count the open workflows on its queue: ${e instanceof Error ? e.message : String(e)}`);
        return undefined;
      }
    },
    close: async () => {
      await (await connection?.catch(() => undefined))?.close();
    },
  };
}

function removeOwnRecord(file: string): void {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown };
    if (r.pid === process.pid) fs.rmSync(file, { force: true });
  } catch {
    /* no record, or not ours */
  }
}

if (require.main === module) {
  runWorkerProcess().catch((err) => {
    console.error(`replanner worker failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(err instanceof TemporalUnreachable ? 3 : 1);
  });
}

/**
 * Operator knobs (see README): REPLANNER_MAX_CACHED_WORKFLOWS bounds the sticky cache;
 * REPLANNER_MAX_CONCURRENT_ACTIVITIES the activities (LLM calls with their tool calls) run at once.
 */
export function workerOverridesFromEnv(env: NodeJS.ProcessEnv): { maxCachedWorkflows?: number; maxConcurrentActivityTaskExecutions?: number } {
  return {
    ...wholeNumber(env, 'REPLANNER_MAX_CACHED_WORKFLOWS', 0, (n) => ({ maxCachedWorkflows: n })),
    ...wholeNumber(env, 'REPLANNER_MAX_CONCURRENT_ACTIVITIES', 1, (n) => ({ maxConcurrentActivityTaskExecutions: n })),
  };
}

function wholeNumber<T>(env: NodeJS.ProcessEnv, name: string, min: number, to: (n: number) => T): T | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${v}"`);
  return to(n);
}
