// Phase 2: the goal split into a task graph that can run (./task-graph.ts), then judged and
// refined until its quality is accepted (./plan-refinement.ts).
import type { TaskSpec } from '../../domain/types';
import { addUsage, ZERO_USAGE } from '../../domain/usage';
import { installLease } from '../budget-lease';
import { installChildGate } from '../child-gate';
import { rungReport } from '../llm-form';
import type { PlanQuality } from '../messages';
import type { DecompositionCall, DecompositionInput, PhaseResult } from './phase-call';
import { refinePlan } from './plan-refinement';
import { decomposeValidGraph } from './task-graph';

export async function TaskDecompositionWorkflow(input: DecompositionInput): Promise<PhaseResult<TaskSpec[]> & { quality?: PlanQuality }> {
  const gate = installChildGate(input.options, installLease(input.budget)); // O1 + O3 + M1
  let usage = ZERO_USAGE;
  const call: DecompositionCall = { input, gate, spent: (u) => (usage = addUsage(usage, u)) };
  const graph = await decomposeValidGraph(call);
  const { tasks, quality } = await refinePlan(call, graph);
  return { value: tasks, usage, quality, ...rungReport(input.options) };
}
