// The one gate set-up of a run's child workflows (each phase, the execution phase, each task):
// paused while its parent says so (O1), LLM trouble reported to the run (O2), every call within
// the child's loan from the run's budget (O3), calls started on the ladder's rung (M1) and on the
// workspace host while it is present.
import type { ChildLease } from './budget-lease';
import { budgetedGate } from './budget-lease';
import { hostPresenceOf } from './host-presence';
import { llmFormOn, type LlmForm } from './llm-form';
import type { RunOptions } from './options';
import { installPauseGate, type PauseGate } from './pause-gate';

export function installChildGate(
  options: RunOptions,
  lease: ChildLease,
  more: { form?: LlmForm; onPauseChange?: (paused: boolean) => void } = {},
): PauseGate {
  const gate = installPauseGate(more.onPauseChange, more.form ?? llmFormOn(options), hostPresenceOf(options.hostQueue), options.runWorkflowId);
  return budgetedGate(gate, lease);
}
