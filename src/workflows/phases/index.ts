// The four planning phases as child workflows; the execution phase is ../execution.ts. Each
// runs its LLM activity and returns a compact, validated result; the run asks for a replan
// decision at each phase's end (../run/replanning.ts).
export { GoalUnderstandingWorkflow } from './goal-understanding';
export { TaskDecompositionWorkflow } from './task-decomposition';
export { ActionSequenceWorkflow } from './action-sequence';
export { ReflectionWorkflow } from './reflection';
