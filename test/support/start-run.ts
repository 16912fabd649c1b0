// Starts a RunWorkflow the way most workflow tests do: on the task queue of a harness (or of an own
// server), with a fresh run id, directly through the client (no CLI).
import type { Client } from '@temporalio/client';
import { RunWorkflow, runWorkflowId, type RunInput } from '../../src/workflows/run';
import { uniqueId } from './harness';

/** The run id is `input.runId`, else uniqueId(`idPrefix`). */
export async function startRun(on: { client: Client; taskQueue: string }, input: Omit<RunInput, 'runId'> & { runId?: string }, idPrefix = 'run') {
  const runId = input.runId ?? uniqueId(idPrefix);
  const handle = await on.client.workflow.start(RunWorkflow, {
    taskQueue: on.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ ...input, runId }],
  });
  return { runId, handle };
}
