// O2 at every LLM call site: `gated` (pause-gate.ts) runs each call through here. An LLM that
// is unavailable or rejects access past the call's quick retries never fails the call: the run is
// told (llmTrouble signal, or directly for the run itself) and pauses; then
// - unavailable: this caller is a prober: it waits a capped backoff (probeDelayMs; less when the
//   outage pause ends meanwhile) and calls again, through the outage pause but never through the
//   user's (or any other) pause; the first call that succeeds tells the run, which ends the outage
//   pause only;
// - rejected (or unsupported, M1: no tool calls; or slow, M1: connected but past a progress limit
//   after its quick retries): this caller waits until the user resumes the run, then calls again at once; a second
//   rejection pauses again.
// - host offline (workspace affinity): a call on the workspace host's queue that no worker of the
//   host started in time: this caller asks the host's presence queue (host-presence.ts); the host
//   there (busy, or back) → the call again after a backoff; not there → the run pauses ("workspace
//   host … offline since …") and this caller probes the host with the outage's backoff until it
//   answers, then calls again and tells the run, which ends that pause.
// Nothing is sent while calls succeed: history grows only when there is trouble.
import { ActivityFailure, ApplicationFailure, condition, log, sleep } from '@temporalio/workflow';
import { llmTroubleOf, mayProbe, pauseKindOf, probeDelayMs, type LlmTrouble, type PauseKind } from '../domain/run/llm-outage';
import type { LlmTroubleMessage } from './messages';
import type { HostPresence } from './host-presence';

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

/**
 * What a call made again may add to its input: `journalOf`, the activity id of the call the host
 * lost, so a reply it journaled on the host before dying answers the new call (journal.ts).
 */
export interface CallAgainPatch {
  journalOf?: string;
}

/** Runs `call`; without a hook (a workflow started on its own, no run above it) failures propagate as they are. */
export function callThroughLlmTrouble<R>(
  hook: LlmTroubleHook | undefined,
  call: (patch?: CallAgainPatch) => Promise<R>,
  host?: HostPresence,
): Promise<R> {
  if (!hook) return call();
  // The common case, no trouble, costs one promise more than the call (the SDK captures a stack
  // trace for every promise a workflow makes).
  return call().catch((err: unknown) => throughTrouble(hook, call, err, host));
}

/** After `call` failed with `first`: pause and probe (or wait for the resume) until it succeeds. */
async function throughTrouble<R>(
  hook: LlmTroubleHook,
  call: (patch?: CallAgainPatch) => Promise<R>,
  first: unknown,
  host?: HostPresence,
): Promise<R> {
  let err = first;
  let probes = 0;
  let busy = 0;
  // The first call the host did not finish: a later one made again reads its journal, if it wrote one.
  let patch: CallAgainPatch | undefined;
  for (;;) {
    if (host?.isHostTrouble(err)) {
      if (!patch && err instanceof ActivityFailure && err.activityId) patch = { journalOf: err.activityId };
      if (await hostIsThere(hook, host)) {
        // There but busy (its activity slots all taken): wait a backoff, then ask again. Not offline.
        busy += 1;
        const wait = probeDelayMs(busy);
        log.warn(`the workspace host's worker did not start a call in time but is there (busy); calling again in ${wait / 1000} s`);
        await sleep(wait);
      } else busy = 0;
      const again = await callAgain(hook, () => call(patch));
      if (again.ok) return again.value;
      err = again.err;
      continue;
    }
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
      const what = t.trouble === 'rejected' ? 'access rejected' : t.trouble === 'slow' ? 'too slow for its limits' : 'cannot make tool calls';
      log.warn(`LLM ${what}; the run is paused until resumed: ${t.message}`);
      // The run's pause reaches a child through the relay: wait to see it, then for the user's resume.
      const kind = pauseKindOf(t.trouble);
      await condition(() => hook.kinds().includes(kind), REJECTION_SEEN_TIMEOUT_MS);
    }
    const again = await callAgain(hook, () => call(patch));
    if (again.ok) return again.value;
    err = again.err;
  }
}

/** Calls again once only outages hold; a success ends the outage (or host-offline) pause it probed through. */
async function callAgain<R>(hook: LlmTroubleHook, call: () => Promise<R>): Promise<{ ok: true; value: R } | { ok: false; err: unknown }> {
  await condition(() => mayProbe(hook.kinds()));
  try {
    const r = await call();
    const kinds = hook.kinds();
    if (kinds.includes('llm_outage')) await hook.report({ trouble: 'recovered' });
    else if (kinds.includes('host_offline')) await hook.report({ trouble: 'host_back' });
    else hook.clear?.();
    return { ok: true, value: r };
  } catch (err) {
    return { ok: false, err };
  }
}

/**
 * O2 workspace host: true when the host answers at once (there, just busy); otherwise the run is
 * told it is offline and the host is probed (5 s doubling, at most every 60 s; sooner when another
 * caller saw it back) until it answers: false (it was offline, now back).
 */
async function hostIsThere(hook: LlmTroubleHook, host: HostPresence): Promise<boolean> {
  if (await host.present()) return true;
  for (let probes = 1; ; probes++) {
    if (!hook.kinds().includes('host_offline')) await hook.report({ trouble: 'host_offline' });
    const wait = probeDelayMs(probes);
    log.warn(`the workspace host has no worker; the run is paused, asking again in ${wait / 1000} s`);
    const end = Date.now() + wait;
    const offline = () => hook.kinds().includes('host_offline');
    await condition(offline, wait);
    if (end > Date.now()) await condition(() => !offline(), end - Date.now());
    await condition(() => mayProbe(hook.kinds()));
    if (await host.present()) return false;
  }
}
