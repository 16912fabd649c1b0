// The workflow bundle's entry point: every workflow type the worker registers.
export { RunWorkflow } from './run';
export { GoalUnderstandingWorkflow, TaskDecompositionWorkflow, ActionSequenceWorkflow, ReflectionWorkflow } from './phases';
export { ExecutionWorkflow } from './execution';
export { TaskWorkflow } from './task';
export { WorkspaceLockWorkflow } from './workspace-lock';
