// Phase 3: the ordered steps of every task.
import type { ActionPlan, Goal, TaskSpec } from '../../domain/types';
import { installLease } from '../budget-lease';
import { installChildGate } from '../child-gate';
import { explainActivityFailure } from '../failures';
import { phaseLlm, type PhaseInput, type PhaseResult } from './phase-call';

export async function ActionSequenceWorkflow(input: PhaseInput & { goal: Goal; tasks: TaskSpec[] }): Promise<PhaseResult<ActionPlan>> {
  const gate = installChildGate(input.options, installLease(input.budget)); // O1 + O3 + M1
  try {
    return await phaseLlm(input, gate, 'planActions', 'plan the action sequence').planActions({
      ...input.run,
      goal: input.goal,
      tasks: input.tasks,
      feedback: input.feedback,
    });
  } catch (err) {
    throw explainActivityFailure('action_sequence', err);
  }
}
