// The small client library behind the CLI: start, inspect, watch, list and cancel runs.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import {
  QueryNotRegisteredError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type QueryDefinition,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { MEMO_DECISIONS, MEMO_STATUS } from '../domain/run/state';
import { taskWorkflowId } from '../workflows/execution';
import type { ReplannerConfig } from '../domain/config';
import {
  answerClarificationUpdate,
  answerConsultationUpdate,
  decisionsQuery,
  pauseUpdate,
  resumeUpdate,
  statusQuery,
  type PauseAck,
  type ClarificationAnswerAck,
  type ConsultationAnswerAck,
  type ConsultationAnswerInput,
  type DecisionsView,
  type Question,
  type RunStatus,
} from '../workflows/messages';
import type { RunOptions } from '../workflows/options';
import { RunWorkflow, runWorkflowId, type RunInput } from '../workflows/run';
import { PHASE_KEY, STATUS_KEY } from '../workflows/search-attributes';
import { runStartOptions } from '../workflows/run-start';
import { startRunHoldingWorkspace } from './workspace-lock';
import { workspaceHostOf } from './workspace-host';
import { closedRunDecisions, closedRunStatus, ENDED_BY_TEMPORAL, workerStartHint, type RunEnding } from '../domain/run-ending';
import { decideLiveness } from '../domain/worker-lifecycle';
import { pollersOf, readRecord } from './workers';
import { routeOf } from '../route';
import { BackendError } from './backend';
import { searchAttributeFix } from './search-attribute-setup';

export interface StartParams {
  /** The instruction, or with `instructionFile` its head. */
  instruction: string;
  /** S3: the instruction stored beside the run (run-start-guards storeInstruction). */
  instructionFile?: string;
  workspace: string;
  /** The queue of the run's LLM endpoint and model: `routeOf(process.env).taskQueue` (src/route.ts). */
  taskQueue: string;
  runId?: string;
  options?: Partial<RunOptions>;
  /** X12: the parsed config (loadConfig); the workflow gets it as RunInput.config. Absent: defaults. */
  config?: ReplannerConfig;
  /**
   * S3: start the run as the holder of its workspace (src/client/workspace-lock.ts): Temporal refuses
   * a second running run on the same workspace (WorkspaceBusy names it). The CLI always does.
   */
  holdWorkspace?: boolean;
  /**
   * Workspace affinity: the host whose worker owns the workspace. Absent: found from the pollers of
   * `taskQueue` (their identities name host and roots) or this shell's REPLANNER_HOST /
   * REPLANNER_WORKSPACE_ROOTS; a workspace no worker owns is NoWorkspaceHost, naming the fix.
   */
  host?: string;
}

/**
 * Starts a run: workflow id `run-<runId>`, the memo (instruction, workspace) and search attributes
 * (ReplannerPhase, ReplannerStatus) `list` and `status` read, on `taskQueue`. With `holdWorkspace`,
 * WorkspaceBusy when another run holds the workspace and RunIdTaken when the id runs elsewhere;
 * without, WorkflowExecutionAlreadyStartedError when the id runs.
 */
export async function startRun(client: Client, p: StartParams): Promise<{ runId: string; handle: WorkflowHandle<typeof RunWorkflow> }> {
  const runId = p.runId ?? randomUUID().slice(0, 8);
  const workspace = path.resolve(p.workspace);
  const host = p.host ?? (await workspaceHostOf(client, p.taskQueue, workspace));
  const input: RunInput = { runId, instruction: p.instruction, workspace, host, options: p.options };
  if (p.config !== undefined) input.config = p.config;
  if (p.instructionFile !== undefined) input.instructionFile = p.instructionFile;
  try {
    if (p.holdWorkspace) {
      await startRunHoldingWorkspace(client, p.taskQueue, input);
      return { runId, handle: client.workflow.getHandle<typeof RunWorkflow>(runWorkflowId(runId)) };
    }
    const handle = await client.workflow.start(RunWorkflow, { taskQueue: p.taskQueue, args: [input], ...runStartOptions(input) });
    return { runId, handle };
  } catch (e) {
    throw missingSearchAttributeError(e) ?? e;
  }
}

/** A start the server refused for a search attribute it lacks, as an error naming the command that adds it. */
function missingSearchAttributeError(e: unknown): BackendError | undefined {
  const text = `${(e as Error)?.message ?? ''} ${(e as { cause?: Error })?.cause?.message ?? ''}`;
  const m = /no mapping defined for search attribute (\w+)/.exec(text);
  if (!m) return undefined;
  const name = m[1]!;
  return new BackendError(
    `the Temporal server has no search attribute ${name}, which Replanner's runs set; register it: ${searchAttributeFix(name)}`,
  );
}

/** Accepts a bare run id or the workflow id `run-<id>`. */
export function workflowIdOf(runIdOrWorkflowId: string): string {
  return runIdOrWorkflowId.startsWith('run-') ? runIdOrWorkflowId : runWorkflowId(runIdOrWorkflowId);
}

/**
 * X12: the run options a config implies: `execution.maxParallelTasks` and
 * `execution.commandTimeoutSeconds`. The whole config was already checked by parseConfig (the one
 * parser); refinement and pacemaker travel in RunInput.config, which the workflow parses again.
 */
export function runOptionsFromConfig(config: ReplannerConfig): Partial<RunOptions> {
  return {
    maxParallelTasks: config.execution.maxParallelTasks,
    commandTimeoutMs: Math.round(config.execution.commandTimeoutSeconds * 1000),
  };
}

/**
 * O5: `status` of any run. A running run's worker answers the query; a finished run is read from
 * what the workflow left in its memo (no worker needed), or, when Temporal itself ended it
 * (terminated, timed out), is that final state with the reason (src/domain/run-ending). A running
 * run whose task queue no live worker polls answers from its memo, or is NoWorker naming the queue
 * and how to start its worker. An unknown run is NotFound at once.
 */
export async function getStatus(client: Client, runId: string): Promise<RunStatus> {
  return inspect(client, runId, statusQuery, MEMO_STATUS, (recorded, ending, desc) =>
    closedRunStatus({ runId: runIdOf(desc.workflowId), recorded, ending, memo: desc.memo }),
  );
}

/** How long a query may wait for a worker before the memo answers instead. */
const QUERY_WAIT_MS = 5000;

const runIdOf = (workflowId: string) => workflowId.replace(/^run-/, '');

async function describeRun(client: Client, runId: string): Promise<WorkflowExecutionDescription> {
  try {
    return await client.workflow.getHandle(workflowIdOf(runId)).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}" (workflow ${workflowIdOf(runId)} not found)`);
    throw err;
  }
}

async function inspect<T>(
  client: Client,
  runId: string,
  query: QueryDefinition<T>,
  memoKey: string,
  closed: (recorded: T | undefined, ending: RunEnding, desc: WorkflowExecutionDescription) => T,
): Promise<T> {
  const desc = await describeRun(client, runId);
  const handle = client.workflow.getHandle(desc.workflowId);
  const recorded = desc.memo?.[memoKey] as T | undefined;
  if (desc.status.name !== 'RUNNING') return closed(recorded, await endingOf(client, desc), desc);
  // Nobody polls the run's queue: a query would only wait and fail.
  if (!(await queueHasWorker(client, desc.taskQueue))) {
    if (recorded !== undefined) return recorded;
    throw noWorker(runId, desc.taskQueue);
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), QUERY_WAIT_MS)));
  try {
    const answered = await Promise.race([handle.query(query), timeout]);
    if (answered !== 'timeout') return answered;
  } catch (err) {
    if (err instanceof QueryNotRegisteredError) throw err;
    // The run closed between describe and query (terminated, say): its final state.
    const now = await describeRun(client, runId);
    if (now.status.name !== 'RUNNING') return closed(now.memo?.[memoKey] as T | undefined, await endingOf(client, now), now);
    if (recorded === undefined) throw err;
  } finally {
    clearTimeout(timer);
  }
  if (recorded !== undefined) return recorded;
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
  if (desc.status.name !== 'RUNNING' || (await queueHasWorker(client, desc.taskQueue))) return undefined;
  return noWorker(runId, desc.taskQueue, 'makes no progress').message;
}

/** The run is running but no worker polls its task queue (exit 3 in the CLI); the message says how to start one. */
export class NoWorker extends Error {
  constructor(
    message: string,
    readonly taskQueue: string,
  ) {
    super(message);
  }
}

export class NotFound extends Error {}

export const FINAL = new Set(['DONE', 'BLOCKED', 'FAILED', 'CANCELLED', 'STOPPED', 'TERMINATED', 'TIMED_OUT']);

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

export interface RunListing {
  runId: string;
  workflowId: string;
  temporalStatus: string;
  status?: string;
  phase?: string;
  startTime: string;
  instruction?: string;
}

export async function listRuns(client: Client, limit = 20): Promise<RunListing[]> {
  const out: RunListing[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'RunWorkflow'` })) {
    out.push({
      runId: wf.workflowId.replace(/^run-/, ''),
      workflowId: wf.workflowId,
      temporalStatus: wf.status.name,
      status: wf.typedSearchAttributes.get(STATUS_KEY),
      phase: wf.typedSearchAttributes.get(PHASE_KEY),
      startTime: wf.startTime.toISOString(),
      instruction: (wf.memo?.instruction as string | undefined)?.slice(0, 100),
    });
    if (out.length >= limit) break;
  }
  return out;
}

/** Cancels a running run; a run that already ended is reported as such (AlreadyEnded), not "cancelled". */
export async function cancelRun(client: Client, runId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowIdOf(runId));
  try {
    const desc = await handle.describe();
    if (desc.status.name !== 'RUNNING') {
      const final = endedStatus(desc);
      throw new AlreadyEnded(`run ${runId} already ended (${final}); nothing to cancel`);
    }
    await handle.cancel();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}"`);
    throw err;
  }
}

/** How a closed run ended: Temporal's word when Temporal ended it (terminated, timed out), else what the run recorded. */
function endedStatus(d: WorkflowExecutionDescription): string {
  if ((ENDED_BY_TEMPORAL as readonly string[]).includes(d.status.name)) return d.status.name;
  return (d.memo?.[MEMO_STATUS] as RunStatus | undefined)?.status ?? d.typedSearchAttributes.get(STATUS_KEY) ?? d.status.name;
}

/** The run has already ended: the command has nothing to act on (exit 1). */
export class AlreadyEnded extends Error {}

/** P7: the answer was rejected by the task's validator (nothing pending, unknown choice, no guidance text). */
export class AnswerRejected extends Error {}

/** P7: answer a task's pending consultation (Update `answerConsultation` on `run-<id>.task-<taskId>`). */
export async function answerConsultation(
  client: Client,
  runId: string,
  taskId: string,
  answer: ConsultationAnswerInput,
): Promise<ConsultationAnswerAck> {
  const workflowId = taskWorkflowId(workflowIdOf(runId), taskId);
  return sendAnswer(
    () => client.workflow.getHandle(workflowId).executeUpdate(answerConsultationUpdate, { args: [answer] }),
    `no task "${taskId}" in run "${runId}" (workflow ${workflowId} not found or finished)`,
  );
}

/** An answering Update: a missing workflow is NotFound, a validator's rejection AnswerRejected. */
async function sendAnswer<T>(update: () => Promise<T>, notFound: string): Promise<T> {
  try {
    return await update();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(notFound);
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = (err as { cause?: unknown }).cause;
      throw new AnswerRejected(cause instanceof Error ? cause.message : err.message);
    }
    throw err;
  }
}

/** X14: answer a question of the run (Update `answerClarification` on `run-<id>`); a run that already ended is AlreadyEnded. */
export async function answerQuestion(client: Client, runId: string, questionId: string, answer: string): Promise<ClarificationAnswerAck> {
  const workflowId = workflowIdOf(runId);
  const handle = client.workflow.getHandle(workflowId);
  try {
    return await sendAnswer(
      () => handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId, answer }] }),
      `no run "${runId}" (workflow ${workflowId} not found)`,
    );
  } catch (err) {
    if (!(err instanceof NotFound)) throw err;
    // A closed workflow takes no update either: say how it ended rather than "not found".
    const d = await handle.describe().catch(() => undefined);
    if (!d || d.status.name === 'RUNNING') throw err;
    const final = endedStatus(d);
    throw new AlreadyEnded(`run ${runId} already ended (${final}); its questions can no longer be answered`);
  }
}

/** X9: the run's decision log, counters and questions (Query `decisions`; the memo when no worker answers, O5). */
export async function getDecisions(client: Client, runId: string): Promise<DecisionsView> {
  try {
    return await inspect(client, runId, decisionsQuery, MEMO_DECISIONS, (recorded) => closedRunDecisions(recorded));
  } catch (err) {
    if (err instanceof QueryNotRegisteredError) {
      throw new Error(`run "${runId}" has no decision log (it was started by a Replanner version without the \`decisions\` query)`);
    }
    throw err;
  }
}

/** O1: the run already ended; `status` is its final status. */
export class RunEnded extends Error {
  constructor(
    message: string,
    readonly status: string,
  ) {
    super(message);
  }
}

/** O1: pause a run (Update `pause` on `run-<id>`); pausing a paused run is acknowledged (changed: false). */
export async function pauseRun(client: Client, runId: string, reason?: string): Promise<PauseAck> {
  return sendPause(client, runId, (h) => h.executeUpdate(pauseUpdate, { args: [reason ? { reason } : {}] }));
}

/** O1: resume a paused run (Update `resume`); resuming a running run is acknowledged (changed: false). */
export async function resumeRun(client: Client, runId: string): Promise<PauseAck> {
  return sendPause(client, runId, (h) => h.executeUpdate(resumeUpdate, { args: [] }));
}

async function sendPause(
  client: Client,
  runId: string,
  update: (h: ReturnType<Client['workflow']['getHandle']>) => Promise<PauseAck>,
): Promise<PauseAck> {
  const handle = client.workflow.getHandle(workflowIdOf(runId));
  try {
    return await update(handle);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      // The validator refused: the run ended (its status is in the reason) or a bad payload.
      const cause = (err as { cause?: unknown }).cause;
      const message = cause instanceof Error ? cause.message : err.message;
      const ended = /already ended: (\w+)/.exec(message);
      throw ended ? new RunEnded(`run "${runId}" already ended: ${ended[1]}`, ended[1]!) : err;
    }
    // A closed workflow takes no update: say how it ended, or that there is no such run.
    const d = await handle.describe().catch((e: unknown) => {
      if (e instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}" (workflow ${workflowIdOf(runId)} not found)`);
      throw err;
    });
    if (d.status.name !== 'RUNNING') {
      const status = endedStatus(d);
      throw new RunEnded(`run "${runId}" already ended: ${status}`, status);
    }
    throw err;
  }
}
