// A Replanner worker in its own process (test/support/worker-process.js) on a given server and task
// queue, so a test can SIGKILL it. Every process started is stopped by `killAllWorkers`.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { connectClient, temporalTarget, type TemporalTarget } from '../../src/connection';
import { pollersOf } from '../../src/client/workers';
import { temporalAddress, until } from './harness';

const ROOT = path.resolve(__dirname, '../..');
const WORKER_SCRIPT = path.join(ROOT, 'test/support/worker-process.js');

export interface WorkerProc {
  child: ChildProcess;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: WorkerProc[] = [];

/** `apiKey`: the worker's OPENAI_API_KEY (default 'test-key'); `env`: more of its environment (e.g. GITHUB_TOKEN). */
export async function startWorkerProcess(p: {
  address: string;
  taskQueue: string;
  llmBaseURL: string;
  apiKey?: string;
  env?: Record<string, string>;
}): Promise<WorkerProc> {
  const bundle = process.env.REPLANNER_TEST_BUNDLE;
  if (!bundle) throw new Error('REPLANNER_TEST_BUNDLE is not set: run through jest (global setup builds the bundle)');
  const child = spawn(process.execPath, [WORKER_SCRIPT], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: p.address,
      REPLANNER_TASK_QUEUE: p.taskQueue,
      OPENAI_BASE_URL: p.llmBaseURL,
      OPENAI_API_KEY: p.apiKey ?? 'test-key',
      REPLANNER_MODEL: 'fake-model',
      REPLANNER_WORKFLOW_BUNDLE: bundle,
      REPLANNER_LOG_LEVEL: 'WARN',
      ...p.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const w: WorkerProc = { child, output, exited };
  started.push(w);
  let ready = false;
  child.stdout.on('data', (d: Buffer) => {
    output.push(d.toString());
    if (/replanner worker: task queue/.test(output.join(''))) ready = true;
  });
  child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
  await until(
    'the worker process to start',
    async () => {
      if (child.exitCode !== null) throw new Error('exited');
      return ready ? true : undefined;
    },
    60_000,
  ).catch((err) => {
    throw new Error(`${(err as Error).message}; worker output:\n${output.join('')}`);
  });
  if (child.exitCode !== null) throw new Error(`worker process exited (${child.exitCode}):\n${output.join('')}`);
  // The worker's own connection settings (TLS, an API key in p.env) reach the server for the check too.
  await untilPolling(temporalTarget({ ...process.env, TEMPORAL_ADDRESS: p.address, ...p.env }), p.taskQueue, child);
  return w;
}

/**
 * The worker logs its start line before its first poll; a command run right then (e.g. `resume`
 * after swapping workers) would see no live poller. Wait until the server lists this process's.
 */
async function untilPolling(target: TemporalTarget, taskQueue: string, child: ChildProcess): Promise<void> {
  const connection = await connectClient(target);
  try {
    await until(
      'the worker process to poll its task queue',
      async () => {
        if (child.exitCode !== null) throw new Error('exited');
        const pollers = await pollersOf(connection, target.namespace, taskQueue);
        return pollers.some((x) => x.identity.startsWith(`${child.pid}@`)) ? true : undefined;
      },
      60_000,
    );
  } finally {
    await connection.close();
  }
}

export async function killWorker(w: WorkerProc): Promise<void> {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await w.exited;
}

/** Never leave a worker process behind, whatever happened in the test. */
export async function killAllWorkers(): Promise<void> {
  for (const w of started.splice(0)) await killWorker(w);
}

/** A worker process of workspace host `host` owning the workspaces under `roots`, its state in `stateDir`. */
export function startHostWorker(p: { taskQueue: string; llmBaseURL: string; host: string; roots: string; stateDir: string }): Promise<WorkerProc> {
  return startWorkerProcess({
    address: temporalAddress(),
    taskQueue: p.taskQueue,
    llmBaseURL: p.llmBaseURL,
    env: { REPLANNER_HOST: p.host, REPLANNER_WORKSPACE_ROOTS: p.roots, REPLANNER_STATE_DIR: p.stateDir },
  });
}
