// The run (docs/architecture.md §2): RunWorkflow and what only the run uses.
export { RunWorkflow } from './workflow';
export { runWorkflowId, type RunInput, type RunResult } from './start';
