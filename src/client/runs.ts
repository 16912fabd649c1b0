// The small client library behind the CLI: start, inspect, watch, list and cancel runs.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { taskWorkflowId } from '../workflows/execution';
import {
  answerConsultationUpdate,
  statusQuery,
  type ConsultationAnswerAck,
  type ConsultationAnswerInput,
  type RunStatus,
} from '../workflows/messages';
import type { RunOptions } from '../workflows/options';
import { RunWorkflow, runWorkflowId, type RunInput } from '../workflows/run';
import { PHASE_KEY, STATUS_KEY } from '../workflows/search-attributes';

export interface StartParams {
  instruction: string;
  workspace: string;
  taskQueue: string;
  runId?: string;
  options?: Partial<RunOptions>;
}

export async function startRun(client: Client, p: StartParams) {
  const runId = p.runId ?? randomUUID().slice(0, 8);
  const input: RunInput = { runId, instruction: p.instruction, workspace: path.resolve(p.workspace), options: p.options };
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
  try {
    return await client.workflow.getHandle(workflowId).executeUpdate(answerConsultationUpdate, { args: [answer] });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no task "${taskId}" in run "${runId}" (workflow ${workflowId} not found or finished)`);
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = (err as { cause?: unknown }).cause;
      throw new AnswerRejected(cause instanceof Error ? cause.message : err.message);
    }
    throw err;
  }
}
