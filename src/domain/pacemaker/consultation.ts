// A pacemaker consultation's answer (or its timeout) and what it does (P7). The workflow validates
// an answer with validateConsultationAnswer (update validator and signal alike), waits durably, and
// applies it with applyConsultationAnswer, or applyConsultationTimeout when nobody answered.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { choicesFor, resolveConsultationChoice, type ConsultationChoice, type ConsultationEffect, type InterventionKind } from './choices';
import { DEFAULT_PACEMAKER_CONFIG, type PacemakerConfig } from './config';
import type { InterventionRecord, PacemakerState } from './interventions';

/** The answer payload as it arrives (signal/update); anything else is rejected. */
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

/** A validated answer: the chosen choice and its (trimmed) text. */
export interface ResolvedConsultationAnswer {
  kind: InterventionKind;
  choice: ConsultationChoice;
  text?: string;
}

/**
 * The one validation of a consultation answer (the update validator, the signal handler and
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
 * What the worker is told for an effect that goes on working (USER GUIDANCE of its next
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
 * Apply a validated answer (validateConsultationAnswer).
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
  return applyEffect(state, {
    kind: answer.kind,
    effect: answer.choice.effect,
    ...(answer.text !== undefined ? { text: answer.text } : {}),
    raiseLimitBy: config.raise_limit_by,
    timedOut: false,
    choice: answer.choice,
  });
}

/**
 * Nobody answered within consultation_timeout_minutes. on_consultation_timeout:
 * 'stop' → stop; 'raise_limit' → continue_raised; 'continue' → go on with the current
 * limit, which at the limit (too_many_attempts) means stopping.
 */
export function applyConsultationTimeout(
  state: PacemakerState,
  kind: InterventionKind,
  config: Pick<PacemakerConfig, 'raise_limit_by' | 'on_consultation_timeout' | 'consultation_timeout_minutes'> = DEFAULT_PACEMAKER_CONFIG,
): ConsultationResult {
  const mode = config.on_consultation_timeout;
  if (mode === 'raise_limit') return applyEffect(state, { kind, effect: 'continue_raised', raiseLimitBy: config.raise_limit_by, timedOut: true });
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

/** What a consultation's end does: its pattern, the chosen (or timed-out) effect, and the user's text. */
interface EffectInput {
  kind: InterventionKind;
  effect: ConsultationEffect;
  /** The user's text, if the answer carried one. */
  text?: string;
  /** pacemaker.raise_limit_by: how far a limit is raised. */
  raiseLimitBy: number;
  /** Nobody answered: the configured timeout effect applies. */
  timedOut: boolean;
  /** The user's choice (absent on a timeout), named in the reason. */
  choice?: ConsultationChoice;
}

function applyEffect(state: PacemakerState, input: EffectInput): ConsultationResult {
  const { kind, effect, text, timedOut, choice } = input;
  const raised = Math.max(state.maxLoops, state.iteration) + input.raiseLimitBy;
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

/** The consultation's end: the answer when one came in time, else the configured timeout. */
export function endConsultation(
  state: PacemakerState,
  kind: InterventionKind,
  answer: ResolvedConsultationAnswer | undefined,
  config: Pick<PacemakerConfig, 'raise_limit_by' | 'on_consultation_timeout' | 'consultation_timeout_minutes'> = DEFAULT_PACEMAKER_CONFIG,
): ConsultationResult {
  return answer ? applyConsultationAnswer(state, answer, config) : applyConsultationTimeout(state, kind, config);
}

/** How a task ends: its judge or a consultation said so; REPLAN asks the execution phase to re-decompose it into smaller tasks. */
export type TaskEnd = 'DONE' | 'BLOCKED' | 'REPLAN';

/** The consultation effects that end the task, and how; undefined → the loop goes on. */
export function consultationEnd(outcome: ConsultationOutcome, answered: boolean): { state: TaskEnd; reason: string } | undefined {
  switch (outcome.effect) {
    case 'stop':
      return { state: 'BLOCKED', reason: answered ? `stopped by the user (${outcome.reason})` : outcome.reason };
    case 'accept':
      return { state: 'DONE', reason: outcome.reason };
    case 'redecompose':
    case 'simplify':
      return { state: 'REPLAN', reason: outcome.reason };
    default:
      return undefined;
  }
}

/**
 * A limit a consultation set (raised, or kept going) is a floor: the limit recomputed after
 * a later iteration never goes below it. The floor after `outcome`.
 */
export function limitFloorAfter(floor: number, outcome: ConsultationOutcome): number {
  return 'maxLoops' in outcome ? Math.max(floor, outcome.maxLoops) : floor;
}

/** The recomputed loop limit, never below the floor consultations set. */
export function limitAboveFloor(computed: number, floor: number): number {
  return Math.max(computed, floor);
}
