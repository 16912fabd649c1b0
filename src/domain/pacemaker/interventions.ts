// P7: Duck Pacemaker interventions — consultations with the user, each pattern offering seed 002's
// own 4 choices (介入時の状況説明と選択肢提示). The one home of the pattern → choices → effect table
// and of answer validation: the workflow validates an answer with validateConsultationAnswer (update
// validator and signal alike), waits durably, and applies it with applyConsultationAnswer.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { DEFAULT_PACEMAKER_CONFIG, type PacemakerConfig } from './config';
import type { Vitals } from './vitals';

/** P7: the four triggers, in seed 002 order (patterns 1–4). */
export const INTERVENTION_KINDS = ['no_progress', 'lost_confidence', 'confused_thinking', 'too_many_attempts'] as const;
export type InterventionKind = (typeof INTERVENTION_KINDS)[number];

/**
 * P7: what a choice does (SPEC "Seed fidelity notes"):
 * - stop: the task stops (BLOCKED); accept: the current result is accepted as DONE;
 * - guidance: the user's text goes into the next worker request; consult_reference: the same,
 *   naming what the worker must consult; consolidate: the worker first consolidates what is done;
 * - restart: the worker is told to drop its current approach and take a different one;
 * - continue_raised: go on with the loop limit raised by raise_limit_by;
 * - redecompose: the task is re-decomposed (REPLAN); simplify: the same, with a simplified scope.
 */
export const CONSULTATION_EFFECTS = [
  'stop',
  'accept',
  'guidance',
  'consult_reference',
  'consolidate',
  'restart',
  'continue_raised',
  'redecompose',
  'simplify',
] as const;
export type ConsultationEffect = (typeof CONSULTATION_EFFECTS)[number];

/** P7: the effects whose answer must carry the user's text (it is what the worker is told). */
export const TEXT_REQUIRED_EFFECTS: readonly ConsultationEffect[] = ['guidance', 'consult_reference'];

export interface Bilingual {
  ja: string;
  en: string;
}

export interface ConsultationChoice {
  /** 1..4, the number the user types (seed 002 order of the pattern). */
  number: 1 | 2 | 3 | 4;
  /** A short name, unique within the pattern, the user may type instead of the number. */
  key: string;
  effect: ConsultationEffect;
  label: Bilingual;
  /** The answer must carry text (guidance, what to consult). */
  needsText: boolean;
}

type ChoiceDef = Omit<ConsultationChoice, 'number' | 'needsText'>;
const c = (key: string, effect: ConsultationEffect, ja: string, en: string): ChoiceDef => ({ key, effect, label: { ja, en } });

/** P7: seed 002's own four choices per pattern (介入時の状況説明と選択肢提示), in the seed's order. */
const PATTERN_CHOICES: Readonly<Record<InterventionKind, readonly [ChoiceDef, ChoiceDef, ChoiceDef, ChoiceDef]>> = {
  no_progress: [
    c('stop', 'stop', '作業を中止する', 'Stop the work'),
    c('guidance', 'guidance', '追加の指示や情報を提供する', 'Provide additional instructions or information'),
    c('continue', 'continue_raised', 'このまま作業を継続する', 'Continue the work as it is'),
    c('different_approach', 'restart', '別のアプローチで再開する', 'Restart with a different approach'),
  ],
  lost_confidence: [
    c('requirements', 'guidance', 'より詳細な要件や制約を教える', 'Give more detailed requirements or constraints'),
    c('split', 'redecompose', '問題を分割して段階的に進める', 'Split the problem and proceed step by step'),
    c('consult', 'consult_reference', '別の専門家や資料を参照する', 'Consult another expert or reference material'),
    c('continue', 'continue_raised', '現在のアプローチを続ける', 'Continue with the current approach'),
  ],
  confused_thinking: [
    c('key_requirement', 'guidance', '最も重要な要件を1つ教える', 'Name the single most important requirement'),
    c('reset', 'restart', '作業を一旦リセットして再開する', 'Reset the work and start again'),
    c('consolidate', 'consolidate', '現在までの成果を整理する', 'Consolidate the progress so far'),
    c('other_angle', 'restart', '別の角度からアプローチする', 'Approach it from a different angle'),
  ],
  too_many_attempts: [
    c('accept', 'accept', '現在までの結果で満足する', 'Settle for the results so far'),
    c('analyse_cause', 'guidance', '問題の原因を一緒に分析する', 'Analyse the cause of the problem together'),
    c('simplify', 'simplify', '要求を簡素化して再挑戦する', 'Simplify the request and try again'),
    c('different_approach', 'restart', '完全に別のアプローチを試す', 'Try a completely different approach'),
  ],
};

/** P7: the four choices of one pattern; "continue" states how far the limit is raised. */
export function choicesFor(kind: InterventionKind, config: Pick<PacemakerConfig, 'raise_limit_by'> = DEFAULT_PACEMAKER_CONFIG): ConsultationChoice[] {
  return PATTERN_CHOICES[kind].map((d, i) => {
    const label =
      d.effect === 'continue_raised'
        ? { ja: `${d.label.ja}（上限を +${config.raise_limit_by} 回）`, en: `${d.label.en} (limit +${config.raise_limit_by} loops)` }
        : { ...d.label };
    return { number: (i + 1) as 1 | 2 | 3 | 4, key: d.key, effect: d.effect, label, needsText: TEXT_REQUIRED_EFFECTS.includes(d.effect) };
  });
}

/**
 * P7: which choice of the pattern an answer names: its number (1–4, as number or text), its key,
 * or its effect (the first choice with that effect). Case and surrounding blanks are ignored.
 */
export function resolveConsultationChoice(kind: InterventionKind, choice: unknown): ConsultationChoice | undefined {
  const choices = choicesFor(kind);
  if (typeof choice === 'number') return choices.find((x) => x.number === choice);
  if (typeof choice !== 'string') return undefined;
  const t = choice.trim().toLowerCase();
  return choices.find((x) => String(x.number) === t) ?? choices.find((x) => x.key === t) ?? choices.find((x) => x.effect === t);
}

/** P7: the answer payload as it arrives (signal/update); anything else is rejected. */
export const ConsultationAnswerSchema = lazySchema(() =>
  z.strictObject({
    /** When given, it must be the pending consultation's id. */
    consultationId: z.string().max(200).optional(),
    /** The choice's number (1–4), key or effect. */
    choice: z.union([z.number(), z.string().max(100)]),
    /** The user's text: required for guidance and consult_reference, optional hint for the others. */
    guidance: z.string().max(8000).optional(),
  }),
);
export type ConsultationAnswerPayload = z.input<typeof ConsultationAnswerSchema>;

/** A validated answer: the chosen choice and its (trimmed) text. */
export interface ResolvedConsultationAnswer {
  kind: InterventionKind;
  choice: ConsultationChoice;
  text?: string;
}

/**
 * P7: the one validation of a consultation answer (the update validator, the signal handler and
 * applyConsultationAnswer all go through it). `pending`: the consultation waiting, if any.
 */
export function validateConsultationAnswer(
  pending: { id: string; kind: InterventionKind } | undefined,
  payload: unknown,
): { ok: true; answer: ResolvedConsultationAnswer } | { ok: false; error: string } {
  if (!pending) return { ok: false, error: 'no consultation is waiting for an answer' };
  const parsed = ConsultationAnswerSchema.safeParse(payload);
  if (!parsed.success) {
    return { ok: false, error: `invalid answer: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ')}` };
  }
  const a = parsed.data;
  if (a.consultationId !== undefined && a.consultationId !== pending.id) {
    return { ok: false, error: `consultation "${a.consultationId}" is not pending (the pending one is "${pending.id}")` };
  }
  const choice = resolveConsultationChoice(pending.kind, a.choice);
  if (!choice) {
    const offered = choicesFor(pending.kind)
      .map((x) => `${x.number}|${x.key}`)
      .join(', ');
    return { ok: false, error: `unknown choice "${String(a.choice)}": answer one of ${offered}` };
  }
  const text = a.guidance?.trim() || undefined;
  if (choice.needsText && !text) {
    return { ok: false, error: `choice ${choice.number} (${choice.key}) needs the text (${choice.label.en.toLowerCase()})` };
  }
  return { ok: true, answer: text ? { kind: pending.kind, choice, text } : { kind: pending.kind, choice } };
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
  /** P7: what the next worker request is told (user guidance, what to consult, consolidate, restart; takePendingGuidance). */
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

export type ConsultationOutcome =
  | { effect: 'stop'; reason: string }
  /** The user accepts the current result: the task ends DONE. */
  | { effect: 'accept'; reason: string }
  /** Carry `guidance` (the worker's instruction for this effect) into the next worker request; maxLoops is the (possibly raised) limit. */
  | { effect: 'guidance' | 'consult_reference' | 'consolidate' | 'restart'; guidance: string; maxLoops: number }
  | { effect: 'continue_raised'; maxLoops: number; raisedBy: number }
  /** Timeout with on_consultation_timeout 'continue': go on with the unchanged limit. */
  | { effect: 'continue'; maxLoops: number }
  /** Re-decompose the task (REPLAN); the reason goes to the planner. */
  | { effect: 'redecompose' | 'simplify'; reason: string };

export interface ConsultationResult {
  state: PacemakerState;
  outcome: ConsultationOutcome;
}

/**
 * P7: what the worker is told for an effect that goes on working (USER GUIDANCE of its next
 * request). guidance: the user's text as is.
 */
export function workerInstructionFor(effect: 'guidance' | 'consult_reference' | 'consolidate' | 'restart', text: string | undefined): string {
  const extra = text ? `\n${text}` : '';
  switch (effect) {
    case 'guidance':
      return text ?? '';
    case 'consult_reference':
      return `Before going on, consult this (the user's pick of an expert or reference material) and follow it:${extra}`;
    case 'consolidate':
      return `CONSOLIDATE FIRST: before any new change, consolidate the progress so far — summarise what is already done and what is left (in your reply and, where useful, in the workspace) — then continue from there.${extra}`;
    case 'restart':
      return `RESTART WITH A DIFFERENT APPROACH: drop your current approach, it did not work. Do not repeat the previous attempts; take a different approach to the task.${extra}`;
  }
}

/**
 * P7: apply a validated answer (validateConsultationAnswer).
 * - stop → stop; accept → accept (the task is DONE with its current result).
 * - guidance / consult_reference / consolidate / restart → `pendingGuidance` = workerInstructionFor
 *   the effect; the no-progress streak restarts; at the limit, the limit is raised by
 *   raise_limit_by so the guided loop can run.
 * - continue_raised: limit = max(maxLoops, iteration) + raise_limit_by; the streak restarts.
 * - redecompose / simplify → the caller ends the task with REPLAN and this reason.
 */
export function applyConsultationAnswer(
  state: PacemakerState,
  answer: ResolvedConsultationAnswer,
  config: Pick<PacemakerConfig, 'raise_limit_by'> = DEFAULT_PACEMAKER_CONFIG,
): ConsultationResult {
  return applyEffect(state, answer.kind, answer.choice.effect, answer.text, config, false, answer.choice);
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
  text: string | undefined,
  config: Pick<PacemakerConfig, 'raise_limit_by'>,
  timedOut: boolean,
  choice?: ConsultationChoice,
): ConsultationResult {
  const raised = Math.max(state.maxLoops, state.iteration) + config.raise_limit_by;
  const at = `at loop ${state.iteration}/${state.maxLoops} (${kind})`;
  const chose = choice ? `user chose ${choice.number} "${choice.label.en}"` : 'user chose';
  const withText = text ? `: ${text}` : '';
  const recorded = withRecord(state, kind, effect, timedOut);
  switch (effect) {
    case 'stop':
      return { state: recorded, outcome: { effect, reason: `user chose to stop ${at}` } };
    case 'accept':
      return { state: recorded, outcome: { effect, reason: `${chose}: the current result is accepted ${at}${withText}` } };
    case 'guidance':
    case 'consult_reference':
    case 'consolidate':
    case 'restart': {
      const maxLoops = state.iteration >= state.maxLoops ? raised : state.maxLoops;
      const guidance = workerInstructionFor(effect, text);
      const next: PacemakerState = { ...recorded, maxLoops, noProgressIterations: 0, pendingGuidance: guidance };
      return { state: next, outcome: { effect, guidance, maxLoops } };
    }
    case 'continue_raised': {
      const next: PacemakerState = { ...recorded, maxLoops: raised, noProgressIterations: 0 };
      return { state: next, outcome: { effect, maxLoops: raised, raisedBy: raised - state.maxLoops } };
    }
    case 'redecompose':
      return { state: recorded, outcome: { effect, reason: `${chose} ${at}: re-decompose the task into smaller steps${withText}` } };
    case 'simplify':
      return {
        state: recorded,
        outcome: {
          effect,
          reason: `${chose} ${at}: simplify the request and retry — re-decompose the task with a simplified scope (only what is essential)${withText}`,
        },
      };
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
