// O1 safe points inside one workflow: a gate that every LLM activity start and every phase or task
// start waits on while the run is paused (calls in flight finish and are kept), and a relay that
// keeps child workflows told. The run owns the truth (RunState.pause); its children learn it from
// the internal `pauseGate` signal, which each workflow relays to its own children in order.
import { condition, getExternalWorkflowHandle, log, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import { gateKinds, type PauseKind } from '../domain/run/llm-outage';
import type { LlmForm } from './llm-form';
import { callThroughLlmTrouble, type LlmTroubleHook } from './llm-trouble';
import type { HostPresence } from './host-presence';
import { llmTroubleSignal, llmTroubleStateQuery, parsePayload, pauseGateSignal, PauseGateSchema, type LlmTroubleObservation } from './messages';

export interface PauseGate {
  readonly paused: boolean;
  /** Why (O2): a prober of an LLM outage goes on while only 'llm_outage' holds. */
  kinds(): readonly PauseKind[];
  /** Resolves at once when not paused, else when resumed. */
  ready(): Promise<void>;
  /** Wraps activity stubs so that each call first waits for `ready()` (the safe point). */
  gated<T extends object>(activities: T): T;
}

/**
 * A gate whose state `isPaused` reads (the run: its RunState). With `llm` (O2), each gated call
 * that meets an LLM outage or rejection pauses the run instead of failing (llm-trouble.ts). With
 * `form` (M1), each gated call carries the workflow's ladder rung and reports a lower one. With
 * `host` (O2, workspace affinity), a call its workspace host did not start pauses the run while the host is offline.
 */
export function gateOn(isPaused: () => boolean, llm?: LlmTroubleHook, form?: LlmForm, host?: HostPresence): PauseGate {
  const ready = () => (isPaused() ? condition(() => !isPaused()) : Promise.resolve());
  return {
    get paused() {
      return isPaused();
    },
    kinds: () => llm?.kinds() ?? (isPaused() ? ['user'] : []),
    ready,
    gated<T extends object>(stubs: T): T {
      const activities = form ? form.gated(stubs) : stubs;
      return new Proxy(activities, {
        get(target, name, receiver) {
          const f: unknown = Reflect.get(target, name, receiver);
          if (typeof f !== 'function') return f;
          return (...args: unknown[]) => {
            const call = () =>
              callThroughLlmTrouble(
                llm,
                (patch) => {
                  // A call made again after its host was lost may name the lost call's journal (CallAgainPatch).
                  const [input, ...rest] = args;
                  const patched = patch && typeof input === 'object' && input !== null ? { ...input, ...patch } : input;
                  return (f as (...a: unknown[]) => Promise<unknown>)(patched, ...rest);
                },
                host,
              );
            // Not paused: straight through. Every promise a workflow makes costs a stack trace in
            // the SDK, and this runs for every LLM call.
            return isPaused() ? ready().then(call) : call();
          };
        },
      });
    },
  };
}

/**
 * A child workflow's gate, set by its parent's `pauseGate` signal. `onResume` runs on every
 * resume message (even a repeated one), so a parent can tell its own children again. LLM trouble
 * (O2) is reported to the run: the root of the child's workflow chain (none when started on its own).
 */
export function installPauseGate(
  onChange?: (paused: boolean) => void,
  form?: LlmForm,
  host?: HostPresence,
  /** The run (RunOptions.runWorkflowId); absent in runs recorded before it: the root then. */
  runWorkflowId?: string,
): PauseGate {
  let kinds: PauseKind[] = [];
  setHandler(pauseGateSignal, (payload: unknown) => {
    const p = parsePayload(PauseGateSchema, payload);
    if (!p.ok) {
      log.warn(`ignored pauseGate: ${p.reason}`);
      return;
    }
    kinds = gateKinds(p.value);
    onChange?.(kinds.length > 0);
  });
  const info = workflowInfo();
  // The run, not the root: a run the CLI starts is a child of its workspace lock, which has no handler.
  const run = runWorkflowId ?? info.root?.workflowId;
  // S2: the run does not take a trouble report's word for it: it asks this workflow (this query)
  // what its own LLM calls returned, after checking this workflow is one of its own.
  // Each observation numbered: the run takes each one once (freshTroubleObservation).
  let trouble: LlmTroubleObservation | null = null;
  let observed = 0;
  setHandler(llmTroubleStateQuery, () => trouble);
  const llm: LlmTroubleHook | undefined = run
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
        clear: () => {
          trouble = null;
        },
      }
    : undefined;
  return gateOn(() => kinds.length > 0, llm, form, host);
}

/**
 * Keeps the children `targets()` names told whether they are paused: one signal per change per
 * child, sent in order by one loop. A child not yet reachable (just starting) is retried.
 */
export interface PauseRelay {
  /** Tell every current child again (after a resume: undoes a forged pause on a child). */
  retell(): void;
}

const RELAY_ATTEMPTS = 5;

export function startPauseRelay(pauseKinds: () => readonly PauseKind[], targets: () => string[]): PauseRelay {
  // What each child was last told (its kinds, sorted and joined); absent = '' (children start unpaused).
  const told = new Map<string, string>();
  const current = () => [...pauseKinds()].sort().join(',');
  const stale = () => targets().filter((id) => (told.get(id) ?? '') !== current());
  const failures = new Map<string, number>();
  const loop = async () => {
    for (;;) {
      await condition(() => stale().length > 0);
      for (const id of stale()) {
        const key = current();
        const kinds = key ? (key.split(',') as PauseKind[]) : [];
        const paused = kinds.length > 0;
        try {
          await getExternalWorkflowHandle(id).signal(pauseGateSignal, { paused, kinds });
          told.set(id, key);
          failures.delete(id);
        } catch (e) {
          // A child just starting is not reachable yet: retry; one that already ended never will be.
          const n = (failures.get(id) ?? 0) + 1;
          failures.set(id, n);
          log.warn(`could not tell ${id} paused=${paused} (attempt ${n}): ${(e as Error).message}`);
          if (n >= RELAY_ATTEMPTS) {
            told.set(id, key);
            failures.delete(id);
          } else await sleep(1000);
        }
      }
    }
  };
  // The loop lives as long as the workflow; a cancellation of the workflow ends it quietly.
  loop().catch(() => undefined);
  return {
    retell() {
      for (const id of targets()) told.set(id, 'unknown');
    },
  };
}
