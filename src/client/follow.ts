// `watch` and `run --wait` follow a run's event log until it ends, feeding each status to the
// terminal question asker; Ctrl-C stops the following, not the run. An open watch notices when
// no worker serves the run and starts one as `run` does, and ends as soon as its reader has gone
// (`watch | head`), even while the run is quiet.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { Client } from '@temporalio/client';
import { workerStartHint } from '../domain/run-ending';
import { lookAtQueue, parseNoWorkerNotice, type QueueWatch } from '../domain/run/watch-lines';
import { ConfigError } from '../domain/config';
import { routeOf } from '../route';
import type { RunStatus } from '../workflows/messages';
import type { QuestionAsker } from './question-asker';
import { FINAL } from './run-inspect';
import { workflowIdOf } from './runs';
import { eventPrinter, watchEvents, type EventPrinter } from './watch';
import { replannerCommand } from '../domain/printed-commands';
import { pollersOf, readRecord } from './workers';

/** Starts the run's worker as `run` and a new `watch` do (ensureRunWorker), telling on stderr what it did. */
export interface WorkerStarter {
  start(): Promise<void>;
  say(line: string): void;
}

/** Follows the run's events until it ends (--json: one JSON object per line) and returns its final status. */
export function follow(
  client: Client,
  runId: string,
  write: (s: string) => void,
  o: { verbose?: boolean; json?: boolean; asker?: QuestionAsker; worker?: WorkerStarter },
): Promise<RunStatus> {
  const p = eventPrinter(write, { runId, verbose: Boolean(o.verbose), json: Boolean(o.json) });
  const lookAtWorkers = o.worker ? queueWatchdog(client, runId, p, o.worker) : undefined;
  return watchEvents(
    client,
    runId,
    {
      ...p,
      onStatus: async (s) => {
        p.onStatus(s);
        o.asker?.offer(s);
        await lookAtWorkers?.(s);
      },
    },
    { onUnavailable: (why) => p.fallBack(why) },
  );
}

/** How often an open watch looks at the pollers of its run's queue. */
const QUEUE_LOOK_MS = 2000;

/**
 * After each status, at most every QUEUE_LOOK_MS, a look at the run's queue: once no worker has
 * polled it for REPLANNER_NO_WORKER_NOTICE (src/domain/run/watch-lines), one line says so, and the
 * run's worker is started when this shell routes to its queue, else the line says how to start it.
 */
function queueWatchdog(client: Client, runId: string, p: EventPrinter, worker: WorkerStarter): (s: RunStatus) => Promise<void> {
  const noticeMs = parseNoWorkerNotice(process.env.REPLANNER_NO_WORKER_NOTICE);
  if (typeof noticeMs !== 'number') throw new ConfigError(noticeMs.error);
  let queue: string | undefined;
  let watch: QueueWatch = { lastAliveMs: Date.now(), told: false };
  let lookedAt = 0;
  return async (s) => {
    if (FINAL.has(s.status) || noticeMs === 0 || Date.now() - lookedAt < QUEUE_LOOK_MS) return;
    lookedAt = Date.now();
    queue ??= (
      await client.workflow
        .getHandle(workflowIdOf(runId))
        .describe()
        .catch(() => undefined)
    )?.taskQueue;
    if (!queue) return;
    const pollers = await pollersOf(client, client.options.namespace, queue).catch(() => undefined);
    if (!pollers) return;
    const look = lookAtQueue(watch, { pollers, nowMs: Date.now(), noticeMs });
    watch = look.watch;
    if (look.silentMs === undefined) return;
    const callerQueue = routeOf(process.env).taskQueue;
    const fix = queue === callerQueue ? undefined : workerStartHint({ queue, callerQueue, recorded: readRecord(queue) });
    p.onNoWorker({ silentMs: look.silentMs, taskQueue: queue, ...(fix ? { fix } : {}) });
    if (fix) return;
    try {
      await worker.start();
    } catch (e) {
      worker.say(`replanner: could not start a worker for task queue "${queue}": ${(e as Error).message}`);
    }
  };
}

/**
 * Ctrl-C while watching stops the watching, not the run: say so, and how to reattach or cancel
 * (exit 130, the shell's code for an interrupt). `out`: where the watch prints; when it is this
 * process's stdout, the watch also ends (exit 0) once its reader has gone.
 */
export async function whileWatching<T>(runId: string, say: (s: string) => void, watch: () => Promise<T>, out?: unknown): Promise<T> {
  const onInterrupt = () => {
    say(`\nStopped watching; run ${runId} goes on. Reattach: ${replannerCommand('watch', runId)} · cancel it: ${replannerCommand('cancel', runId)}`);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  const stopLooking = out === process.stdout ? exitWhenReaderGone() : undefined;
  try {
    return await watch();
  } finally {
    stopLooking?.();
    process.removeListener('SIGINT', onInterrupt);
  }
}

/**
 * `watch … | head -3`: a write into a pipe whose reader has gone fails (the CLI then ends quietly),
 * but a watch waiting on a quiet run writes nothing for minutes. Node cannot ask whether a pipe's
 * reader is still there without writing, so a small watcher does: GNU `tail -f` on a pipe ends with
 * SIGPIPE as soon as the pipe's reader has gone, writing nothing (and with --pid, once this process
 * has ended). Its end by SIGPIPE ends this process, exit 0. Where stdout is no pipe, or there is no
 * such `tail`, nothing is started and the next write notices instead. Returns what stops the watcher.
 */
function exitWhenReaderGone(): () => void {
  let pipe = false;
  try {
    pipe = fs.fstatSync(1).isFIFO();
  } catch {
    /* no stdout to look at */
  }
  if (!pipe) return () => undefined;
  const watcher = spawn('tail', ['-f', `--pid=${process.pid}`, '/dev/null'], { stdio: ['ignore', 1, 'ignore'] });
  const ended = (_code: number | null, signal: NodeJS.Signals | null) => {
    if (signal === 'SIGPIPE') process.exit(0);
  };
  const stop = () => {
    watcher.removeListener('exit', ended);
    process.removeListener('exit', stop);
    watcher.kill();
  };
  watcher.on('error', () => undefined); // no tail here: the next write notices instead
  watcher.on('exit', ended);
  watcher.unref();
  // However this process ends (Ctrl-C, a closed pipe found by a write), the watcher does not outlive it.
  process.once('exit', stop);
  return stop;
}
