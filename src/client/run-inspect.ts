// Reading a run: its status and decision log (the worker's query, or the memo when no worker can
// answer, or how Temporal ended it), whether a worker serves it, and waiting for it.
import {
  QueryNotRegisteredError,
  WorkflowNotFoundError,
  type Client,
  type QueryDefinition,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { MEMO_DECISIONS, MEMO_STATUS } from '../domain/run/views';
import { closedRunDecisions, closedRunStatus, workerStartHint, type RunEnding } from '../domain/run-ending';
import { FINAL_STATUSES, isClosedExecution, isFinalStatus, shownStatus, withOpenQuestionsClosed } from '../domain/run/closed';
import { decideLiveness } from '../domain/worker-lifecycle';
import { decisionsQuery, statusQuery, type DecisionsView, type Question, type RunStatus } from '../workflows/messages';
import { STATUS_KEY } from '../workflows/search-attributes';
import { routeOf } from '../route';
import { NoWorker, NotFound } from './errors';
import { withTimeout } from './query-wait';
import { workflowIdOf } from './runs';
import { withTasksAsSeen } from './running-tasks';
import { pollersOf, readRecord } from './workers';

/**
 * `status` of any run, with or without a worker (O5). A running run's worker answers the query; a
 * finished run is read from what the workflow left in its memo (no worker needed), or, when
 * Temporal itself ended it (terminated, timed out), is that final state with the reason
 * (src/domain/run-ending). A running
 * run whose task queue no live worker polls answers from its memo, or is NoWorker naming the queue
 * and how to start its worker. An unknown run is NotFound at once. Temporal's status of the
 * execution comes first: an ended run's open questions show closed, with why; a running run's
 * tasks are shown as their own workflows are (a started task never READY again; one whose worker
 * died marked so).
 */
export async function getStatus(client: Client, runId: string): Promise<RunStatus> {
  const r = await inspect(client, runId, statusQuery, MEMO_STATUS, (recorded, ending, desc) =>
    closedRunStatus({ runId: runIdOf(desc.workflowId), recorded, ending, memo: desc.memo }),
  );
  if (isFinalStatus(r.value.status)) return withOpenQuestionsClosed(r.value, r.value.status);
  return withTasksAsSeen(client, r.desc.workflowId, r.value, r.served);
}

/** How long a query may wait for a worker before the memo answers instead. */
const QUERY_WAIT_MS = 5000;

const runIdOf = (workflowId: string) => workflowId.replace(/^run-/, '');

async function describeRun(client: Client, runId: string): Promise<WorkflowExecutionDescription> {
  try {
    return await client.workflow.getHandle(workflowIdOf(runId)).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}" (workflow ${workflowIdOf(runId)} not found)`, { cause: err });
    throw err;
  }
}

/** A view of the run, the description it was read with, and whether a live worker polls its queue. */
interface Inspected<T> {
  value: T;
  desc: WorkflowExecutionDescription;
  served: boolean;
}

async function inspect<T>(
  client: Client,
  runId: string,
  query: QueryDefinition<T>,
  memoKey: string,
  closed: (recorded: T | undefined, ending: RunEnding, desc: WorkflowExecutionDescription) => T,
): Promise<Inspected<T>> {
  const desc = await describeRun(client, runId);
  const handle = client.workflow.getHandle(desc.workflowId);
  const recorded = desc.memo?.[memoKey] as T | undefined;
  if (isClosedExecution(desc.status.name)) return { value: closed(recorded, await endingOf(client, desc), desc), desc, served: false };
  // Nobody polls the run's queue: a query would only wait and fail.
  if (!(await queueHasWorker(client, desc.taskQueue))) {
    if (recorded !== undefined) return { value: recorded, desc, served: false };
    throw noWorker(runId, desc.taskQueue);
  }
  try {
    // A query's answer is never undefined: undefined is the wait running out.
    const answered = await withTimeout(handle.query(query), QUERY_WAIT_MS);
    if (answered !== undefined) return { value: answered, desc, served: true };
  } catch (err) {
    if (err instanceof QueryNotRegisteredError) throw err;
    // The run closed between describe and query (terminated, say): its final state.
    const now = await describeRun(client, runId);
    if (isClosedExecution(now.status.name)) {
      return { value: closed(now.memo?.[memoKey] as T | undefined, await endingOf(client, now), now), desc: now, served: false };
    }
    if (recorded === undefined) throw err;
  }
  if (recorded !== undefined) return { value: recorded, desc, served: true };
  throw new NoWorker(
    `run "${runId}" did not answer within ${QUERY_WAIT_MS / 1000} s and has no recorded state yet: the worker on its task queue "${desc.taskQueue}" ` +
      `is busy or has just stopped; try again, or ${workerStartHint({ queue: desc.taskQueue, callerQueue: routeOf(process.env).taskQueue, recorded: readRecord(desc.taskQueue) })}`,
    desc.taskQueue,
  );
}

/** A live worker polls `queue` (a dead poller the server still lists does not count). */
export async function queueHasWorker(client: Client, queue: string): Promise<boolean> {
  const pollers = await pollersOf(client, client.options.namespace, queue);
  return decideLiveness({ recordedAlive: false, pollers, nowMs: Date.now() }).alive;
}

function noWorker(runId: string, queue: string, what = 'has no recorded state yet'): NoWorker {
  const hint = workerStartHint({ queue, callerQueue: routeOf(process.env).taskQueue, recorded: readRecord(queue) });
  return new NoWorker(`run "${runId}" ${what}: no worker polls its task queue "${queue}"; ${hint}`, queue);
}

/** How Temporal closed the run: the close event of its history (the newest event, read backwards). */
async function endingOf(client: Client, desc: WorkflowExecutionDescription): Promise<RunEnding> {
  const ending: RunEnding = { temporalStatus: desc.status.name as RunEnding['temporalStatus'] };
  if (desc.closeTime) ending.at = desc.closeTime.toISOString();
  try {
    const res = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId: desc.workflowId, runId: desc.runId },
      maximumPageSize: 1,
    });
    const e = res.history?.events?.[0];
    const terminated = e?.workflowExecutionTerminatedEventAttributes;
    const failed = e?.workflowExecutionFailedEventAttributes;
    if (terminated) {
      if (terminated.reason) ending.reason = terminated.reason;
      if (terminated.identity) ending.by = terminated.identity;
    } else if (failed?.failure?.message) {
      ending.reason = failed.failure.message;
    }
  } catch {
    /* the status alone still says how it ended */
  }
  return ending;
}

/**
 * Why a running run makes no progress, if that is so: no live worker polls its task queue (the
 * message names the queue and how to start its worker). Undefined for a closed run or one served.
 */
export async function workerProblem(client: Client, runId: string): Promise<string | undefined> {
  const desc = await describeRun(client, runId);
  if (isClosedExecution(desc.status.name) || (await queueHasWorker(client, desc.taskQueue))) return undefined;
  return noWorker(runId, desc.taskQueue, 'makes no progress').message;
}

/** The run's decision log, counters and questions (Query `decisions`; the memo when no worker answers). */
export async function getDecisions(client: Client, runId: string): Promise<DecisionsView> {
  try {
    const r = await inspect(client, runId, decisionsQuery, MEMO_DECISIONS, (recorded, _ending, desc) =>
      closedRunDecisions(recorded, endedStatus(desc)),
    );
    return r.value;
  } catch (err) {
    if (err instanceof QueryNotRegisteredError) {
      throw new Error(`run "${runId}" has no decision log (it was started by a Replanner version without the \`decisions\` query)`, {
        cause: err,
      });
    }
    throw err;
  }
}

/**
 * What a run shows, from Temporal's status of its execution first: for a closed run how it
 * ended (Temporal's word when Temporal ended it, else what the run recorded); for an open one what
 * it says of itself.
 */
export function endedStatus(d: WorkflowExecutionDescription): string {
  const recorded = (d.memo?.[MEMO_STATUS] as RunStatus | undefined)?.status;
  return shownStatus({ execution: d.status.name, searchStatus: d.typedSearchAttributes.get(STATUS_KEY), recordedStatus: recorded });
}

/** The statuses of a run that has ended. */
export const FINAL: ReadonlySet<string> = new Set<string>(FINAL_STATUSES);

/** Polls `status` until the run ends, calling `onStatus` on every change. */
export async function watchRun(
  client: Client,
  runId: string,
  onStatus: (s: RunStatus) => void | Promise<void>,
  intervalMs = 1000,
): Promise<RunStatus> {
  let last = '';
  for (;;) {
    const s = await getStatus(client, runId);
    const key = JSON.stringify(s);
    if (key !== last) {
      last = key;
      await onStatus(s);
    }
    if (FINAL.has(s.status)) return s;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Waits until the run asks a question (clarification, confirmation, escalation, budget) and returns
 * the first one pending; undefined when the run ends first or `timeoutMs` passes. Answer it with
 * answerQuestion (the `answerClarification` update).
 */
export async function waitForQuestion(
  client: Client,
  runId: string,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Question | undefined> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10 * 60_000);
  for (;;) {
    const s = await getStatus(client, runId);
    const q = (s.questions ?? []).find((x) => x.status === 'pending');
    if (q) return q;
    if (FINAL.has(s.status) || Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 500));
  }
}
