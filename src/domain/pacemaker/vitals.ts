// P2: D.U.C.K. vitals measured from real signals of a task's recent iterations (seed 002).
// Every value is in [0, 1]; higher is healthier.

export interface Vitals {
  /** Confidence in the current plan (seed 002: mood = AIのプランに関する自信). */
  mood: number;
  /** Consistency of thought (seed 002: focus = AIの思考の一貫性). */
  focus: number;
  /** What is left after attempts: 1 fresh, 0 spent (seed 002: stamina = 試行回数（消耗度）). */
  stamina: number;
}

export interface VitalsSignals {
  /** Confidences (0..1) reported by the judge for recent iterations. */
  judgeConfidences: readonly number[];
  /** Confidences (0..1) of recent replan decisions (X2 `confidence`). */
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

/** mood when no confidence has been reported yet (seed 002's example start is 0.75; 0.7 = neutral-positive). */
export const NEUTRAL_MOOD = 0.7;
/** Only the last VITALS_WINDOW actions and errors are considered for focus. */
export const VITALS_WINDOW = 6;

/**
 * P2: measure the vitals.
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
 * P2: vitals score = 0.4·mood + 0.4·focus + 0.2·stamina, rounded to 10 decimals so that
 * binary floating point cannot push an exact boundary (0.8·0.4 + 0.8·0.4 + 0.8·0.2 would
 * otherwise be 0.8000000000000002) across a threshold.
 */
export function vitalsScore(v: Vitals): number {
  return roundTo10(0.4 * v.mood + 0.4 * v.focus + 0.2 * v.stamina);
}

/** P2: score < 0.4 → 0.7 (cut), score > 0.8 → 1.2 (raise), else 1.0 (0.4 and 0.8 themselves give 1.0). */
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
 * P7 no_progress: an iteration made no progress when the judge misses exactly what it missed the
 * iteration before, or the worker made exactly the same tool calls as the iteration before.
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
