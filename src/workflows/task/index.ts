// The task's workflow (worker → judge, paced by the Duck Pacemaker): TaskWorkflow in workflow.ts, its parts beside it.
export { TaskWorkflow, type TaskOutcome } from './workflow';
