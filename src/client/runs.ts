// The small client library behind the CLI: start, inspect, watch, list and cancel runs.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { QueryNotRegisteredError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { taskWorkflowId } from '../workflows/execution';
import type { ReplannerConfig } from '../domain/config';
import {
  answerClarificationUpdate,
  answerConsultationUpdate,
  decisionsQuery,
  statusQuery,
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
    staticSummary: `replanner run: ${p.instruction.slice(0, 120)}`,
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

export async function getStatus(client: Client, runId: string): Promise<RunStatus> {
  try {
    return await client.workflow.getHandle(workflowIdOf(runId)).query(statusQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}" (workflow ${workflowIdOf(runId)} not found)`);
    throw err;
  }
}

export class NotFound extends Error {}

export const FINAL = new Set(['DONE', 'BLOCKED', 'FAILED', 'CANCELLED']);

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

export async function cancelRun(client: Client, runId: string): Promise<void> {
  try {
    await client.workflow.getHandle(workflowIdOf(runId)).cancel();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}"`);
    throw err;
  }
}

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

/** X14: answer a question of the run (Update `answerClarification` on `run-<id>`). */
export async function answerQuestion(client: Client, runId: string, questionId: string, answer: string): Promise<ClarificationAnswerAck> {
  const workflowId = workflowIdOf(runId);
  return sendAnswer(
    () => client.workflow.getHandle(workflowId).executeUpdate(answerClarificationUpdate, { args: [{ questionId, answer }] }),
    `no run "${runId}" (workflow ${workflowId} not found or finished)`,
  );
}

/** X9: the run's decision log, counters and questions (Query `decisions`). */
export async function getDecisions(client: Client, runId: string): Promise<DecisionsView> {
  try {
    return await client.workflow.getHandle(workflowIdOf(runId)).query(decisionsQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}" (workflow ${workflowIdOf(runId)} not found)`);
    if (err instanceof QueryNotRegisteredError) {
      throw new Error(`run "${runId}" has no decision log (it was started by a Replanner version without the \`decisions\` query)`);
    }
    throw err;
  }
}
