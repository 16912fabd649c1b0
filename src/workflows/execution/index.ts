// The execution phase (phase 4: the tasks run, each followed by a replan decision): ExecutionWorkflow in workflow.ts, its parts beside it.
export { ExecutionWorkflow } from './workflow';
export { taskWorkflowId } from './types';
