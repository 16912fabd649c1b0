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
} from '@temporalio/client';
import { runStaticMetadata } from '../domain/run/checklist';
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
  type RunStatus,
} from '../workflows/messages';
import type { RunOptions } from '../workflows/options';
import { RunWorkflow, runWorkflowId, type RunInput } from '../workflows/run';
import { PHASE_KEY, STATUS_KEY } from '../workflows/search-attributes';

export interface StartParams {
  /** The instruction, or with `instructionFile` its head. */
  instruction: string;
  /** S3: the instruction stored beside the run (run-start-guards storeInstruction). */
  instructionFile?: string;
  workspace: string;
  taskQueue: string;
  runId?: string;
  options?: Partial<RunOptions>;
  /** X12: the parsed config (loadConfig); the workflow gets it as RunInput.config. Absent: defaults. */
  config?: ReplannerConfig;
}

export async function startRun(client: Client, p: StartParams) {
  const runId = p.runId ?? randomUUID().slice(0, 8);
  const input: RunInput = { runId, instruction: p.instruction, workspace: path.resolve(p.workspace), options: p.options };
  if (p.config !== undefined) input.config = p.config;
  if (p.instructionFile !== undefined) input.instructionFile = p.instructionFile;
  const handle = await client.workflow.start(RunWorkflow, {
    taskQueue: p.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [input],
    memo: { instruction: p.instruction.slice(0, 2000), workspace: input.workspace },
    typedSearchAttributes: [
      { key: PHASE_KEY, value: 'goal_understanding' },
      { key: STATUS_KEY, value: 'RUNNING' },
    ],
    // V1: the instruction in the Web UI, clipped to its limits (summary 200 bytes, details 20 KB).
    ...runStaticMetadata(p.instruction, p.instructionFile),
  });
  return { runId, handle };
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
 * O5: `status` of any run. A running run's worker answers the query; a finished run, or one whose
 * worker does not answer within a few seconds, is read from what the workflow left in its memo (no
 * worker needed). An unknown run is NotFound at once.
 */
export async function getStatus(client: Client, runId: string): Promise<RunStatus> {
  return inspect(client, runId, statusQuery, MEMO_STATUS);
}

/** How long a query may wait for a worker before the memo answers instead. */
const QUERY_WAIT_MS = 5000;

async function inspect<T>(client: Client, runId: string, query: QueryDefinition<T>, memoKey: string): Promise<T> {
  const handle = client.workflow.getHandle(workflowIdOf(runId));
  let desc: WorkflowExecutionDescription;
  try {
    desc = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}" (workflow ${workflowIdOf(runId)} not found)`);
    throw err;
  }
  const recorded = desc.memo?.[memoKey] as T | undefined;
  if (desc.status.name !== 'RUNNING' && recorded !== undefined) return recorded;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), QUERY_WAIT_MS)));
  try {
    const answered = await Promise.race([handle.query(query), timeout]);
    if (answered !== 'timeout') return answered;
  } catch (err) {
    if (err instanceof QueryNotRegisteredError) throw err;
    if (recorded === undefined) throw err;
  } finally {
    clearTimeout(timer);
  }
  if (recorded !== undefined) return recorded;
  throw new Error(`run "${runId}" did not answer (no worker polls its task queue "${desc.taskQueue}") and has no recorded state yet`);
}

export class NotFound extends Error {}

export const FINAL = new Set(['DONE', 'BLOCKED', 'FAILED', 'CANCELLED', 'STOPPED']);

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
      const final = (desc.memo?.[MEMO_STATUS] as RunStatus | undefined)?.status ?? desc.status.name;
      throw new AlreadyEnded(`run ${runId} already ended (${final}); nothing to cancel`);
    }
    await handle.cancel();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}"`);
    throw err;
  }
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
    const final = (d.memo?.[MEMO_STATUS] as RunStatus | undefined)?.status ?? d.status.name;
    throw new AlreadyEnded(`run ${runId} already ended (${final}); its questions can no longer be answered`);
  }
}

/** X9: the run's decision log, counters and questions (Query `decisions`; the memo when no worker answers, O5). */
export async function getDecisions(client: Client, runId: string): Promise<DecisionsView> {
  try {
    return await inspect(client, runId, decisionsQuery, MEMO_DECISIONS);
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
      const status = d.typedSearchAttributes.get(STATUS_KEY) ?? d.status.name;
      throw new RunEnded(`run "${runId}" already ended: ${status}`, status);
    }
    throw err;
  }
}
