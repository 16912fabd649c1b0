// The execution phase (phase 4, B1, X1, X4, J6): ExecutionWorkflow in workflow.ts, its parts beside it.
export { ExecutionWorkflow } from './workflow';
export { taskWorkflowId } from './types';
