// The plan's size (planning.maxTasks): plans are capped (S3). Which tasks count, and what a plan
// over the limit is told. Pure: the planning phases and the execution phase's re-decompositions
// call it.
import { TaskState, type TaskRecord } from './types';

/** Tasks that are part of the plan: a task replaced by its re-decomposition no longer counts. */
export function activeTasks<T extends Pick<TaskRecord, 'state'>>(tasks: T[]): T[] {
  return tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
}

/** Why a plan of `count` tasks is refused, or undefined when it fits. The text names the limit. */
export function planSizeProblem(count: number, maxTasks: number): string | undefined {
  return count > maxTasks ? `the plan has ${count} tasks; planning.maxTasks is ${maxTasks}` : undefined;
}

/** What the planner is told when its plan was too large (it is asked again once). */
export function planSizeFeedback(problem: string, maxTasks: number): string {
  return `YOUR PREVIOUS PLAN WAS REFUSED: ${problem}. Return at most ${maxTasks} tasks in total: merge small steps into larger tasks.`;
}

/** How many times a planner whose plan was too large is asked again before the plan is refused. */
const PLAN_SIZE_REPAIRS = 1;

/** A plan's size, judged: it fits; ask the planner once more (with what to tell it); or refuse it. */
export type PlanSizeVerdict = { kind: 'fits' } | { kind: 'ask_again'; feedback: string } | { kind: 'refuse'; problem: string };

/** The one "ask once more, then refuse" rule for a plan of `count` tasks after `repairs` re-asks. */
export function planSizeVerdict(count: number, maxTasks: number, repairs: number): PlanSizeVerdict {
  const problem = planSizeProblem(count, maxTasks);
  if (!problem) return { kind: 'fits' };
  return repairs < PLAN_SIZE_REPAIRS ? { kind: 'ask_again', feedback: planSizeFeedback(problem, maxTasks) } : { kind: 'refuse', problem };
}
