// Phase 5: the run judged as a whole, against the instruction and the success criteria.
import type { Goal, Reflection, TaskRecord } from '../../domain/types';
import { installLease } from '../budget-lease';
import { installChildGate } from '../child-gate';
import { explainActivityFailure } from '../failures';
import { phaseLlm, type PhaseInput, type PhaseResult } from './phase-call';

export async function ReflectionWorkflow(input: PhaseInput & { goal: Goal; tasks: TaskRecord[] }): Promise<PhaseResult<Reflection>> {
  const gate = installChildGate(input.options, installLease(input.budget)); // O1 + O3 + M1
  try {
    return await phaseLlm(input, gate, 'reflect', 'reflect on the run').reflect({ ...input.run, goal: input.goal, tasks: input.tasks });
  } catch (err) {
    throw explainActivityFailure('reflection', err);
  }
}
