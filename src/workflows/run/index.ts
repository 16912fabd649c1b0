// The run (docs/architecture.md, "The workflows of one run"): RunWorkflow and what only the run uses.
export { RunWorkflow } from './workflow';
export { runWorkflowId, type RunInput, type RunResult } from './start';
