// A worker you can trust: the CLI starts a detached worker for the task queue of the
// caller's endpoint + model when none is alive, restarts it when the caller's key differs, and
// stops the ones it started (gracefully: tasks in flight end). The records are in workers.ts; the
// policy in src/domain/worker-lifecycle.ts.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Connection } from '@temporalio/client';
import { ConfigError } from '../domain/config/issues';
import { commandSlotsFrom } from '../domain/command-slots';
import { DEFAULT_IDLE_EXIT_MS, formatDuration, parseIdleExit, restartReason, type WorkerRecord } from '../domain/worker-lifecycle';
import { PROJECT_ROOT } from '../project-root';
import { routeOf, type Route } from '../route';
import { WORKER_NODE_ARGS } from '../worker-node-args';
import { displayPath as rel, fileSafe, isOurWorker, livenessOf, pidExists, pollersOf, recordFile, removeRecord, workersDir } from './workers';
import { replannerCommand } from '../domain/printed-commands';

/** How the worker process is started: the build, or the TypeScript sources when the CLI runs from them. */
function workerCommand(): string[] {
  if (__filename.endsWith('.ts')) {
    return [...WORKER_NODE_ARGS, '-r', path.join(PROJECT_ROOT, 'src/ts-register.js'), path.join(PROJECT_ROOT, 'src/worker-main.ts')];
  }
  return [...WORKER_NODE_ARGS, path.join(PROJECT_ROOT, 'dist/src/worker-main.js')];
}

export class WorkerStartError extends Error {}

/**
 * Starts a detached worker for `route` with the caller's environment, records it, and waits until
 * it polls (a worker that dies at start is reported with its log, not left for a run to hang on).
 */
export async function startWorker(
  connection: Connection,
  target: { address: string; namespace: string },
  route: Route,
  env: NodeJS.ProcessEnv = process.env,
  waitMs = 90_000,
): Promise<WorkerRecord> {
  const dir = workersDir(env);
  fs.mkdirSync(dir, { recursive: true });
  const log = path.join(dir, `${fileSafe(route.taskQueue)}.log`);
  const out = fs.openSync(log, 'a');
  const file = recordFile(route.taskQueue, env);
  const child = spawn(process.execPath, workerCommand(), {
    detached: true,
    stdio: ['ignore', out, out],
    cwd: PROJECT_ROOT,
    env: {
      ...env,
      TEMPORAL_ADDRESS: target.address,
      TEMPORAL_NAMESPACE: target.namespace,
      REPLANNER_TASK_QUEUE: route.taskQueue,
      // Auto-started workers exit when idle; a worker started by hand does not unless asked.
      REPLANNER_WORKER_IDLE_EXIT: env.REPLANNER_WORKER_IDLE_EXIT || formatDuration(DEFAULT_IDLE_EXIT_MS),
      REPLANNER_WORKER_RECORD: file,
    },
  });
  fs.closeSync(out);
  child.unref();
  const pid = child.pid;
  if (!pid) throw new WorkerStartError(`could not start a worker (${process.execPath} ${workerCommand().join(' ')}); see ${rel(log)}`);
  const record: WorkerRecord = {
    pid,
    taskQueue: route.taskQueue,
    endpoint: route.endpoint,
    model: route.model,
    keySha256: route.keySha256,
    startedAt: new Date().toISOString(),
    log,
    address: target.address,
    namespace: target.namespace,
  };
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (!isOurWorker(pid)) {
      removeRecord(route.taskQueue, pid, env);
      throw new WorkerStartError(`the worker for task queue "${route.taskQueue}" exited at start: ${lastLines(log)} (log ${rel(log)})`);
    }
    const polling = await pollersOf(connection, target.namespace, route.taskQueue).catch(() => []);
    if (polling.some((p) => p.identity.startsWith(`${pid}@`))) return record;
    if (Date.now() > deadline) {
      throw new WorkerStartError(
        `the worker for task queue "${route.taskQueue}" (pid ${pid}) did not poll within ${waitMs / 1000} s; see ${rel(log)}`,
      );
    }
    await sleep(200);
  }
}

/**
 * Stops a recorded worker gracefully: SIGTERM makes the SDK shut the worker down (polls stop,
 * tasks in flight end), then the process exits. 'gone' when it was not running.
 */
export async function stopWorker(
  record: WorkerRecord,
  env: NodeJS.ProcessEnv = process.env,
  waitMs = 30_000,
): Promise<'stopped' | 'gone' | 'timeout'> {
  if (!isOurWorker(record.pid)) {
    removeRecord(record.taskQueue, record.pid, env);
    return 'gone';
  }
  try {
    process.kill(record.pid, 'SIGTERM');
  } catch {
    removeRecord(record.taskQueue, record.pid, env);
    return 'gone';
  }
  const deadline = Date.now() + waitMs;
  while (isOurWorker(record.pid)) {
    if (Date.now() > deadline) return 'timeout';
    await sleep(100);
  }
  removeRecord(record.taskQueue, record.pid, env);
  return 'stopped';
}

/**
 * Makes sure a live worker serves the caller's route: starts one when none counts (a dead poller
 * does not), restarts the auto-started one when the caller's key (or, under an explicit queue,
 * endpoint or model) differs. A worker someone else started is used as it is. Says what it did.
 */
export async function ensureWorker(
  connection: Connection,
  target: { address: string; namespace: string },
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  route: Route = routeOf(env),
  restart = true,
): Promise<void> {
  // A worker that would die at start on a bad value is a usage error of this shell (exit 2).
  const idle = parseIdleExit(env.REPLANNER_WORKER_IDLE_EXIT, DEFAULT_IDLE_EXIT_MS);
  if (typeof idle !== 'number') throw new ConfigError(idle.error);
  const commands = commandSlotsFrom(env.REPLANNER_MAX_CONCURRENT_COMMANDS, 1);
  if (typeof commands !== 'number') throw new ConfigError(commands.error);
  // Two commands at once (two terminals) must not both start a worker for the same queue.
  return withStartLock(route.taskQueue, env, () => ensureWorkerLocked(connection, target, say, env, route, restart));
}

async function ensureWorkerLocked(
  connection: Connection,
  target: { address: string; namespace: string },
  say: (line: string) => void,
  env: NodeJS.ProcessEnv,
  route: Route,
  restart: boolean,
): Promise<void> {
  const { liveness, record } = await livenessOf(connection, target.namespace, route.taskQueue, env);
  const where = `task queue "${route.taskQueue}" (model ${route.model} at ${route.endpoint})`;
  if (liveness.alive && liveness.by === 'recorded' && record) {
    if (!restart) return;
    const why = restartReason(record, route);
    if (!why) return;
    const stopped = await stopWorker(record, env);
    if (stopped === 'timeout') {
      throw new WorkerStartError(
        `the worker on ${where} (pid ${record.pid}) did not stop within 30 s; stop it with kill ${record.pid} and try again`,
      );
    }
    const started = await startWorker(connection, target, route, env);
    say(`Restarted the worker on ${where}: ${why} (pid ${record.pid} → ${started.pid}, log ${rel(started.log)}).`);
    return;
  }
  if (liveness.alive) return;
  const started = await startWorker(connection, target, route, env);
  const replaced = record ? ` in place of pid ${record.pid}, which is gone` : '';
  say(
    `Started a Replanner worker on ${where}${replaced} (pid ${started.pid}, log ${rel(started.log)}; stop it: ${replannerCommand('worker', 'stop', route.taskQueue)}).`,
  );
}

/**
 * For commands that act on an existing run (resume, answer, pause, watch, cancel): its task queue
 * needs a live worker. The caller's environment can start one only when it routes to that queue
 * (its key then also restarts the auto-started worker when `restart`: resume after a 401);
 * otherwise say which endpoint and model the run needs.
 */
export async function ensureWorkerForQueue(
  connection: Connection,
  target: { address: string; namespace: string },
  queue: string,
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  restart = false,
  /** The command cannot work without a worker (an Update): fail instead of warning. */
  required = false,
): Promise<void> {
  const route = routeOf(env);
  if (route.taskQueue === queue) return ensureWorker(connection, target, say, env, route, restart);
  const { liveness, record } = await livenessOf(connection, target.namespace, queue, env);
  if (liveness.alive) return;
  const needs = record ? `OPENAI_BASE_URL=${record.endpoint} REPLANNER_MODEL=${record.model}` : `REPLANNER_TASK_QUEUE=${queue}`;
  const msg =
    `no worker polls the run's task queue "${queue}", and your environment routes to "${route.taskQueue}"; ` +
    `run the command again with ${needs} (and its OPENAI_API_KEY) to start one`;
  if (required) throw new WorkerStartError(msg);
  say(`replanner: ${msg}.`);
}

/** Runs `fn` holding <workers>/<queue>.lock; a lock whose holder process is gone is taken over. */
async function withStartLock<T>(queue: string, env: NodeJS.ProcessEnv, fn: () => Promise<T>, waitMs = 120_000): Promise<T> {
  fs.mkdirSync(workersDir(env), { recursive: true });
  const file = path.join(workersDir(env), `${fileSafe(queue)}.lock`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder: number;
      let ageMs: number;
      try {
        holder = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
        ageMs = Date.now() - fs.statSync(file).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      // No pid yet: being written this instant, unless it has been like that for seconds.
      if (Number.isInteger(holder) ? !pidExists(holder) : ageMs > 5000) {
        fs.rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new WorkerStartError(
          `another replanner command (pid ${holder}) is still starting the worker for task queue "${queue}"; try again in a moment`,
        );
      }
      await sleep(200);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function lastLines(file: string, n = 3): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-n).join(' | ');
  } catch {
    return '(no log)';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
