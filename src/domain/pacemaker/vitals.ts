// The agent's vitals (P2), measured from real signals of a task's recent iterations: mood
// (confidence in the plan), focus (consistency of thought) and stamina (attempts left). Every
// value is in [0, 1]; higher is healthier.
import { clipMiddle } from '../text';

export interface Vitals {
  /** Confidence in the current plan (mood). */
  mood: number;
  /** Consistency of thought (focus). */
  focus: number;
  /** What is left after attempts: 1 fresh, 0 spent (stamina). */
  stamina: number;
}

export interface VitalsSignals {
  /** Confidences (0..1) reported by the judge for recent iterations. */
  judgeConfidences: readonly number[];
  /** Confidences (0..1) of recent replan decisions (each decision's `confidence`). */
  decisionConfidences?: readonly number[];
  /** One signature per recent tool call / action, e.g. `edit_file:src/a.ts` (oldest first). */
  recentActions: readonly string[];
  /** One normalised message per recent error (oldest first). */
  recentErrors: readonly string[];
  /** Attempts this task has used (worker iterations). */
  attemptsUsed: number;
  /** The attempt budget of this task (its current loop limit). */
  maxAttempts: number;
}

/** mood when no confidence has been reported yet (0.7: neutral to positive). */
export const NEUTRAL_MOOD = 0.7;
/** Only the last VITALS_WINDOW actions and errors are considered for focus. */
export const VITALS_WINDOW = 6;

/**
 * Measure the vitals.
 *
 * - mood    = mean of the recent judge and decision confidences (each clamped to 0..1,
 *             non-finite values ignored); NEUTRAL_MOOD (0.7) when there are none.
 * - focus   = 1 − repetition ratio, where the repetition ratio of a list is
 *             (entries that repeat an earlier entry of the list) / (entries), taken over
 *             the last VITALS_WINDOW actions and, separately, the last VITALS_WINDOW
 *             errors; the worse (higher) of the two counts. No actions and no errors → 1.
 *             E.g. actions [a, a, a, b] → 2/4 repeated → focus 0.5.
 * - stamina = 1 − attemptsUsed / maxAttempts, clamped to 0..1 (1 fresh, 0 spent).
 *             maxAttempts ≤ 0 or not finite → 1 if nothing was used yet, else 0.
 */
export function measureVitals(signals: VitalsSignals): Vitals {
  const confidences = [...signals.judgeConfidences, ...(signals.decisionConfidences ?? [])].filter((c) => Number.isFinite(c)).map(clamp01);
  const mood = confidences.length > 0 ? confidences.reduce((a, b) => a + b, 0) / confidences.length : NEUTRAL_MOOD;

  const repetition = Math.max(
    repetitionRatio(signals.recentActions.slice(-VITALS_WINDOW)),
    repetitionRatio(signals.recentErrors.slice(-VITALS_WINDOW)),
  );
  const focus = clamp01(1 - repetition);

  const used = Number.isFinite(signals.attemptsUsed) ? Math.max(0, signals.attemptsUsed) : 0;
  const stamina = Number.isFinite(signals.maxAttempts) && signals.maxAttempts > 0 ? clamp01(1 - used / signals.maxAttempts) : used > 0 ? 0 : 1;

  return { mood, focus, stamina };
}

/** Share of entries that repeat an earlier entry of the same list (0 for an empty list). */
export function repetitionRatio(items: readonly string[]): number {
  if (items.length === 0) return 0;
  const seen = new Set<string>();
  let repeats = 0;
  for (const item of items) {
    const key = item.trim();
    if (seen.has(key)) repeats++;
    else seen.add(key);
  }
  return repeats / items.length;
}

/**
 * Vitals score = 0.4·mood + 0.4·focus + 0.2·stamina, rounded to 10 decimals so that
 * binary floating point cannot push an exact boundary (0.8·0.4 + 0.8·0.4 + 0.8·0.2 would
 * otherwise be 0.8000000000000002) across a threshold.
 */
export function vitalsScore(v: Vitals): number {
  return roundTo10(0.4 * v.mood + 0.4 * v.focus + 0.2 * v.stamina);
}

/** The vitals factor of the loop limit: score < 0.4 → 0.7 (cut), score > 0.8 → 1.2 (raise), else 1.0 (0.4 and 0.8 themselves give 1.0). */
export function vitalsFactor(score: number): number {
  if (score < 0.4) return 0.7;
  if (score > 0.8) return 1.2;
  return 1.0;
}

function roundTo10(n: number): number {
  return Math.round(n * 1e10) / 1e10;
}

function clamp01(n: number): number {
  return Math.min(1, Math.max(0, n));
}

/** What the previous iteration showed, for no-progress detection. */
export interface ProgressMarks {
  /** The judge's missing requirements, sorted and joined. */
  missing?: string;
  /** The worker's tool-call signatures, joined. */
  actions?: string;
}

/**
 * No progress (which makes the pacemaker consult the user): an iteration made no progress when the
 * judge misses exactly what it missed the iteration before, or the worker made exactly the same
 * tool calls as the iteration before.
 */
export function detectProgress(
  previous: ProgressMarks,
  judgeMissing: readonly string[],
  actionSignatures: readonly string[],
): { progressed: boolean; marks: ProgressMarks } {
  const missing = [...judgeMissing].sort().join('\n');
  const actions = actionSignatures.join('\n');
  const repeated = (missing !== '' && missing === previous.missing) || (actions !== '' && actions === previous.actions);
  return { progressed: !repeated, marks: { missing, actions } };
}

// ------------------------------------------------------------------ a task's signals, iteration by iteration

/** Marks a failed tool call: the worker step writes it at the end of the call's signature. */
export const FAILED_CALL_MARK = '!';

/**
 * A tool call's signature in a worker step's report: `name(args)`, the arguments as compact JSON
 * (their raw text when it is not JSON), each clipped, and FAILED_CALL_MARK appended when it failed.
 */
export function toolCallSignature(name: string, rawArgs: string, ok: boolean): string {
  let args = rawArgs;
  try {
    args = JSON.stringify(JSON.parse(rawArgs || '{}')) ?? '';
  } catch {
    /* keep the raw text */
  }
  return `${clipMiddle(name, 40)}(${clipMiddle(args, 80)})${ok ? '' : FAILED_CALL_MARK}`;
}

export function isFailedCall(signature: string): boolean {
  return signature.endsWith(FAILED_CALL_MARK);
}

/** Tool-call signatures a task keeps for focus, and of them the failed ones: small, bounded lists only. */
export const SIGNAL_WINDOW = 12;
/** mood is the mean of the judge's last few confidences. */
export const JUDGE_CONFIDENCES_KEPT = 3;

/** What a task keeps of its iterations for its vitals, its complexity and no-progress detection. */
export interface TaskSignals {
  judgeConfidences: number[];
  /** The last SIGNAL_WINDOW tool-call signatures. */
  actions: string[];
  /** The failed ones of the last SIGNAL_WINDOW tool calls. */
  errors: string[];
  /** Worker steps so far (the complexity's history turns). */
  historyTurns: number;
  toolRuns: number;
  toolErrors: number;
  lastMarks: ProgressMarks;
}

export const NO_TASK_SIGNALS: Readonly<TaskSignals> = Object.freeze({
  judgeConfidences: [],
  actions: [],
  errors: [],
  historyTurns: 0,
  toolRuns: 0,
  toolErrors: 0,
  lastMarks: {},
});

/** What one worker → judge iteration showed. */
export interface IterationSignals {
  /** The judge's confidence; null when it could not say. */
  judgeConfidence: number | null;
  missingRequirements: readonly string[];
  /** The iteration's tool-call signatures (toolCallSignature). */
  actionSignatures: readonly string[];
  steps: number;
  toolCalls: number;
  toolErrors: number;
}

/** The signals after an iteration, and whether it made progress (detectProgress). */
export function recordTaskSignals(s: TaskSignals, it: IterationSignals): { signals: TaskSignals; progressed: boolean } {
  const { progressed, marks } = detectProgress(s.lastMarks, it.missingRequirements, it.actionSignatures);
  const signals: TaskSignals = {
    judgeConfidences:
      typeof it.judgeConfidence === 'number' ? [...s.judgeConfidences, it.judgeConfidence].slice(-JUDGE_CONFIDENCES_KEPT) : s.judgeConfidences,
    actions: [...s.actions, ...it.actionSignatures].slice(-SIGNAL_WINDOW),
    errors: [...s.errors, ...it.actionSignatures.filter(isFailedCall)].slice(-SIGNAL_WINDOW),
    historyTurns: s.historyTurns + it.steps,
    toolRuns: s.toolRuns + it.toolCalls,
    toolErrors: s.toolErrors + it.toolErrors,
    lastMarks: marks,
  };
  return { signals, progressed };
}

/** The task's vitals from its signals, after `attemptsUsed` of `maxAttempts` iterations. */
export function taskVitals(s: TaskSignals, attemptsUsed: number, maxAttempts: number): Vitals {
  return measureVitals({ judgeConfidences: s.judgeConfidences, recentActions: s.actions, recentErrors: s.errors, attemptsUsed, maxAttempts });
}
