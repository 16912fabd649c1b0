// The order in which the execution phase hands its decisions to the run. Decisions run
// beside the scheduler, so one wanting a replan may answer before others still in flight; the run
// applies them in order and stops at the first that jumps, so every "no replan" goes first (each is
// recorded) and those wanting a replan follow, in the order they answered.
import type { ReplanDecision } from './decision';
import { wantsReplan } from './resolve';

export function decisionsForRun<T extends { decision: ReplanDecision; parseError?: string }>(decisions: readonly T[]): T[] {
  const wants = (d: T) => !d.parseError && wantsReplan(d.decision);
  return [...decisions.filter((d) => !wants(d)), ...decisions.filter(wants)];
}
