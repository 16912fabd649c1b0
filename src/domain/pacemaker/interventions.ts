// The pacemaker's interventions: the per-task pacemaker state, counted per worker iteration, and
// when it consults the user (detectIntervention, evaluatePacemaker): no progress, lost confidence,
// thinking in circles, too many attempts. What a consultation offers is in ./choices, what its
// answer does in ./consultation.
import {
  choicesFor,
  consultationMessage,
  CONSULTATION_TITLE,
  type Bilingual,
  type ConsultationChoice,
  type ConsultationEffect,
  type InterventionKind,
} from './choices';
import { DEFAULT_PACEMAKER_CONFIG, type PacemakerConfig } from './config';
import type { Vitals } from './vitals';

export interface InterventionRecord {
  kind: InterventionKind;
  iteration: number;
  maxLoops: number;
  effect?: ConsultationEffect | 'continue';
  timedOut?: boolean;
}

/** The pacemaker's per-task state, kept in workflow state (a crash loses none of it). Small: no transcripts. */
export interface PacemakerState {
  /** Loops (worker iterations) done so far. */
  iteration: number;
  /** Current loop limit (calculateMaxLoops, possibly raised by consultations). */
  maxLoops: number;
  /** Latest measured vitals (measureVitals). */
  vitals: Vitals;
  /** Consecutive iterations without progress (judge found nothing new / same action repeated). */
  noProgressIterations: number;
  interventions: InterventionRecord[];
  /** Iteration of the last consultation (cooldown of the soft triggers). */
  lastInterventionIteration?: number;
  /** What the next worker request is told (user guidance, what to consult, consolidate, restart; takePendingGuidance). */
  pendingGuidance?: string;
}

export interface Intervention {
  kind: InterventionKind;
  iteration: number;
  maxLoops: number;
  vitals: Vitals;
  /** Why it triggered, with the numbers (English, for logs). */
  trigger: string;
  title: Bilingual;
  message: Bilingual;
  choices: ConsultationChoice[];
}

export function initialPacemakerState(maxLoops: number, vitals: Vitals): PacemakerState {
  return { iteration: 0, maxLoops, vitals, noProgressIterations: 0, interventions: [] };
}

/** Record one finished iteration: count it, update vitals and the no-progress streak. */
export function recordIteration(state: PacemakerState, update: { progressed: boolean; vitals: Vitals }): PacemakerState {
  return {
    ...state,
    iteration: state.iteration + 1,
    vitals: update.vitals,
    noProgressIterations: update.progressed ? 0 : state.noProgressIterations + 1,
  };
}

type InterventionConfig = Pick<PacemakerConfig, 'enabled' | 'raise_limit_by' | 'interventions'>;

/**
 * Should the pacemaker consult the user now (called after each iteration)? First match:
 * 1 too_many_attempts — the limit is reached (iteration ≥ maxLoops); always, no cooldown;
 * then, from `min_iteration` on and outside the cooldown after the last consultation:
 * 2 no_progress       — noProgressIterations ≥ no_progress_iterations (3);
 * 3 confused_thinking — focus < low_focus_threshold (0.5);
 * 4 lost_confidence   — mood < low_mood_threshold (0.5).
 * The limit comes first because it needs a decision anyway; the rest are ordered from the
 * most concrete evidence (a measured streak) to the softest (a confidence average).
 * Disabled pacemaker → never.
 */
export function detectIntervention(state: PacemakerState, config: InterventionConfig = DEFAULT_PACEMAKER_CONFIG): Intervention | undefined {
  if (!config.enabled) return undefined;
  const t = config.interventions;
  const make = (kind: InterventionKind, trigger: string): Intervention => ({
    kind,
    iteration: state.iteration,
    maxLoops: state.maxLoops,
    vitals: { ...state.vitals },
    trigger,
    title: { ...CONSULTATION_TITLE },
    message: consultationMessage(kind, state.iteration),
    choices: choicesFor(kind, config),
  });
  if (state.iteration >= state.maxLoops) {
    return make('too_many_attempts', `loop limit reached: ${state.iteration}/${state.maxLoops} loops used`);
  }
  if (state.iteration < t.min_iteration) return undefined;
  if (state.lastInterventionIteration !== undefined && state.iteration - state.lastInterventionIteration < t.cooldown_iterations) {
    return undefined;
  }
  if (state.noProgressIterations >= t.no_progress_iterations) {
    return make('no_progress', `no progress for ${state.noProgressIterations} iterations (threshold ${t.no_progress_iterations})`);
  }
  if (state.vitals.focus < t.low_focus_threshold) {
    return make('confused_thinking', `focus ${state.vitals.focus.toFixed(2)} < ${t.low_focus_threshold}`);
  }
  if (state.vitals.mood < t.low_mood_threshold) {
    return make('lost_confidence', `mood ${state.vitals.mood.toFixed(2)} < ${t.low_mood_threshold}`);
  }
  return undefined;
}

export type PacemakerStep = { action: 'continue' } | { action: 'consult'; intervention: Intervention } | { action: 'stop'; reason: string };

/**
 * One call per iteration for the workflow: consult when an intervention triggers; with the
 * pacemaker disabled, stop at the limit; otherwise continue.
 */
export function evaluatePacemaker(state: PacemakerState, config: InterventionConfig = DEFAULT_PACEMAKER_CONFIG): PacemakerStep {
  if (!config.enabled) {
    return state.iteration >= state.maxLoops
      ? { action: 'stop', reason: `loop limit reached (${state.iteration}/${state.maxLoops}), pacemaker disabled` }
      : { action: 'continue' };
  }
  const intervention = detectIntervention(state, config);
  return intervention ? { action: 'consult', intervention } : { action: 'continue' };
}
