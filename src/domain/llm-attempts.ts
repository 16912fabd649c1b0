// O7: a worker lost during an LLM call is not the call's failure. Temporal counts every attempt of
// an activity alike: one cut short because its worker died (its heartbeat stopped) and one whose
// request failed. So an LLM activity's retry policy allows its own attempts (`llmMaxAttempts`) plus
// LOST_WORKER_ATTEMPTS more, and the activity counts its own failures itself: each attempt that
// fails records the count in its heartbeat details (Temporal hands them to the next attempt), and
// the failure that uses up the call's own attempts is final. An attempt whose worker died records
// nothing, so it costs only one of the lost worker's attempts.

/**
 * How many attempts a call may lose with its worker, besides its own. Generous: a worker that
 * crashes over and over (out of memory, a host rebooting) is an operator's problem, not the
 * model's, and each lost attempt costs only a heartbeat timeout; still bounded, so a call that
 * kills its worker every time (a reply too large to hold) ends.
 */
export const LOST_WORKER_ATTEMPTS = 20;

/** The retry policy's maximumAttempts for a call with `own` attempts of its own. */
export const activityMaximumAttempts = (own: number): number => own + LOST_WORKER_ATTEMPTS;

/**
 * The call's own attempts, from its retry policy's maximumAttempts (`activityMaximumAttempts`).
 * Undefined (count nothing, Temporal's limit is the only one): a policy not made that way (a call
 * scheduled before the count existed, or with no limit).
 */
export function ownAttemptsOf(maximumAttempts: number | undefined): number | undefined {
  if (maximumAttempts === undefined || !Number.isInteger(maximumAttempts) || maximumAttempts <= LOST_WORKER_ATTEMPTS) return undefined;
  return maximumAttempts - LOST_WORKER_ATTEMPTS;
}

/** The key of the count in an attempt's heartbeat details. */
export const OWN_FAILURES_KEY = 'ownFailures';

/** The own failures counted by earlier attempts, from the heartbeat details the attempt started with (anything else: 0). */
export function ownFailuresIn(details: unknown): number {
  const n = typeof details === 'object' && details !== null ? (details as Record<string, unknown>)[OWN_FAILURES_KEY] : undefined;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** Details to heartbeat: `details` with the count (kept as they are while nothing was counted). */
export function withOwnFailures(details: unknown, failures: number): unknown {
  if (failures <= 0) return details;
  const base = typeof details === 'object' && details !== null && !Array.isArray(details) ? details : details === undefined ? {} : { details };
  return { ...base, [OWN_FAILURES_KEY]: failures };
}

/** An attempt failed on its own: the count after it, and whether that was the call's last own attempt. */
export function afterOwnFailure(before: number, own: number | undefined): { failures: number; last: boolean } {
  const failures = before + 1;
  return { failures, last: own !== undefined && failures >= own };
}
