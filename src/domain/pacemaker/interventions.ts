// P7: Duck Pacemaker interventions — consultations with the user, each offering 4 choices
// (seed 002 介入時の状況説明と選択肢提示). Pure state transitions; the workflow waits for the
// answer durably (signal/update) and feeds it to applyConsultationAnswer.
import { z } from 'zod';
import { DEFAULT_PACEMAKER_CONFIG, type PacemakerConfig } from './config';
import type { Vitals } from './vitals';

/** P7: the four triggers, in seed 002 order (patterns 1–4). */
export const INTERVENTION_KINDS = ['no_progress', 'lost_confidence', 'confused_thinking', 'too_many_attempts'] as const;
export type InterventionKind = (typeof INTERVENTION_KINDS)[number];

/** P7: what a choice does. */
export const CONSULTATION_EFFECTS = ['stop', 'guidance', 'continue_raised', 'reset_replan'] as const;
export type ConsultationEffect = (typeof CONSULTATION_EFFECTS)[number];

export interface Bilingual {
  ja: string;
  en: string;
}

export interface ConsultationChoice {
  /** 1..4, the number the user types; the same effect always has the same number. */
  number: 1 | 2 | 3 | 4;
  effect: ConsultationEffect;
  label: Bilingual;
}

/**
 * P7: the four choices, seed 002 pattern 1 wording (the one pattern whose choices map one to
 * one onto the four effects): 1 stop the task, 2 give guidance (carried into the next worker
 * request), 3 continue with the limit raised by `raise_limit_by` (default +5 loops),
 * 4 reset and replan. choicesFor(kind) words them per pattern.
 */
export const CONSULTATION_CHOICES: readonly ConsultationChoice[] = Object.freeze([
  { number: 1, effect: 'stop', label: { ja: '作業を中止する', en: 'Stop the work' } },
  { number: 2, effect: 'guidance', label: { ja: '追加の指示や情報を提供する', en: 'Provide additional instructions or information' } },
  { number: 3, effect: 'continue_raised', label: { ja: 'このまま作業を継続する', en: 'Continue the work as it is' } },
  { number: 4, effect: 'reset_replan', label: { ja: '別のアプローチで再開する', en: 'Restart with a different approach' } },
] satisfies ConsultationChoice[]);

/**
 * Seed 002 gives each pattern its own four choices; they do not map one to one onto the
 * four effects (pattern 2 has no "stop", pattern 4 no "continue"). So the numbering and the
 * effects are fixed (1 stop, 2 guidance, 3 continue_raised, 4 reset_replan) and each label
 * takes the pattern's own seed wording where one fits the effect, else pattern 1's.
 * Not used from the seed: pattern 2 "別の専門家や資料を参照する" (→ guidance covers it),
 * pattern 3 "現在までの成果を整理する" and "別の角度からアプローチする" (→ reset_replan covers it),
 * pattern 4 "要求を簡素化して再挑戦する" (→ reset_replan, with the simplification as guidance).
 */
const PATTERN_LABELS: Record<InterventionKind, Partial<Record<ConsultationEffect, Bilingual>>> = {
  no_progress: {},
  lost_confidence: {
    guidance: { ja: 'より詳細な要件や制約を教える', en: 'Give more detailed requirements or constraints' },
    continue_raised: { ja: '現在のアプローチを続ける', en: 'Continue with the current approach' },
    reset_replan: { ja: '問題を分割して段階的に進める', en: 'Split the problem and proceed step by step' },
  },
  confused_thinking: {
    guidance: { ja: '最も重要な要件を1つ教える', en: 'Name the single most important requirement' },
    reset_replan: { ja: '作業を一旦リセットして再開する', en: 'Reset the work and start again' },
  },
  too_many_attempts: {
    stop: { ja: '現在までの結果で満足する', en: 'Settle for the results so far' },
    guidance: { ja: '問題の原因を一緒に分析する', en: 'Analyse the cause of the problem together' },
    reset_replan: { ja: '完全に別のアプローチを試す', en: 'Try a completely different approach' },
  },
};

/** P7: the four choices for one trigger; "continue" states how far the limit is raised. */
export function choicesFor(kind: InterventionKind, config: Pick<PacemakerConfig, 'raise_limit_by'> = DEFAULT_PACEMAKER_CONFIG): ConsultationChoice[] {
  return CONSULTATION_CHOICES.map((c) => {
    const base = PATTERN_LABELS[kind][c.effect] ?? c.label;
    const label =
      c.effect === 'continue_raised'
        ? { ja: `${base.ja}（上限を +${config.raise_limit_by} 回）`, en: `${base.en} (limit +${config.raise_limit_by} loops)` }
        : { ...base };
    return { number: c.number, effect: c.effect, label };
  });
}

export const CONSULTATION_TITLE: Bilingual = { ja: '🦆 Duck Pacemaker からの相談', en: '🦆 Duck Pacemaker consultation' };
const QUESTION: Bilingual = { ja: 'どのように進めますか？', en: 'How would you like to proceed?' };
const PROMPT: Bilingual = { ja: '選択してください (1-4):', en: 'Choose (1-4):' };

/** P7: the situation text of each pattern, seed 002 wording, with an English rendering. */
export function consultationMessage(kind: InterventionKind, iteration: number): Bilingual {
  switch (kind) {
    case 'no_progress':
      return {
        ja: `AIがタスクの進捗がなく作業を繰り返しています（${iteration}回目）。\n同じような分析や情報収集を何度も行っており、新しい発見がない状況です。`,
        en: `The AI is making no progress on the task and keeps repeating its work (iteration ${iteration}).\nIt keeps doing the same kind of analysis and information gathering without finding anything new.`,
      };
    case 'lost_confidence':
      return {
        ja: 'AIが現在の作業プランに自信を失っています。\n複雑な問題に対して適切な解決策を見つけられずにいる状況です。',
        en: 'The AI has lost confidence in its current plan.\nIt cannot find a suitable solution to a complex problem.',
      };
    case 'confused_thinking':
      return {
        ja: 'AIの思考が一貫性を失い、混乱している状況です。\n複数の解決策を同時に検討して判断がつかない状態になっています。',
        en: "The AI's thinking has lost its consistency and it is confused.\nIt is weighing several solutions at once and cannot decide.",
      };
    case 'too_many_attempts':
      return {
        ja: 'AIが同じタスクで多くの試行を重ねており、効率が低下しています。\nこれ以上続けても良い結果が得られない可能性があります。',
        en: 'The AI has made many attempts on the same task and is becoming less efficient.\nContinuing may not lead to a better result.',
      };
  }
}

export interface InterventionRecord {
  kind: InterventionKind;
  iteration: number;
  maxLoops: number;
  effect?: ConsultationEffect | 'continue';
  timedOut?: boolean;
}

/** The pacemaker's per-task state, kept in workflow state (B2). Small: no transcripts. */
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
  /** P7 guidance: the user's text, to be put into the next worker request (takePendingGuidance). */
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
 * P7: should the pacemaker consult the user now (called after each iteration)? First match:
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

/** Render a consultation for the user (console, issue comment): Japanese, English, or both. */
export function renderConsultation(intervention: Intervention, lang: 'ja' | 'en' | 'both' = 'both'): string {
  const one = (l: 'ja' | 'en'): string =>
    [
      intervention.title[l],
      '',
      intervention.message[l],
      '',
      QUESTION[l],
      ...intervention.choices.map((c) => `${c.number}. ${c.label[l]}`),
      '',
      PROMPT[l],
    ].join('\n');
  if (lang === 'both') return `${one('ja')}\n\n---\n\n${one('en')}`;
  return one(lang);
}

/** What the user sends back (signal/update payload). */
export const ConsultationAnswerSchema = z
  .object({
    /** The effect, or its number 1..4 (number or string). */
    choice: z.union([z.enum(CONSULTATION_EFFECTS), z.number().int().min(1).max(4), z.enum(['1', '2', '3', '4'])]),
    /** Required (non-empty) for guidance; optional hint for reset_replan. */
    guidance: z.string().max(8000).optional(),
  })
  .refine((a) => parseConsultationChoice(a.choice) !== 'guidance' || (a.guidance ?? '').trim().length > 0, {
    message: 'guidance text is required for choice 2 (guidance)',
    path: ['guidance'],
  });
export type ConsultationAnswerPayload = z.input<typeof ConsultationAnswerSchema>;

/** 1..4 / "1".."4" / effect name → effect; anything else → undefined. */
export function parseConsultationChoice(choice: unknown): ConsultationEffect | undefined {
  if (typeof choice === 'string' && (CONSULTATION_EFFECTS as readonly string[]).includes(choice)) return choice as ConsultationEffect;
  const n = typeof choice === 'number' ? choice : typeof choice === 'string' && /^\s*[1-4]\s*$/.test(choice) ? Number(choice) : NaN;
  return CONSULTATION_CHOICES.find((c) => c.number === n)?.effect;
}

export interface ConsultationAnswer {
  /** The trigger that was consulted about (from the Intervention). */
  kind: InterventionKind;
  choice: ConsultationEffect | 1 | 2 | 3 | 4 | '1' | '2' | '3' | '4';
  guidance?: string;
}

export type ConsultationOutcome =
  | { effect: 'stop'; reason: string }
  /** Carry `guidance` into the next worker request; maxLoops is the (possibly raised) limit. */
  | { effect: 'guidance'; guidance: string; maxLoops: number }
  | { effect: 'continue_raised'; maxLoops: number; raisedBy: number }
  /** Timeout with on_consultation_timeout 'continue': go on with the unchanged limit. */
  | { effect: 'continue'; maxLoops: number }
  /** Reset the task's loop and replan it; the caller recomputes the limit (calculateMaxLoops). */
  | { effect: 'reset_replan'; reason: string; guidance?: string };

export interface ConsultationResult {
  state: PacemakerState;
  outcome: ConsultationOutcome;
}

/**
 * P7: apply the user's answer.
 * - stop: the task stops (outcome stop); state only records the intervention.
 * - guidance: the text becomes `pendingGuidance` for the next worker request; the
 *   no-progress streak restarts; if the limit was reached it is raised by raise_limit_by
 *   so the guided iteration can run.
 * - continue_raised: limit = max(maxLoops, iteration) + raise_limit_by (default +5); the
 *   no-progress streak restarts.
 * - reset_replan: iteration and streak reset to 0 (any guidance kept as a hint for the
 *   replan); the caller replans the task and recomputes the limit.
 * Throws on an unknown choice — validate the payload first (ConsultationAnswerSchema).
 */
export function applyConsultationAnswer(
  state: PacemakerState,
  answer: ConsultationAnswer,
  config: Pick<PacemakerConfig, 'raise_limit_by'> = DEFAULT_PACEMAKER_CONFIG,
): ConsultationResult {
  const effect = parseConsultationChoice(answer.choice);
  if (!effect) throw new RangeError(`unknown consultation choice: ${String(answer.choice)}`);
  return applyEffect(state, answer.kind, effect, answer.guidance, config, false);
}

/**
 * P7: nobody answered within consultation_timeout_minutes. on_consultation_timeout:
 * 'stop' → stop; 'raise_limit' → continue_raised; 'continue' → go on with the current
 * limit, which at the limit (too_many_attempts) means stopping.
 */
export function applyConsultationTimeout(
  state: PacemakerState,
  kind: InterventionKind,
  config: Pick<PacemakerConfig, 'raise_limit_by' | 'on_consultation_timeout' | 'consultation_timeout_minutes'> = DEFAULT_PACEMAKER_CONFIG,
): ConsultationResult {
  const mode = config.on_consultation_timeout;
  if (mode === 'raise_limit') return applyEffect(state, kind, 'continue_raised', undefined, config, true);
  if (mode === 'continue' && state.iteration < state.maxLoops) {
    return {
      state: withRecord(state, kind, 'continue', true),
      outcome: { effect: 'continue', maxLoops: state.maxLoops },
    };
  }
  const why =
    mode === 'continue'
      ? `no answer within ${config.consultation_timeout_minutes} min and the loop limit (${state.maxLoops}) is reached`
      : `no answer within ${config.consultation_timeout_minutes} min (on_consultation_timeout: stop)`;
  return {
    state: withRecord(state, kind, 'stop', true),
    outcome: { effect: 'stop', reason: `${why}; task stopped at loop ${state.iteration}/${state.maxLoops} (${kind})` },
  };
}

function applyEffect(
  state: PacemakerState,
  kind: InterventionKind,
  effect: ConsultationEffect,
  guidanceText: string | undefined,
  config: Pick<PacemakerConfig, 'raise_limit_by'>,
  timedOut: boolean,
): ConsultationResult {
  const guidance = guidanceText?.trim() || undefined;
  const raised = Math.max(state.maxLoops, state.iteration) + config.raise_limit_by;
  switch (effect) {
    case 'stop':
      return {
        state: withRecord(state, kind, 'stop', timedOut),
        outcome: { effect: 'stop', reason: `user chose to stop at loop ${state.iteration}/${state.maxLoops} (${kind})` },
      };
    case 'guidance': {
      const maxLoops = state.iteration >= state.maxLoops ? raised : state.maxLoops;
      const next: PacemakerState = { ...withRecord(state, kind, 'guidance', timedOut), maxLoops, noProgressIterations: 0 };
      if (guidance) next.pendingGuidance = guidance;
      return { state: next, outcome: { effect: 'guidance', guidance: guidance ?? '', maxLoops } };
    }
    case 'continue_raised': {
      const next: PacemakerState = { ...withRecord(state, kind, 'continue_raised', timedOut), maxLoops: raised, noProgressIterations: 0 };
      return { state: next, outcome: { effect: 'continue_raised', maxLoops: raised, raisedBy: raised - state.maxLoops } };
    }
    case 'reset_replan': {
      const recorded = withRecord(state, kind, 'reset_replan', timedOut);
      const next: PacemakerState = { ...recorded, iteration: 0, noProgressIterations: 0, lastInterventionIteration: 0 };
      delete next.pendingGuidance;
      if (guidance) next.pendingGuidance = guidance;
      const outcome: ConsultationOutcome = {
        effect: 'reset_replan',
        reason: `user chose to reset and replan at loop ${state.iteration}/${state.maxLoops} (${kind})`,
      };
      if (guidance) outcome.guidance = guidance;
      return { state: next, outcome };
    }
  }
}

function withRecord(state: PacemakerState, kind: InterventionKind, effect: InterventionRecord['effect'], timedOut: boolean): PacemakerState {
  const record: InterventionRecord = { kind, iteration: state.iteration, maxLoops: state.maxLoops, effect };
  if (timedOut) record.timedOut = true;
  return { ...state, interventions: [...state.interventions, record], lastInterventionIteration: state.iteration };
}

/** Take the user's guidance for the next worker request (and clear it from the state). */
export function takePendingGuidance(state: PacemakerState): { state: PacemakerState; guidance?: string } {
  if (state.pendingGuidance === undefined) return { state };
  const { pendingGuidance, ...rest } = state;
  return { state: rest, guidance: pendingGuidance };
}
