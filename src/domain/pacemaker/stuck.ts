// What the pacemaker makes of an iteration the stuck detector ended. Its vitals take it in (focus
// drops on repetition, stamina on wasted steps) and, when the judge says the task is not done, it
// offers the "no progress / repeating work" consultation with that pattern's four choices.
import type { StuckFinding, StuckPattern } from '../stuck/detector';
import { choicesFor, consultationMessage, CONSULTATION_TITLE } from './choices';
import { DEFAULT_PACEMAKER_CONFIG, type PacemakerConfig } from './config';
import { evaluatePacemaker, type Intervention, type PacemakerState, type PacemakerStep } from './interventions';
import type { Vitals } from './vitals';

/** Patterns of pure repetition (the same call, the same two calls, the same words): focus drops most. */
const REPEATING: readonly StuckPattern[] = ['same_failure', 'same_result', 'alternation', 'repeated_messages'];
/** How far focus drops on a repeating pattern, and on the others (failing calls, idle steps). */
export const STUCK_FOCUS_DROP = 0.4;
export const STUCK_FOCUS_DROP_OTHER = 0.2;

/**
 * The vitals after a stuck iteration: focus − STUCK_FOCUS_DROP (0.4) on a repeating
 * pattern, − 0.2 on the others; stamina − wastedSteps / stepLimit (the share of an iteration's
 * steps that were wasted). Each clamped to 0..1; mood unchanged.
 */
export function stuckVitals(v: Vitals, f: Pick<StuckFinding, 'pattern' | 'wastedSteps'>, stepLimit: number): Vitals {
  const drop = REPEATING.includes(f.pattern) ? STUCK_FOCUS_DROP : STUCK_FOCUS_DROP_OTHER;
  const share = stepLimit > 0 ? f.wastedSteps / stepLimit : 1;
  return { mood: v.mood, focus: clamp01(v.focus - drop), stamina: clamp01(v.stamina - share) };
}

function clamp01(n: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(n) ? n : 0));
}

/** The "no progress" consultation opened by the stuck detector: the pattern's situation text under the stuck note. */
export function stuckIntervention(
  state: PacemakerState,
  note: string,
  config: Pick<PacemakerConfig, 'raise_limit_by'> = DEFAULT_PACEMAKER_CONFIG,
): Intervention {
  const seed = consultationMessage('no_progress', state.iteration);
  return {
    kind: 'no_progress',
    iteration: state.iteration,
    maxLoops: state.maxLoops,
    vitals: { ...state.vitals },
    trigger: note,
    title: { ...CONSULTATION_TITLE },
    // The note first: `status` and `watch` show the first line of a consultation.
    message: { ja: `${note}\n${seed.ja}`, en: `${note}\n${seed.en}` },
    choices: choicesFor('no_progress', config),
  };
}

/**
 * What the pacemaker says after an iteration that was not done. A stuck iteration (its
 * note) opens the "no progress" consultation at once, with no cooldown, unless the limit is
 * reached (that consultation comes first) or the pacemaker or `stuck.consult` is off.
 */
export function paceAfterIteration(
  state: PacemakerState,
  config: Pick<PacemakerConfig, 'enabled' | 'raise_limit_by' | 'interventions'> & { stuck?: { consult: boolean } },
  stuckNote?: string,
): PacemakerStep {
  const usual = evaluatePacemaker(state, config);
  if (!stuckNote || !config.enabled || config.stuck?.consult === false) return usual;
  if (usual.action === 'consult' && usual.intervention.kind === 'too_many_attempts') return usual;
  return { action: 'consult', intervention: stuckIntervention(state, stuckNote, config) };
}
