// The pacemaker's dynamic loop limit (P1–P6): how many worker iterations a task gets, from its
// profile's base, the agent's vitals and the task's complexity, clamped to 3..20.
import { TASK_PROFILES, type TaskProfile } from '../types';
import { FINAL_FALLBACK_MAX_LOOPS, MAX_LOOPS, MIN_LOOPS, type PacemakerConfig } from './config';
import { vitalsFactor, vitalsScore, type TaskSignals, type Vitals } from './vitals';

/** Base loops per task profile: more for work that takes more steps (complex reasoning 18, a simple question 5). */
export const BASE_LOOPS: Readonly<Record<TaskProfile, number>> = Object.freeze({
  SIMPLE_QUESTION: 5,
  CODE_ANALYSIS: 12,
  FILE_OPERATION: 8,
  COMPLEX_REASONING: 18,
  MULTI_STEP_TASK: 15,
  GENERAL_CHAT: 6,
  CREATIVE_WRITING: 10,
  DEBUGGING: 14,
  RESEARCH: 16,
  UNKNOWN: 8,
});
/** Base loops of a profile the table does not know. */
export const UNKNOWN_PROFILE_BASE_LOOPS = 8;
/** Context complexity assumed when nothing was measured. */
export const DEFAULT_COMPLEXITY = 0.3;
/**
 * Vitals assumed when none were measured: score 0.6, factor 1.0 — no evidence, so the
 * limit is neither raised nor cut.
 */
export const NEUTRAL_VITALS: Readonly<Vitals> = Object.freeze({ mood: 0.6, focus: 0.6, stamina: 0.6 });

/** The signals context complexity is computed from. */
export interface ComplexityInput {
  /** Files collected / touched for the task. */
  files: number;
  /** Conversation history length in turns. */
  historyTurns: number;
  /** Tool executions so far. */
  toolRuns: number;
  /** Of those, how many failed. */
  toolErrors: number;
}

/** A task's complexity input: files = its scope paths; history turns = worker steps; error rate = failed / all tool calls. */
export function taskComplexity(files: number, s: Pick<TaskSignals, 'historyTurns' | 'toolRuns' | 'toolErrors'>): ComplexityInput {
  return { files, historyTurns: s.historyTurns, toolRuns: s.toolRuns, toolErrors: s.toolErrors };
}

export interface MaxLoopsInput {
  profile: string;
  vitals?: Vitals;
  complexity?: ComplexityInput;
  config: Pick<PacemakerConfig, 'enabled' | 'default_max_loops'>;
}

export interface MaxLoopsResult {
  max_loops: number;
  base_loops: number;
  vitals_factor: number;
  complexity_factor: number;
  /** null when the computation fell back to the configured limit or the pacemaker is disabled. */
  vitals_score: number | null;
  /** 0..1; null when the computation fell back to the configured limit or the pacemaker is disabled. */
  complexity: number | null;
  profile: string;
  /** Why this limit, in words: the base, the factors and what they came from. */
  reasoning: string;
  /** True when the dynamic computation failed and the configured limit was used. */
  fallback?: boolean;
  /** Set when the pacemaker is disabled (the configured limit is used as is). */
  disabled?: boolean;
}

/** A value of the profile enum (UNKNOWN included). */
export function isKnownProfile(profile: string): profile is TaskProfile {
  return (TASK_PROFILES as readonly string[]).includes(profile);
}

/** The planner's profile text → the enum; anything not one of the nine (or not text) → UNKNOWN. */
export function toTaskProfile(raw: unknown): TaskProfile {
  if (typeof raw !== 'string') return 'UNKNOWN';
  const up = raw.trim().toUpperCase();
  return isKnownProfile(up) ? up : 'UNKNOWN';
}

/** Base loops of a profile; unknown → 8. */
export function baseLoopsFor(profile: string): number {
  return isKnownProfile(profile) ? BASE_LOOPS[profile] : UNKNOWN_PROFILE_BASE_LOOPS;
}

/**
 * Complexity = mean of min(files/8, 1), min(historyTurns/15, 1), min(3·errorRate, 1),
 * where errorRate = toolErrors / toolRuns, and 0 when there were no tool runs.
 * Throws RangeError on negative or non-finite counts.
 */
export function computeComplexity(input: ComplexityInput): number {
  for (const [k, v] of Object.entries(input)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`complexity input ${k} is invalid: ${String(v)}`);
  }
  const fileFactor = Math.min(input.files / 8, 1);
  const historyFactor = Math.min(input.historyTurns / 15, 1);
  const errorRate = input.toolRuns > 0 ? input.toolErrors / input.toolRuns : 0;
  const errorFactor = Math.min(errorRate * 3, 1);
  return (fileFactor + historyFactor + errorFactor) / 3;
}

/** complexityFactor = 1 + 0.4·complexity (1.0 … 1.4). */
export function complexityFactor(complexity: number): number {
  return 1 + 0.4 * complexity;
}

/** Clamp a computed limit into [3, 20]. */
export function clampLoops(n: number): number {
  return Math.max(MIN_LOOPS, Math.min(n, MAX_LOOPS));
}

/**
 * max_loops = clamp(floor(base × vitalsFactor × complexityFactor), 3, 20).
 *
 * - vitals absent → NEUTRAL_VITALS (factor 1.0); complexity absent → 0.3.
 * - Any failure (invalid vitals outside 0..1 or NaN, invalid complexity input, a
 *   throwing input, a non-finite result) → `fallback: true` and max_loops =
 *   config.default_max_loops, or 15 when that is unusable too.
 * - Disabled pacemaker → default_max_loops, `disabled: true`.
 * - The product is floored with a 1e-9 tolerance so that e.g. 10 × 1.2 × 1.25 = 15
 *   computed as 14.999999999999998 still gives 15.
 */
export function calculateMaxLoops(input: MaxLoopsInput): MaxLoopsResult {
  const profile = String(input.profile);
  if (input.config?.enabled === false) {
    const limit = configuredLimit(input.config);
    return {
      max_loops: limit,
      base_loops: baseLoopsFor(profile),
      vitals_factor: 1,
      complexity_factor: 1,
      vitals_score: null,
      complexity: null,
      profile,
      reasoning: `🦆 Duck Pacemaker disabled: fixed limit ${limit} loops (default_max_loops).`,
      disabled: true,
    };
  }
  try {
    const base = baseLoopsFor(profile);
    const vitals = input.vitals ?? NEUTRAL_VITALS;
    const mood = vitals.mood;
    const focus = vitals.focus;
    const stamina = vitals.stamina;
    for (const [k, v] of [
      ['mood', mood],
      ['focus', focus],
      ['stamina', stamina],
    ] as const) {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) throw new RangeError(`vitals ${k} is invalid: ${String(v)}`);
    }
    const score = vitalsScore({ mood, focus, stamina });
    const vFactor = vitalsFactor(score);
    const complexity = input.complexity ? computeComplexity(input.complexity) : DEFAULT_COMPLEXITY;
    const cFactor = complexityFactor(complexity);
    const product = base * vFactor * cFactor;
    if (!Number.isFinite(product)) throw new RangeError(`loop limit computation gave ${product}`);
    const calculated = Math.floor(product + 1e-9);
    const maxLoops = clampLoops(calculated);
    return {
      max_loops: maxLoops,
      base_loops: base,
      vitals_factor: vFactor,
      complexity_factor: cFactor,
      vitals_score: score,
      complexity,
      profile,
      reasoning: explain({
        profile,
        known: isKnownProfile(profile) && profile !== 'UNKNOWN',
        base,
        vitals: { mood, focus, stamina },
        vitalsMeasured: input.vitals !== undefined,
        score,
        vFactor,
        complexity,
        complexityMeasured: input.complexity !== undefined,
        cFactor,
        product,
        maxLoops,
      }),
    };
  } catch (e) {
    const limit = configuredLimit(input.config);
    const message = e instanceof Error ? e.message : String(e);
    return {
      max_loops: limit,
      base_loops: safeBase(profile),
      vitals_factor: 1,
      complexity_factor: 1,
      vitals_score: null,
      complexity: null,
      profile,
      reasoning: `🦆 Duck Pacemaker: dynamic limit computation failed (${message}); fallback to the configured limit of ${limit} loops.`,
      fallback: true,
    };
  }
}

/** The fallback limit: config.default_max_loops when it is a positive integer, else 15. */
function configuredLimit(config: Partial<Pick<PacemakerConfig, 'default_max_loops'>> | undefined): number {
  try {
    const v = config?.default_max_loops;
    return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : FINAL_FALLBACK_MAX_LOOPS;
  } catch {
    return FINAL_FALLBACK_MAX_LOOPS;
  }
}

function safeBase(profile: string): number {
  try {
    return baseLoopsFor(profile);
  } catch {
    return UNKNOWN_PROFILE_BASE_LOOPS;
  }
}

function explain(x: {
  profile: string;
  known: boolean;
  base: number;
  vitals: Vitals;
  vitalsMeasured: boolean;
  score: number;
  vFactor: number;
  complexity: number;
  complexityMeasured: boolean;
  cFactor: number;
  product: number;
  maxLoops: number;
}): string {
  const state: string[] = [];
  if (x.vitals.mood < 0.5) state.push('low confidence in the plan');
  else if (x.vitals.mood > 0.8) state.push('high confidence in the plan');
  if (x.vitals.focus < 0.5) state.push('thinking is inconsistent');
  else if (x.vitals.focus > 0.8) state.push('thinking is consistent');
  if (x.vitals.stamina < 0.5) state.push('worn down by attempts');
  else if (x.vitals.stamina > 0.8) state.push('few attempts used');
  const vitalsState = state.length ? state.join(', ') : 'standard state';

  const adjustments: string[] = [];
  if (x.vFactor < 1) adjustments.push(`vitals cut the limit by ${Math.round((1 - x.vFactor) * 100)}%`);
  else if (x.vFactor > 1) adjustments.push(`vitals raised the limit by ${Math.round((x.vFactor - 1) * 100)}%`);
  if (x.cFactor > 1) adjustments.push(`complexity raised the limit by ${Math.round((x.cFactor - 1) * 100)}%`);
  const clampNote = Math.floor(x.product + 1e-9) !== x.maxLoops ? ` → clamped to ${x.maxLoops}` : '';

  return [
    '🦆 Duck Pacemaker limit decision:',
    `Task: ${x.profile}${x.known ? '' : ' (unknown profile)'}, base limit ${x.base} loops`,
    `Vitals${x.vitalsMeasured ? '' : ' (not measured, neutral)'}: mood ${f2(x.vitals.mood)}, focus ${f2(x.vitals.focus)}, stamina ${f2(x.vitals.stamina)} → score ${f2(x.score)} (${vitalsState}) → factor ${x.vFactor.toFixed(1)}`,
    `Complexity${x.complexityMeasured ? '' : ' (not measured, default)'}: ${f2(x.complexity)} (${complexityLabel(x.complexity)}) → factor ${f2(x.cFactor)}`,
    `Calculation: ${x.base} × ${x.vFactor.toFixed(1)} × ${f2(x.cFactor)} = ${f2(x.product)} → ${Math.floor(x.product + 1e-9)}${clampNote}; adjustments: ${adjustments.length ? adjustments.join(', ') : 'none'}`,
    `Final limit: ${x.maxLoops} loops (range ${MIN_LOOPS}-${MAX_LOOPS})`,
  ].join('\n');
}

/** Complexity in words: < 0.3 low, > 0.7 high, else medium. */
export function complexityLabel(c: number): 'low' | 'medium' | 'high' {
  if (c < 0.3) return 'low';
  if (c > 0.7) return 'high';
  return 'medium';
}

function f2(n: number): string {
  return n.toFixed(2);
}
