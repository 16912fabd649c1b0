// `replanner watch`, `run --wait` and the demo read the run's event log with a cursor (the
// `events` query): every phase entry, decision, task transition, question, consultation,
// notification, pause and the run's end exactly once, in order; "N events dropped" when the reader
// fell behind the log's window. While a task runs, its worker's steps (tool calls: files written,
// commands run) are read from the task workflow itself (its `taskStatus` query), so showing them
// adds nothing to any workflow's history: a query is never recorded.
import { QueryNotRegisteredError, type Client } from '@temporalio/client';
import { MAX_RUN_EVENTS, type RunEvent } from '../domain/run/event-log';
import { noWorkerLine, quietLine } from '../domain/run/watch-lines';
import type { TaskStepLine } from '../domain/task-details';
import { eventsQuery, type RunEventsPage, type RunStatus } from '../workflows/messages';
import { pausesOf } from './render';
import { describeChanges, formatElapsed, runEventLines, workerStepLine } from './render-events';
import { FINAL, getStatus } from './run-inspect';
import { workflowIdOf } from './runs';
import { llmCallsInFlight, type LlmCallInFlight } from './llm-calls';
import { taskStatusWithin, withTimeout } from './query-wait';
import { pollersOf } from './workers';
import { decideLiveness } from '../domain/worker-lifecycle';

/** A worker step of a running task, as `watch` shows it (not one of the run's events: it has no seq). */
export interface WorkerStepEvent extends TaskStepLine {
  kind: 'worker_step';
  taskId: string;
  /** When this client saw it. */
  time: string;
}

export interface WatchHandlers {
  /** Each of the run's events, once, in order. */
  onEvent(e: RunEvent): void | Promise<void>;
  /** Events the reader missed (the run no longer keeps them). */
  onDropped?(count: number): void;
  /** A worker step of a running task, seen while it runs. */
  onWorkerStep?(s: WorkerStepEvent): void;
  /** The run's status after each read (questions to ask, elapsed time); called even when nothing changed. */
  onStatus?(s: RunStatus): void | Promise<void>;
  /** The run's LLM calls in flight after each read (from the activities' heartbeats: no history event). */
  onLlmCalls?(calls: LlmCallInFlight[]): void;
}

const QUERY_WAIT_MS = 5000;

/**
 * Follows a run until it ends and returns its final status. Each turn reads the status (NoWorker /
 * NotFound as getStatus throws them), then every event after the cursor, then the steps of the tasks
 * running. A run whose worker cannot answer the `events` query (an older worker, or an ended run
 * with no worker to replay it) is followed by its status only; `onUnavailable` is told once.
 */
export async function watchEvents(
  client: Client,
  runId: string,
  h: WatchHandlers,
  opts: { intervalMs?: number; onUnavailable?: (why: string) => void } = {},
): Promise<RunStatus> {
  const handle = client.workflow.getHandle(workflowIdOf(runId));
  let cursor = 0;
  let readable = true;
  /** The execution round tasks run in (the newest execution phase entry), and the tasks running. */
  let round = 1;
  const running = new Set<string>();
  /** Per task, the last step shown ("iteration.step"). */
  const shown = new Map<string, number>();

  /** `ended`: the run has ended (a read that times out will not be answered later either). */
  const readEvents = async (ended: boolean): Promise<void> => {
    // An ended run's log is read by a worker replaying it: with none polling its queue the query
    // would only wait out its 5 s.
    if (readable && ended && cursor === 0 && (await noWorkerToReplay(client, handle))) {
      readable = false;
      opts.onUnavailable?.('no worker is running to read an ended run');
      return;
    }
    while (readable) {
      let page: RunEventsPage | undefined;
      try {
        page = await withTimeout(handle.query(eventsQuery, cursor), QUERY_WAIT_MS);
      } catch (e) {
        readable = false;
        opts.onUnavailable?.(e instanceof QueryNotRegisteredError ? 'the run’s worker predates the event log' : (e as Error).message);
        return;
      }
      if (!page) {
        // The worker is busy (next turn), or nobody can replay the ended run.
        if (ended) {
          readable = false;
          opts.onUnavailable?.(`no worker answered within ${QUERY_WAIT_MS / 1000} s`);
        }
        return;
      }
      if (page.dropped > 0) h.onDropped?.(page.dropped);
      for (const e of page.events) {
        if (e.seq <= cursor) continue;
        cursor = e.seq;
        if (e.kind === 'phase' && e.phase === 'execution') round = e.n;
        if (e.kind === 'task') {
          // The task ended: its last steps first (they happened before its end).
          if (e.state !== 'RUNNING' && running.has(e.taskId)) {
            await readSteps(e.taskId);
            running.delete(e.taskId);
          }
          if (e.state === 'RUNNING') {
            running.add(e.taskId);
            shown.delete(e.taskId); // a new round's task workflow counts its steps from 1
          }
        }
        await h.onEvent(e);
      }
      if (!page.more) return;
    }
  };

  const readSteps = async (taskId: string): Promise<void> => {
    if (!h.onWorkerStep) return;
    const status = await taskStatusWithin(client, handle.workflowId, taskId, round, QUERY_WAIT_MS);
    const last = shown.get(taskId) ?? 0;
    for (const s of status?.steps ?? []) {
      const key = s.iteration * 100_000 + s.step;
      if (key <= (shown.get(taskId) ?? last)) continue;
      shown.set(taskId, key);
      h.onWorkerStep({ kind: 'worker_step', taskId, time: new Date().toISOString(), ...s });
    }
  };

  for (;;) {
    const s = await getStatus(client, runId);
    await readEvents(FINAL.has(s.status));
    for (const id of [...running]) await readSteps(id);
    if (h.onLlmCalls && !FINAL.has(s.status)) h.onLlmCalls(await llmCallsInFlight(client, handle.workflowId).catch(() => []));
    await h.onStatus?.(s);
    if (FINAL.has(s.status)) return s;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000));
  }
}

/** True when no live worker polls the run's task queue (false when that cannot be told). */
async function noWorkerToReplay(client: Client, handle: ReturnType<Client['workflow']['getHandle']>): Promise<boolean> {
  try {
    const { taskQueue } = await handle.describe();
    const pollers = await pollersOf(client.connection, client.options.namespace, taskQueue);
    return !decideLiveness({ recordedAlive: false, pollers, nowMs: Date.now() }).alive;
  } catch {
    return false;
  }
}

/** A step (phase or task) running this long without anything new printed gets a line with its elapsed time. */
const LONG_STEP_MS = 30_000;

/** A streaming LLM call's line is printed when what it does changes, and otherwise at most this often. */
const LLM_CALL_LINE_MS = 15_000;

export interface EventPrinter extends WatchHandlers {
  onLlmCalls(calls: LlmCallInFlight[]): void;
  onDropped(count: number): void;
  onWorkerStep(s: WorkerStepEvent): void;
  onStatus(s: RunStatus): void;
  /** The run's events cannot be read: show what changed between statuses instead. */
  fallBack(why: string): void;
  /** No worker has polled the run's queue for `silentMs`; `fix`: how to start one, when this shell may not. */
  onNoWorker(n: { silentMs: number; taskQueue: string; fix?: string }): void;
}

/**
 * Prints every event of the run once, in order (`--json`: one JSON object per line, each with seq,
 * time and kind; worker steps have kind `worker_step` and no seq), the worker steps of running tasks, how long a
 * task took, and a line when nothing was printed for a while: what the run waits for (whose
 * answer, asked when), who paused it, or the phase and tasks running long with their elapsed time.
 * "No replan" decisions and notification deliveries only with `verbose`.
 */
export function eventPrinter(print: (s: string) => void, o: { runId: string; verbose?: boolean; json?: boolean; longStepMs?: number }): EventPrinter {
  let lastOutput = Date.now();
  let phase: { name: string; at: number } | undefined;
  const taskStart = new Map<string, number>();
  /** When each consultation was asked (its event's time). */
  const consulted = new Map<string, number>();
  let fallback: ((s: RunStatus) => void) | undefined;
  /** Per LLM call in flight: what was printed last (its state and attempt) and when. */
  const calls = new Map<string, { key: string; at: number }>();
  const out = (line: string) => {
    print(line);
    lastOutput = Date.now();
  };
  return {
    onEvent(e) {
      if (o.json) return out(JSON.stringify(e));
      const at = Date.parse(e.time);
      let lines = runEventLines(e, o.runId, o.verbose);
      if (e.kind === 'phase') phase = { name: e.phase, at };
      if (e.kind === 'consultation') consulted.set(e.consultationId, at);
      if (e.kind === 'task') {
        const began = taskStart.get(e.taskId);
        if (e.state === 'RUNNING') taskStart.set(e.taskId, at);
        else if (began !== undefined) {
          taskStart.delete(e.taskId);
          lines = lines.map((l, i) => (i === 0 ? `${l} (${formatElapsed(at - began)})` : l));
        }
      }
      for (const l of lines) out(l);
    },
    onLlmCalls(now) {
      const open = new Set<string>();
      for (const c of now) {
        // V8: a model that does not answer is told once by the run's pause, not at each retry.
        if (c.outage) continue;
        const id = `${c.workflowId}/${c.activityType}`;
        open.add(id);
        const key = `${c.progress?.state ?? ''}/${c.attempt}/${c.lastFailure ?? ''}`;
        const last = calls.get(id);
        if (last && last.key === key && Date.now() - last.at < LLM_CALL_LINE_MS) continue;
        calls.set(id, { key, at: Date.now() });
        out(o.json ? JSON.stringify({ kind: 'llm_call', time: new Date().toISOString(), ...c }) : `  … ${c.line}`);
      }
      for (const id of [...calls.keys()]) if (!open.has(id)) calls.delete(id);
    },
    onDropped(count) {
      if (o.json) return out(JSON.stringify({ kind: 'dropped', count }));
      out(`  (${count} events dropped: the run keeps only its newest ${MAX_RUN_EVENTS})`);
    },
    onWorkerStep(s) {
      out(o.json ? JSON.stringify(s) : workerStepLine(s.taskId, s));
    },
    onStatus(s) {
      if (fallback) return fallback(s);
      if (o.json || FINAL.has(s.status)) return;
      const now = Date.now();
      if (now - lastOutput < (o.longStepMs ?? LONG_STEP_MS)) return;
      const lost = new Map((s.tasks ?? []).flatMap((t) => (t.workerLost ? [[t.id, t.workerLost] as const] : [])));
      const running = [...taskStart].map(([id, at]) => ({ id, sinceMs: at, ...(lost.has(id) ? { workerLost: lost.get(id)! } : {}) }));
      const run = { status: s.status, phase: phase?.name ?? s.phase, questions: s.questions, consultations: s.consultations, pauses: pausesOf(s) };
      const line = quietLine(run, { nowMs: now, phaseSinceMs: phase?.at, consultationAskedMs: consulted, running, elapsed: formatElapsed });
      if (line) out(`  … ${line}`);
    },
    onNoWorker(n) {
      if (!o.json) return out(`  … ${noWorkerLine(n.silentMs, n.fix)}`);
      const { silentMs, ...rest } = n;
      out(
        JSON.stringify({ kind: 'no_worker', time: new Date().toISOString(), silentSeconds: Math.round(silentMs / 1000), starting: !n.fix, ...rest }),
      );
    },
    fallBack(why) {
      if (fallback) return;
      if (!o.json) out(`  (the run's event log cannot be read: ${why}; showing what changes between status reads)`);
      let prev: RunStatus | undefined;
      fallback = (s) => {
        for (const l of o.json ? [JSON.stringify({ kind: 'status', time: new Date().toISOString(), status: s })] : describeChanges(prev, s)) out(l);
        prev = s;
      };
    },
  };
}
