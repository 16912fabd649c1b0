// Phase 1: the goal, understood from the instruction and the workspace's top level.
import type { Goal } from '../../domain/types';
import { installLease } from '../budget-lease';
import { installChildGate } from '../child-gate';
import { explainActivityFailure } from '../failures';
import { phaseLlm, type PhaseInput, type PhaseResult } from './phase-call';

export async function GoalUnderstandingWorkflow(input: PhaseInput): Promise<PhaseResult<Goal>> {
  const gate = installChildGate(input.options, installLease(input.budget)); // O1 + O3 + M1
  try {
    return await phaseLlm(input, gate, 'understandGoal', 'understand the goal').understandGoal({ ...input.run, feedback: input.feedback });
  } catch (err) {
    throw explainActivityFailure('goal_understanding', err);
  }
}
