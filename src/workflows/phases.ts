// The planning phases as child workflows (X1): each runs its LLM activity and returns a compact,
// validated result. Replan decisions at each phase's end are added by the replanning layer.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { describeGraphProblem, validateTaskGraph } from '../domain/graph';
import type { TaskRecord, TaskSpec } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import type { ActionPlan, Goal, Reflection } from '../llm/schemas';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../llm/usage';
import { llmActivityOptions, type RunOptions } from './options';
import { explainActivityFailure } from './failures';

export interface PhaseInput {
  run: RunRef;
  options: RunOptions;
  feedback?: string;
}

export interface PhaseResult<T> {
  value: T;
  usage: TokenUsage;
}

function llm(options: RunOptions, summary: string) {
  return proxyActivities<Activities>(llmActivityOptions(options, summary));
}

export async function GoalUnderstandingWorkflow(input: PhaseInput): Promise<PhaseResult<Goal>> {
  try {
    return await llm(input.options, 'understand the goal').understandGoal({ ...input.run, feedback: input.feedback });
  } catch (err) {
    throw explainActivityFailure('goal_understanding', err);
  }
}

/** Decomposes the goal; an invalid task graph is sent back to the planner, never executed. */
export async function TaskDecompositionWorkflow(
  input: PhaseInput & { goal: Goal; previousTasks?: TaskSpec[] },
): Promise<PhaseResult<TaskSpec[]>> {
  let usage = ZERO_USAGE;
  let feedback = input.feedback;
  for (let attempt = 0; ; attempt++) {
    let tasks: TaskSpec[];
    try {
      const r = await llm(input.options, attempt ? `re-decompose (graph repair ${attempt})` : 'decompose into tasks').decomposeTasks({
        ...input.run,
        goal: input.goal,
        feedback,
        previousTasks: input.previousTasks,
      });
      usage = addUsage(usage, r.usage);
      tasks = r.value;
    } catch (err) {
      throw explainActivityFailure('task_decomposition', err);
    }
    const problems = validateTaskGraph(tasks).map(describeGraphProblem);
    if (problems.length === 0) return { value: tasks, usage };
    if (attempt >= input.options.maxGraphRepairs) {
      throw ApplicationFailure.nonRetryable(
        `task_decomposition produced an invalid task graph ${attempt + 1} times: ${problems.join('; ')}`,
        'InvalidTaskGraph',
      );
    }
    feedback = `Your previous task graph was invalid: ${problems.join('; ')}. Return a valid graph.`;
  }
}

export async function ActionSequenceWorkflow(
  input: PhaseInput & { goal: Goal; tasks: TaskSpec[] },
): Promise<PhaseResult<ActionPlan>> {
  try {
    return await llm(input.options, 'plan the action sequence').planActions({
      ...input.run,
      goal: input.goal,
      tasks: input.tasks,
      feedback: input.feedback,
    });
  } catch (err) {
    throw explainActivityFailure('action_sequence', err);
  }
}

export async function ReflectionWorkflow(
  input: PhaseInput & { goal: Goal; tasks: TaskRecord[] },
): Promise<PhaseResult<Reflection>> {
  try {
    return await llm(input.options, 'reflect on the run').reflect({ ...input.run, goal: input.goal, tasks: input.tasks });
  } catch (err) {
    throw explainActivityFailure('reflection', err);
  }
}
