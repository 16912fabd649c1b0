// Task decomposition, step 1: a task graph that can run. An invalid graph (src/domain/graph.ts
// taskGraphVerdict) or a plan over planning.maxTasks (src/domain/plan-size.ts
// planSizeVerdict) goes back to the planner, and is refused past its repairs: never executed.
import { ApplicationFailure } from '@temporalio/workflow';
import { DEFAULT_CONFIG } from '../../domain/config';
import { taskGraphVerdict } from '../../domain/graph';
import { planSizeVerdict } from '../../domain/plan-size';
import type { TaskSpec } from '../../domain/types';
import { graphRepairFeedback, joinFeedback } from '../../llm/prompts/refinement';
import { explainActivityFailure } from '../failures';
import { phaseLlm, type DecompositionCall } from './phase-call';

export async function decomposeValidGraph(call: DecompositionCall): Promise<TaskSpec[]> {
  const { input } = call;
  const maxTasks = input.maxTasks ?? DEFAULT_CONFIG.planning.maxTasks;
  let feedback = input.feedback;
  let sizeRepairs = 0;
  let graphRepairs = 0;
  for (let attempt = 0; ; attempt++) {
    const tasks = await decompose(call, attempt, feedback);
    const size = planSizeVerdict(tasks.length, maxTasks, sizeRepairs);
    if (size.kind === 'refuse') throw ApplicationFailure.nonRetryable(`task_decomposition: ${size.problem}`, 'PlanTooLarge');
    if (size.kind === 'ask_again') {
      sizeRepairs += 1;
      feedback = joinFeedback(input.feedback, size.feedback);
      continue;
    }
    const graph = taskGraphVerdict(tasks, graphRepairs, input.options.maxGraphRepairs);
    if (graph.kind === 'valid') return tasks;
    if (graph.kind === 'refuse') {
      throw ApplicationFailure.nonRetryable(
        `task_decomposition produced an invalid task graph ${graph.invalidGraphs} times: ${graph.problems.join('; ')}`,
        'InvalidTaskGraph',
      );
    }
    graphRepairs += 1;
    feedback = graphRepairFeedback(graph.problems);
  }
}

/** One call of the planner (`attempt` > 0: a repair); a failure fails the phase with its reason. */
async function decompose(call: DecompositionCall, attempt: number, feedback: string | undefined): Promise<TaskSpec[]> {
  const { input } = call;
  try {
    const summary = attempt ? `re-decompose (graph repair ${attempt})` : 'decompose into tasks';
    const r = await phaseLlm(input, call.gate, 'decomposeTasks', summary).decomposeTasks({
      ...input.run,
      goal: input.goal,
      feedback,
      previousTasks: input.previousTasks,
    });
    call.spent(r.usage);
    return r.value;
  } catch (err) {
    throw explainActivityFailure('task_decomposition', err);
  }
}
