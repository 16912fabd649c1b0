// The task's workflow (J1, J2, P1–P8): TaskWorkflow in workflow.ts, its parts beside it.
export { TaskWorkflow, type TaskOutcome } from './workflow';
