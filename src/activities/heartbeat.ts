// The one heartbeat timer of the activities (O4). An activity heartbeats while it works (an LLM call,
// a worker step's commands, a GitHub request), so an attempt lost with its worker is retried after
// the short heartbeat timeout, not after its start-to-close timeout, and so a cancellation reaches
// it (Temporal delivers cancellations with heartbeat responses).
//
// O7: every beat also carries the count of the call's own failed attempts (src/domain/llm-attempts.ts),
// so a worker lost mid-call does not use up the attempts the call has for its own failures.
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { afterOwnFailure, ownAttemptsOf, ownFailuresIn, withOwnFailures } from '../domain/llm-attempts';

export interface Heartbeat {
  /** The details every later beat carries, in place of the previous ones (progress `describe` shows). */
  update(details: unknown): void;
  stop(): void;
}

/** An activity's heartbeat, which also counts the call's own failures (O7). */
export interface ActivityHeartbeat extends Heartbeat {
  /** This attempt failed with `err`: counted (and told to the next attempt); the error to throw, final once the call's own attempts are used up. */
  failed(err: unknown): unknown;
}

/**
 * Calls `beat` every `everyMs` with the latest details until stopped or `signal` aborts (a cancelled
 * activity has had its answer). No beat at the start: the heartbeat timeout counts from the start
 * anyway, and most calls end before the first interval, so a beat now would be one more server
 * write per call.
 */
export function startHeartbeat(beat: (details?: unknown) => void, opts: { everyMs: number; details?: unknown; signal?: AbortSignal }): Heartbeat {
  let details = opts.details;
  const timer = setInterval(() => (details === undefined ? beat() : beat(details)), opts.everyMs);
  const stop = () => {
    clearInterval(timer);
    opts.signal?.removeEventListener('abort', stop);
  };
  if (opts.signal?.aborted) stop();
  else opts.signal?.addEventListener('abort', stop, { once: true });
  return {
    update: (next) => (details = next),
    stop,
  };
}

/** A third of the heartbeat timeout (a beat lost or late still leaves one in time), between 0.5 and 3 s. */
const everyMsFor = (heartbeatTimeoutMs: number | undefined) => Math.max(500, Math.min(3000, (heartbeatTimeoutMs ?? 30_000) / 3));

/** Starts heartbeating the current activity, with `details` if given; stop it when the work ends. */
export function startActivityHeartbeat(details?: unknown): ActivityHeartbeat {
  const ctx = Context.current();
  // O7: what earlier attempts counted; a worker lost mid-attempt counted nothing.
  let failures = ownFailuresIn(ctx.info.heartbeatDetails);
  let latest = details;
  const beat = (d?: unknown) => {
    const all = withOwnFailures(d, failures);
    if (all === undefined) ctx.heartbeat();
    else ctx.heartbeat(all);
  };
  const hb = startHeartbeat(beat, { everyMs: everyMsFor(ctx.info.heartbeatTimeoutMs), details, signal: ctx.cancellationSignal });
  return {
    update: (next) => hb.update((latest = next)),
    stop: () => hb.stop(),
    failed(err) {
      if (err instanceof CancelledFailure || ctx.cancellationSignal.aborted) return err;
      const after = afterOwnFailure(failures, ownAttemptsOf(ctx.info.retryPolicy?.maximumAttempts));
      failures = after.failures;
      // The worker sends this beat with the failure; the next attempt starts from it.
      beat(latest);
      return after.last ? finalFailure(err) : err;
    },
  };
}

/** The same failure, not retried: the call's own attempts are used up (its retry policy still allows lost workers' attempts). */
function finalFailure(err: unknown): unknown {
  if (err instanceof ApplicationFailure) {
    if (err.nonRetryable) return err;
    return ApplicationFailure.create({
      type: err.type ?? undefined,
      message: err.message,
      details: err.details ?? undefined,
      nonRetryable: true,
      cause: err.cause,
    });
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return ApplicationFailure.create({ type: e.name, message: e.message, nonRetryable: true, cause: e });
}

/** Runs `work` while the current activity heartbeats; `work` may update the details it beats with. */
export async function heartbeating<T>(work: (hb: Heartbeat) => Promise<T>): Promise<T> {
  const hb = startActivityHeartbeat();
  try {
    return await work(hb);
  } catch (err) {
    throw hb.failed(err);
  } finally {
    hb.stop();
  }
}
