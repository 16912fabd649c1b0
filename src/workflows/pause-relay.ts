// O1: how a pause reaches the children of a workflow. The run owns the truth (RunState.pause); its
// children learn it from the internal `pauseGate` signal, which each workflow relays to its own
// children in order (the run to its phase, the execution phase to its tasks). Each child's call gate
// (call-gate.ts) holds its calls while it is told it is paused.
import { condition, getExternalWorkflowHandle, log, sleep } from '@temporalio/workflow';
import type { PauseKind } from '../domain/run/llm-outage';
import { pauseGateSignal } from './messages';

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
