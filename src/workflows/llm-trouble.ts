// SPEC O2 at every LLM call site: `gated` (pause-gate.ts) runs each call through here. An LLM that
// is unavailable or rejects access past the call's quick retries never fails the call: the run is
// told (llmTrouble signal, or directly for the run itself) and pauses; then
// - unavailable: this caller is a prober: it waits a capped backoff (probeDelayMs; less when the
//   outage pause ends meanwhile) and calls again, through the outage pause but never through the
//   user's (or any other) pause; the first call that succeeds tells the run, which ends the outage
//   pause only;
// - rejected (or unsupported, M1: no tool calls): this caller waits until the user resumes the run, then calls again at once; a second
//   rejection pauses again.
// Nothing is sent while calls succeed: history grows only when there is trouble.
import { ActivityFailure, ApplicationFailure, condition, log } from '@temporalio/workflow';
import { llmTroubleOf, mayProbe, pauseKindOf, probeDelayMs, type LlmTrouble, type PauseKind } from '../domain/run/llm-outage';
import type { LlmTroubleMessage } from './messages';

export interface LlmTroubleHook {
  /** Why the run is paused, as this workflow knows it (the run: its state; a child: the last pauseGate). */
  kinds(): readonly PauseKind[];
  /** Tells the run; never throws. */
  report(m: LlmTroubleMessage): Promise<void>;
  /** A call got through after trouble that needs no report (a rejection the user resumed): the trouble is over. */
  clear?(): void;
}

/** A rejection not yet relayed back by the run is waited for this long before the caller looks again. */
const REJECTION_SEEN_TIMEOUT_MS = 60_000;

function troubleOf(err: unknown): { trouble: LlmTrouble; message: string } | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const trouble = llmTroubleOf(err.cause.type ?? undefined);
  return trouble ? { trouble, message: err.cause.message } : undefined;
}

/** Runs `call`; without a hook (a workflow started on its own, no run above it) failures propagate as they are. */
export function callThroughLlmTrouble<R>(hook: LlmTroubleHook | undefined, call: () => Promise<R>): Promise<R> {
  if (!hook) return call();
  // The common case, no trouble, costs one promise more than the call (the SDK captures a stack
  // trace for every promise a workflow makes).
  return call().catch((err: unknown) => throughTrouble(hook, call, err));
}

/** After `call` failed with `first`: pause and probe (or wait for the resume) until it succeeds. */
async function throughTrouble<R>(hook: LlmTroubleHook, call: () => Promise<R>, first: unknown): Promise<R> {
  let err = first;
  let probes = 0;
  for (;;) {
    const t = troubleOf(err);
    if (!t) throw err;
    // Told once per pause, not per probe: a long outage must not grow the run's history.
    if (!hook.kinds().includes(pauseKindOf(t.trouble))) await hook.report({ trouble: t.trouble, error: t.message });
    if (t.trouble === 'unavailable') {
      probes += 1;
      const wait = probeDelayMs(probes);
      log.warn(`LLM unavailable; the run is paused, probing again in ${wait / 1000} s: ${t.message}`);
      // Sooner when the outage pause ends meanwhile (another prober got through, or the user resumed).
      const end = Date.now() + wait;
      const outage = () => hook.kinds().includes('llm_outage');
      await condition(outage, wait);
      if (end > Date.now()) await condition(() => !outage(), end - Date.now());
    } else {
      probes = 0;
      log.warn(`LLM ${t.trouble === 'rejected' ? 'access rejected' : 'cannot make tool calls'}; the run is paused until resumed: ${t.message}`);
      // The run's pause reaches a child through the relay: wait to see it, then for the user's resume.
      const kind = pauseKindOf(t.trouble);
      await condition(() => hook.kinds().includes(kind), REJECTION_SEEN_TIMEOUT_MS);
    }
    await condition(() => mayProbe(hook.kinds()));
    try {
      const r = await call();
      if (hook.kinds().includes('llm_outage')) await hook.report({ trouble: 'recovered' });
      else hook.clear?.();
      return r;
    } catch (e) {
      err = e;
    }
  }
}
