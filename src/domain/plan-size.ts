// S3: the plan's size (planning.maxTasks): which tasks count, and what a plan over the limit is told.
// Pure: the planning phases and the execution phase's re-decompositions call it.
import { TaskState, type TaskRecord } from './types';

/** Tasks that are part of the plan: a task replaced by its re-decomposition no longer counts. */
export function activeTasks<T extends Pick<TaskRecord, 'state'>>(tasks: T[]): T[] {
  return tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
}

/** S3: why a plan of `count` tasks is refused, or undefined when it fits. The text names the limit. */
export function planSizeProblem(count: number, maxTasks: number): string | undefined {
  return count > maxTasks ? `the plan has ${count} tasks; planning.maxTasks is ${maxTasks}` : undefined;
}

/** S3: what the planner is told when its plan was too large (it is asked again once). */
export function planSizeFeedback(problem: string, maxTasks: number): string {
  return `YOUR PREVIOUS PLAN WAS REFUSED: ${problem}. Return at most ${maxTasks} tasks in total: merge small steps into larger tasks.`;
}
