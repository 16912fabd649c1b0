// The workers `replanner run` started (a worker you can trust): each is recorded in
// <state>/workers/<queue>.json (pid, queue, endpoint, model, sha256 of the key — never the key —,
// start time, log) for `replanner worker status|stop`, and whether a worker that counts polls a
// queue (the recorded one by its pid, others by the server's pollers). Starting and stopping them is
// in worker-start.ts; the policy in src/domain/worker-lifecycle.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Connection } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { decideLiveness, type Liveness, type Poller, type WorkerRecord } from '../domain/worker-lifecycle';
import { PROJECT_ROOT } from '../project-root';

/** The records and logs of auto-started workers: REPLANNER_WORKERS_DIR, else .replanner/workers. */
export function workersDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REPLANNER_WORKERS_DIR || path.join(PROJECT_ROOT, '.replanner', 'workers');
}

export const fileSafe = (queue: string) => queue.replace(/[^A-Za-z0-9._-]/g, '_');
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

export function pidExists(pid: number): boolean {
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

/** `worker status`: every recorded worker with whether it is alive. */
export function workerStatuses(env: NodeJS.ProcessEnv = process.env): (WorkerRecord & { alive: boolean })[] {
  return readRecords(env).map((r) => ({ ...r, alive: isOurWorker(r.pid) }));
}

/** A path as the user reads it: relative below the current directory, else absolute. */
export function displayPath(f: string): string {
  const r = path.relative(process.cwd(), f);
  return !r || r.startsWith('..') ? f : r;
}
