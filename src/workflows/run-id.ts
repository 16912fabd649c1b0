// A run's workflow id, wherever it is needed: the workflows, the CLI and the client library.
// Workflow-safe, and light: the CLI reads runs without loading the workflows' code.

/** A run's workflow id: `run-<runId>`. */
export function runWorkflowId(runId: string): string {
  return `run-${runId}`;
}

/** Accepts a bare run id or the workflow id `run-<id>`. */
export function workflowIdOf(runIdOrWorkflowId: string): string {
  return runIdOrWorkflowId.startsWith('run-') ? runIdOrWorkflowId : runWorkflowId(runIdOrWorkflowId);
}
