// V8: the phases as people read them, in the README's words ("How a run works": Goal, Tasks, Steps,
// Execution, Reflection). `--json`, the search attributes, workflow ids and prompts keep the
// machine names (goal_understanding, …); the README maps one to the other. Pure.
import { PHASES, type Phase } from '../types';

/** Each phase's name for people, in run order. */
export const PHASE_NAMES: Readonly<Record<Phase, string>> = {
  goal_understanding: 'Goal',
  task_decomposition: 'Tasks',
  action_sequence: 'Steps',
  execution: 'Execution',
  reflection: 'Reflection',
};

const isPhase = (p: string): p is Phase => (PHASES as readonly string[]).includes(p);

/** A phase's name for people; the run's end ('finished') and anything unknown stay as they are. */
export function phaseName(p: string | undefined): string {
  if (p === undefined) return '';
  return isPhase(p) ? PHASE_NAMES[p] : p;
}

/** The machine names that are not plain words ("execution" and "reflection" read as they are). */
const MACHINE_PHASE = /\b(goal_understanding|task_decomposition|action_sequence)\b/g;

/** Free text (an error, a reason) with every machine phase name in it replaced by its name for people. */
export function withPhaseNames(text: string): string {
  return text.replace(MACHINE_PHASE, (p) => PHASE_NAMES[p as Phase]);
}
