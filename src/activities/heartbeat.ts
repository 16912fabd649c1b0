// The one heartbeat timer of the activities (O4). An activity heartbeats while it works (an LLM call,
// a worker step's commands, a GitHub request), so an attempt lost with its worker is retried after
// the short heartbeat timeout, not after its start-to-close timeout, and so a cancellation reaches
// it (Temporal delivers cancellations with heartbeat responses).
import { Context } from '@temporalio/activity';

export interface Heartbeat {
  /** The details every later beat carries, in place of the previous ones (progress `describe` shows). */
  update(details: unknown): void;
  stop(): void;
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
export function startActivityHeartbeat(details?: unknown): Heartbeat {
  const ctx = Context.current();
  return startHeartbeat((d) => ctx.heartbeat(d), { everyMs: everyMsFor(ctx.info.heartbeatTimeoutMs), details, signal: ctx.cancellationSignal });
}

/** Runs `work` while the current activity heartbeats; `work` may update the details it beats with. */
export async function heartbeating<T>(work: (hb: Heartbeat) => Promise<T>): Promise<T> {
  const hb = startActivityHeartbeat();
  try {
    return await work(hb);
  } finally {
    hb.stop();
  }
}
