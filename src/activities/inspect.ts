// The run's trusted look into its own children. Signals carry no trustworthy sender, so the
// run does not act on what a progress or LLM-trouble message says: it runs this (local) activity,
// which checks with the Temporal server that the named workflow really is a child of the expected
// parent (a workflow started by anyone else has another parent or none), and only then asks it.
import { Context } from '@temporalio/activity';

/** The only queries the run may ask through here. */
export const INSPECT_QUERIES = ['executionProgress', 'llmTroubleState', 'taskConsultationState'] as const;
export type InspectQuery = (typeof INSPECT_QUERIES)[number];

export interface InspectInput {
  workflowId: string;
  /** When known (a child the run started), the exact run of that workflow. */
  runId?: string;
  /** The workflow that must be its parent. */
  parentWorkflowId: string;
  query: InspectQuery;
  args?: unknown[];
}

/** The query's answer and the run of the workflow that gave it; a reason when the workflow is not the parent's child. */
export type InspectResult = { ok: true; value: unknown; runId: string } | { ok: false; reason: string };

export async function inspectOwnWorkflow(input: InspectInput): Promise<InspectResult> {
  if (!INSPECT_QUERIES.includes(input.query)) return { ok: false, reason: `query ${String(input.query)} is not allowed` };
  const handle = Context.current().client.workflow.getHandle(input.workflowId, input.runId);
  const d = await handle.describe();
  const parent = d.parentExecution?.workflowId;
  if (parent !== input.parentWorkflowId) {
    return { ok: false, reason: `${input.workflowId} is not a child of ${input.parentWorkflowId} (its parent: ${parent ?? 'none'})` };
  }
  const value: unknown = await handle.query(input.query, ...(input.args ?? []));
  return { ok: true, value, runId: d.runId };
}

/**
 * The execution phase's poke to its run ("my tasks changed, look again"), sent from a local
 * activity: one marker in the phase's history instead of a signal command's two events
 * (initiated, signaled), at one poke per task transition. It carries nothing: the run reads the
 * phase's states itself (inspectOwnWorkflow).
 */
export async function pokeRunProgress(input: { runWorkflowId: string }): Promise<void> {
  await Context.current().client.workflow.getHandle(input.runWorkflowId).signal('taskProgress', {});
}
