// What can hold an LLM call back: the one gate every LLM call of a run passes (each phase, the
// execution phase, each task, and the run's own replan decisions), in this order:
//
//   1. budget lease (O3)     the call waits until it fits the workflow's token loan; a loan used up
//                            is asked of the parent (token-loans.ts; the run's own: run/budget-ledger.ts),
//                            and the run, with nothing left, pauses with the budget question.
//   2. pause (O1)            the call waits while the run is paused (a child learns it from its
//                            parent's `pauseGate` signal, pause-relay.ts); calls in flight finish.
//   3. LLM trouble (O2)      a call that fails because the LLM is unavailable, rejects the key, cannot
//                            make tool calls or is too slow never fails the workflow: the run is told
//                            and pauses; an outage is probed with a backoff, anything else waits for
//                            the user's resume; then the call is made again.
//   4. fallback level (M1)   the call carries the ladder's rung the workflow knows (and whether the
//                            server streams); a result that went lower teaches the workflow.
//   5. workspace host (O2)   a call on the workspace host's queue that no worker of the host started in
//                            time: the host's presence queue is asked; there (busy) → called again
//                            after a backoff; offline → the run pauses until the host answers.
//
// A stage a call does not need costs nothing: no signal, no timer, no workflow task, no promise
// more than the call's own, when the budget has room (or there is none), the run is not paused and
// the level has not changed. Trouble and loans are the only stages that send anything, and only
// when they happen, so history grows by the call's own events.
import { ActivityFailure, ApplicationFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { condition, getExternalWorkflowHandle, log, patched, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { lowerRung, noStreamOf, rungOf, type LlmRung, type LlmRungReport } from '../domain/llm-form';
import {
  gateKinds,
  llmTroubleOf,
  mayProbe,
  pauseKindOf,
  probeDelayMs,
  recoveryToTell,
  type LlmTrouble,
  type PauseKind,
  type ToldTrouble,
} from '../domain/run/llm-outage';
import type { TokenUsage } from '../domain/usage';
import { presenceQueueOf } from '../domain/workspace-host';
import {
  llmTroubleSignal,
  llmTroubleStateQuery,
  parsePayload,
  pauseGateSignal,
  PauseGateSchema,
  type LlmTroubleMessage,
  type LlmTroubleObservation,
} from './messages';
import type { RunOptions } from './options';

/** One workflow's gate. */
export interface CallGate {
  readonly paused: boolean;
  /** Why the run is paused, as this workflow knows it (O2: a prober goes on while only outages hold). */
  kinds(): readonly PauseKind[];
  /** The pause stage alone: resolves at once when not paused, else when resumed (also the safe point of phase and task starts). */
  ready(): Promise<void>;
  /** Activity stubs whose every call passes the stages in order. */
  gated<T extends object>(activities: T): T;
  /** M1: a level a child workflow's result reports (anything else is ignored). */
  learned(report: unknown): void;
}

/** Stage 1: the workflow's side of the token loans (token-loans.ts; the run: run/budget-ledger.ts). */
export interface BudgetStage {
  /** False: no budget; the stage is skipped without an await (the commands' order stays as without budgets). */
  readonly limited: boolean;
  /** Waits until a call fits; returns the call's key for `after`. */
  before(): Promise<number>;
  /** The call ended (usage undefined: it failed, nothing known spent). */
  after(key: number, usage: TokenUsage | undefined): void;
}

/** Stage 3: where LLM trouble is told. */
interface TroubleHook {
  kinds(): readonly PauseKind[];
  /** Tells the run; never throws. */
  report(m: LlmTroubleMessage): Promise<void>;
  /** A call got through after trouble that needs no report (a rejection the user resumed): the trouble is over. */
  clear?(): void;
}

/** Stage 5: whether the workspace host's worker is there. */
interface HostPresence {
  isHostTrouble(err: unknown): boolean;
  present(): Promise<boolean>;
}

interface Stages {
  budget?: BudgetStage;
  isPaused(): boolean;
  /** Absent (a workflow with nobody to tell, started on its own): failures propagate as they are. */
  trouble?: TroubleHook;
  options: RunOptions;
  /** M1: the level went down (or streaming stopped). */
  onLower?: (rung: LlmRung | undefined, stream: false | undefined) => void;
  host?: HostPresence;
  /** The run's own calls pass the pause stage with one await even when not paused (as its recorded histories did). */
  alwaysAwaitPause?: boolean;
}

type Call = (...args: unknown[]) => Promise<unknown>;

/** A call made again after its host lost it names the lost call's activity, whose journal may answer it (journal.ts). */
interface CallAgainPatch {
  journalOf?: string;
}

const usageIn = (r: unknown): TokenUsage | undefined => {
  const u = (r as { usage?: TokenUsage } | null | undefined)?.usage;
  return u && typeof u.totalTokens === 'number' ? u : undefined;
};

function callGate(st: Stages): CallGate {
  const ready = () => (st.isPaused() ? condition(() => !st.isPaused()) : Promise.resolve());

  // 4. fallback level: the rung (and streaming) learned from any result.
  const learned = (report: unknown) => {
    const r = report as LlmRungReport | null | undefined;
    const o = st.options;
    const low = lowerRung(o.llm?.rung, rungOf(r?.llmRung));
    // A server that refused streaming is not asked to stream again (the same memory as the rung).
    const noStream = noStreamOf(r?.llmStream) === false && o.llm?.stream !== false;
    if (!noStream && (low === undefined || low === o.llm?.rung)) return;
    o.llm = { ...o.llm, ...(low !== undefined ? { rung: low } : {}), ...(noStream || o.llm?.stream === false ? { stream: false as const } : {}) };
    st.onLower?.(low, o.llm.stream);
  };
  const leveled = (f: Call, input: unknown, rest: unknown[]) => {
    // Read at the call (after the pause): a level learned meanwhile applies at once.
    const arg = st.options.llm && typeof input === 'object' && input !== null ? { ...input, llm: st.options.llm } : input;
    return f(arg, ...rest).then((r) => {
      learned(r);
      return r;
    });
  };

  // 3 → 4 → 5: the call itself, through LLM trouble.
  const troubled = (f: Call, args: unknown[]) => {
    const [input, ...rest] = args;
    const call = (patch?: CallAgainPatch) => leveled(f, patch && typeof input === 'object' && input !== null ? { ...input, ...patch } : input, rest);
    // No trouble costs one promise more than the call (the SDK captures a stack trace for every promise a workflow makes).
    return st.trouble ? call().catch((err: unknown) => throughTrouble(st.trouble!, call, err, st.host)) : call();
  };
  // 2 → 3: not paused: straight through.
  const unpaused = (f: Call, args: unknown[]) => (st.alwaysAwaitPause || st.isPaused() ? ready().then(() => troubled(f, args)) : troubled(f, args));
  // 1 → 2: with a budget, each call is reserved until it ends, so calls side by side never share tokens.
  const budgeted = async (b: BudgetStage, f: Call, args: unknown[]) => {
    const key = await b.before();
    try {
      const r = await unpaused(f, args);
      b.after(key, usageIn(r));
      return r;
    } catch (e) {
      // A failed call is not known to have used tokens; its reservation is returned.
      b.after(key, undefined);
      throw e;
    }
  };

  return {
    get paused() {
      return st.isPaused();
    },
    kinds: () => st.trouble?.kinds() ?? (st.isPaused() ? ['user'] : []),
    ready,
    learned,
    gated<T extends object>(stubs: T): T {
      return new Proxy(stubs, {
        get(target, name, receiver) {
          const f: unknown = Reflect.get(target, name, receiver);
          if (typeof f !== 'function') return f;
          return (...args: unknown[]) => (st.budget?.limited ? budgeted(st.budget, f as Call, args) : unpaused(f as Call, args));
        },
      });
    },
  };
}

// ------------------------------------------------------------------ 3. LLM trouble (and 5. the host)

/** A rejection not yet relayed back by the run is waited for this long before the caller looks again. */
const REJECTION_SEEN_TIMEOUT_MS = 60_000;

function troubleOf(err: unknown): { trouble: LlmTrouble; message: string } | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const trouble = llmTroubleOf(err.cause.type ?? undefined);
  return trouble ? { trouble, message: err.cause.message } : undefined;
}

/**
 * After `call` failed with `first`: pause and probe (or wait for the resume) until it succeeds.
 * - unavailable: this caller probes: it waits a capped backoff (less when the outage pause ends
 *   meanwhile) and calls again, through the outage pause but never through any other; the first
 *   call that succeeds tells the run, which ends the outage pause only;
 * - rejected, unsupported (M1: no tool calls) or slow (M1: past a progress limit after its quick
 *   retries): this caller waits until the user resumes the run, then calls again;
 * - host offline: see hostIsThere.
 * Told once per pause, not per probe: a long outage does not grow the run's history.
 */
async function throughTrouble<R>(hook: TroubleHook, call: (patch?: CallAgainPatch) => Promise<R>, first: unknown, host?: HostPresence): Promise<R> {
  let err = first;
  let probes = 0;
  let busy = 0;
  /** What this caller told the run (it tells the run it got through, recoveryToTell). */
  const told: ToldTrouble = { outage: false, host: false };
  // The first call the host did not finish: a later one made again reads its journal, if it wrote one.
  let patch: CallAgainPatch | undefined;
  for (;;) {
    if (host?.isHostTrouble(err)) {
      if (!patch && err instanceof ActivityFailure && err.activityId) patch = { journalOf: err.activityId };
      if (await hostIsThere(hook, host, told)) {
        // There but busy (its activity slots all taken): wait a backoff, then ask again. Not offline.
        busy += 1;
        const wait = probeDelayMs(busy);
        log.warn(`the workspace host's worker did not start a call in time but is there (busy); calling again in ${wait / 1000} s`);
        await sleep(wait);
      } else busy = 0;
      const again = await callAgain(hook, () => call(patch), told);
      if (again.ok) return again.value;
      err = again.err;
      continue;
    }
    const t = troubleOf(err);
    if (!t) throw err;
    if (!hook.kinds().includes(pauseKindOf(t.trouble))) {
      await hook.report({ trouble: t.trouble, error: t.message });
      if (t.trouble === 'unavailable') told.outage = true;
    }
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
    const again = await callAgain(hook, () => call(patch), told);
    if (again.ok) return again.value;
    err = again.err;
  }
}

/** The patch that makes a caller tell the run of its own recovery (recoveryToTell); asked only when that is all there is to tell. */
const TELLS_OWN_RECOVERY_PATCH = 'gate-tells-the-run-its-own-recovery';

/** Calls again once only outages hold; a success ends the outage (or host-offline) pause it probed through. */
async function callAgain<R>(
  hook: TroubleHook,
  call: () => Promise<R>,
  told: ToldTrouble,
): Promise<{ ok: true; value: R } | { ok: false; err: unknown }> {
  await condition(() => mayProbe(hook.kinds()));
  try {
    const r = await call();
    const kinds = hook.kinds();
    const own = recoveryToTell(kinds, told, false) === undefined && recoveryToTell(kinds, told, true) !== undefined;
    const tell = recoveryToTell(kinds, told, own && patched(TELLS_OWN_RECOVERY_PATCH));
    if (tell) await hook.report({ trouble: tell });
    else hook.clear?.();
    return { ok: true, value: r };
  } catch (err) {
    return { ok: false, err };
  }
}

/**
 * 5. True when the host answers at once (there, just busy); otherwise the run is told it is offline
 * and the host is probed (5 s doubling, at most every 60 s; sooner when another caller saw it back)
 * until it answers: false (it was offline, now back).
 */
async function hostIsThere(hook: TroubleHook, host: HostPresence, told: ToldTrouble): Promise<boolean> {
  if (await host.present()) return true;
  for (let probes = 1; ; probes++) {
    if (!hook.kinds().includes('host_offline')) {
      await hook.report({ trouble: 'host_offline' });
      told.host = true;
    }
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

/** How long the presence probe may wait for the host's worker to start it. */
const PRESENCE_START_TIMEOUT_MS = 3_000;

const notStarted = (err: unknown): boolean =>
  err instanceof ActivityFailure && err.cause instanceof TimeoutFailure && err.cause.timeoutType === TimeoutType.SCHEDULE_TO_START;

/**
 * Every activity on the host's queue has a short schedule-to-start timeout (options.ts placed), which
 * alone cannot tell a dead host from a busy one, nor can the queue's pollers within seconds. So the
 * host is asked itself: a no-op activity on its presence queue, served with slots no run's work
 * takes. Absent without a host queue (a run with one machine).
 */
function hostPresenceOf(hostQueue: string | undefined): HostPresence | undefined {
  if (!hostQueue) return undefined;
  const probe = proxyActivities<Activities>({
    taskQueue: presenceQueueOf(hostQueue),
    scheduleToStartTimeout: PRESENCE_START_TIMEOUT_MS,
    startToCloseTimeout: '10 seconds',
    retry: { maximumAttempts: 1 },
    summary: 'is the workspace host there?',
  });
  return {
    isHostTrouble: notStarted,
    // Started but failed (say, cut off): a worker of the host took it, so the host is there.
    present: () =>
      probe.hostPresent().then(
        () => true,
        (e: unknown) => !notStarted(e),
      ),
  };
}

// ------------------------------------------------------------------ the gates of the run's workflows

/**
 * A child workflow's gate (a phase, the execution phase, a task): its budget stage is its loan
 * (`budget`, from token-loans.ts installLease); it is paused while its parent says so (the
 * `pauseGate` signal; `onPauseChange` runs on every such signal, even a repeated one, so a parent can
 * tell its own children again); LLM trouble is told to the run (options.runWorkflowId; in runs
 * recorded before it, the root of the workflow chain), which reads what happened from this workflow.
 */
export function installCallGate(options: RunOptions, budget: BudgetStage, onPauseChange?: (paused: boolean) => void): CallGate {
  let kinds: PauseKind[] = [];
  setHandler(pauseGateSignal, (payload: unknown) => {
    const p = parsePayload(PauseGateSchema, payload);
    if (!p.ok) return log.warn(`ignored pauseGate: ${p.reason}`);
    kinds = gateKinds(p.value);
    onPauseChange?.(kinds.length > 0);
  });
  const info = workflowInfo();
  const run = options.runWorkflowId ?? info.root?.workflowId;
  // S2: the run does not take a trouble report's word for it: it asks this workflow (this query)
  // what its own LLM calls returned, after checking this workflow is one of its own. Each
  // observation numbered: the run takes each one once (freshTroubleObservation).
  let trouble: LlmTroubleObservation | null = null;
  let observed = 0;
  setHandler(llmTroubleStateQuery, () => trouble);
  const hook: TroubleHook | undefined = run
    ? {
        kinds: () => kinds,
        report: async (m) => {
          observed += 1;
          trouble = { ...m, n: observed };
          try {
            await getExternalWorkflowHandle(run).signal(llmTroubleSignal, { from: info.workflowId });
          } catch (e) {
            log.warn(`could not tell the run ${run} about LLM trouble (${m.trouble}): ${(e as Error).message}`);
          }
        },
        // S2: a rejection the user resumed and that got through is over: naming this workflow later pauses nothing.
        clear: () => void (trouble = null),
      }
    : undefined;
  return callGate({ budget, isPaused: () => kinds.length > 0, trouble: hook, options, host: hostPresenceOf(options.hostQueue) });
}

/** The run's own gate: its state says whether it is paused and takes its LLM trouble directly; its budget is the ledger. */
export function runCallGate(p: {
  options: RunOptions;
  budget: BudgetStage;
  isPaused: () => boolean;
  kinds: () => readonly PauseKind[];
  llmTrouble: (m: LlmTroubleMessage) => void;
  onLower: (rung: LlmRung | undefined, stream: false | undefined) => void;
}): CallGate {
  return callGate({
    budget: p.budget,
    isPaused: p.isPaused,
    trouble: { kinds: p.kinds, report: async (m) => p.llmTrouble(m) },
    options: p.options,
    onLower: p.onLower,
    host: hostPresenceOf(p.options.hostQueue),
    alwaysAwaitPause: true,
  });
}

/** M1: what a workflow's result says about the level (nothing while at the top). */
export function levelReport(options: RunOptions): LlmRungReport {
  return { ...(options.llm?.rung ? { llmRung: options.llm.rung } : {}), ...(options.llm?.stream === false ? { llmStream: false as const } : {}) };
}
