// Issue 12, a worker you can trust: the CLI routes a run to the task queue of its endpoint + model,
// starts a detached worker for that queue when none is alive, restarts it when the caller's key
// differs, and records each worker it started in <state>/workers/<queue>.json (pid, queue,
// endpoint, model, sha256 of the key — never the key —, start time, log) for `replanner worker
// status|stop`. The policy is in src/domain/worker-lifecycle.ts.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Connection } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { ConfigError } from '../domain/config';
import { commandSlotsFrom } from '../domain/command-slots';
import {
  chooseTaskQueue,
  decideLiveness,
  DEFAULT_IDLE_EXIT_MS,
  formatDuration,
  parseIdleExit,
  restartReason,
  type Liveness,
  type Poller,
  type WorkerRecord,
} from '../domain/worker-lifecycle';
import { llmSettingsFromEnv } from '../llm/gateway';
import { WORKER_NODE_ARGS } from '../worker-node-args';

const ROOT = path.resolve(__dirname, '..', '..', fs.existsSync(path.resolve(__dirname, '..', '..', 'package.json')) ? '' : '..');

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Where a caller's environment sends its runs: the task queue and the worker settings it needs. */
export interface Route {
  taskQueue: string;
  /** REPLANNER_TASK_QUEUE was set: the user picked the queue. */
  explicit: boolean;
  endpoint: string;
  model: string;
  keySha256: string;
}

export function routeOf(env: NodeJS.ProcessEnv = process.env): Route {
  const llm = llmSettingsFromEnv(env);
  return {
    taskQueue: chooseTaskQueue(env.REPLANNER_TASK_QUEUE, llm.baseURL, llm.model, sha256),
    explicit: Boolean(env.REPLANNER_TASK_QUEUE?.trim()),
    endpoint: llm.baseURL,
    model: llm.model,
    keySha256: sha256(llm.apiKey),
  };
}

/** The records and logs of auto-started workers: REPLANNER_WORKERS_DIR, else .replanner/workers. */
export function workersDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REPLANNER_WORKERS_DIR || path.join(ROOT, '.replanner', 'workers');
}

const fileSafe = (queue: string) => queue.replace(/[^A-Za-z0-9._-]/g, '_');
export const recordFile = (queue: string, env: NodeJS.ProcessEnv = process.env) => path.join(workersDir(env), `${fileSafe(queue)}.json`);

function parseRecord(text: string): WorkerRecord | undefined {
  try {
    const r = JSON.parse(text) as Partial<WorkerRecord>;
    const strings = ['taskQueue', 'endpoint', 'model', 'keySha256', 'startedAt', 'log', 'address', 'namespace'] as const;
    if (!Number.isInteger(r.pid) || (r.pid ?? 0) <= 0 || strings.some((k) => typeof r[k] !== 'string')) return undefined;
    return r as WorkerRecord;
  } catch {
    return undefined;
  }
}

export function readRecord(queue: string, env: NodeJS.ProcessEnv = process.env): WorkerRecord | undefined {
  try {
    return parseRecord(fs.readFileSync(recordFile(queue, env), 'utf8'));
  } catch {
    return undefined;
  }
}

export function readRecords(env: NodeJS.ProcessEnv = process.env): WorkerRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(workersDir(env)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names
    .map((n) => {
      try {
        return parseRecord(fs.readFileSync(path.join(workersDir(env), n), 'utf8'));
      } catch {
        return undefined;
      }
    })
    .filter((r): r is WorkerRecord => r !== undefined)
    .sort((a, b) => a.taskQueue.localeCompare(b.taskQueue));
}

/** Removes the record of `queue` if it still names `pid` (a newer worker's record stays). */
export function removeRecord(queue: string, pid: number, env: NodeJS.ProcessEnv = process.env): void {
  if (readRecord(queue, env)?.pid === pid) fs.rmSync(recordFile(queue, env), { force: true });
}

/** The pid runs and is a Replanner worker (not a process that reused the pid). */
export function isOurWorker(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    // ESRCH: gone; EPERM: another user's process, so not a worker this user started.
    return false;
  }
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /\bworker-main\b/.test(cmdline);
  } catch {
    // No /proc (macOS): a live pid of ours is trusted.
    return !fs.existsSync('/proc/self');
  }
}

/** The workflow-task pollers the server lists for `queue`, with when each last polled. */
export async function pollersOf(connection: Pick<Connection, 'workflowService'>, namespace: string, queue: string): Promise<Poller[]> {
  const res = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: queue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (res.pollers ?? []).map((p) => {
    const identity = p.identity ?? '';
    const local = /^(\d+)@(\S+)/.exec(identity);
    const poller: Poller = { identity, lastAccessMs: optionalTsToMs(p.lastAccessTime) };
    // Identities start <pid>@<host> (the SDK's default, and ours with the roots after it): a poller of this host is checked by its pid.
    if (local && local[2] === os.hostname()) poller.localAlive = pidExists(Number(local[1]));
    return poller;
  });
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // A zombie (exited, not yet reaped by its parent) is not a worker.
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Whether a worker that counts polls `queue`: the recorded one by its pid, others by a fresh poll. */
export async function livenessOf(
  connection: Connection,
  namespace: string,
  queue: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ liveness: Liveness; record?: WorkerRecord }> {
  const record = readRecord(queue, env);
  const recordedAlive = record !== undefined && isOurWorker(record.pid);
  // The recorded worker alive settles it; the server is asked only otherwise.
  const pollers = recordedAlive ? [] : await pollersOf(connection, namespace, queue);
  return { liveness: decideLiveness({ record, recordedAlive, pollers, nowMs: Date.now() }), record };
}

/** How the worker process is started: the build, or the TypeScript sources when the CLI runs from them. */
function workerCommand(): string[] {
  if (__filename.endsWith('.ts')) {
    return [...WORKER_NODE_ARGS, '-r', path.join(ROOT, 'test/support/ts-register.js'), path.join(ROOT, 'src/worker-main.ts')];
  }
  return [...WORKER_NODE_ARGS, path.join(ROOT, 'dist/src/worker-main.js')];
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
    cwd: ROOT,
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
    `Started a Replanner worker on ${where}${replaced} (pid ${started.pid}, log ${rel(started.log)}; stop it: replanner worker stop ${route.taskQueue}).`,
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

/** `worker status`: every recorded worker with whether it is alive. */
export function workerStatuses(env: NodeJS.ProcessEnv = process.env): (WorkerRecord & { alive: boolean })[] {
  return readRecords(env).map((r) => ({ ...r, alive: isOurWorker(r.pid) }));
}

function lastLines(file: string, n = 3): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-n).join(' | ');
  } catch {
    return '(no log)';
  }
}

/** A path as the user reads it: relative below the current directory, else absolute. */
export function displayPath(f: string): string {
  const r = path.relative(process.cwd(), f);
  return !r || r.startsWith('..') ? f : r;
}
const rel = displayPath;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
