// An LLM the user can fix never ends a run FAILED (O2). The pure rules the workflows call:
// which failures are LLM trouble, how long a prober waits between probes, and which pauses a
// prober may go through. The run's pause transitions live in ./state (applyLlmTrouble).
import { clipLine } from '../text';

/** ApplicationFailure types set by src/llm/errors.ts (kept here so workflow code can read them without the openai client). */
export const LLM_UNAVAILABLE = 'LlmUnavailable';
export const LLM_ACCESS_REJECTED = 'LlmAccessRejected';
/** The model or server cannot make tool calls (src/domain/llm-form.ts). */
export const LLM_UNSUPPORTED = 'LlmUnsupported';
/**
 * The server connected and then ran out of a progress limit (no first token, a stalled reply,
 * the total cap: src/domain/llm-timeouts.ts). Not an outage: the call is retried like a blip; past
 * its quick retries the run pauses with the setting to raise named, until resumed.
 */
export const LLM_SLOW = 'LlmSlow';

/**
 * What an LLM call that failed past its quick retries means for the run. 'host_offline': a call on
 * the workspace host's queue found no worker of that host (workspace affinity; ./host-offline.ts).
 */
export type LlmTrouble = 'unavailable' | 'rejected' | 'unsupported' | 'slow' | 'host_offline';

/** The failure type at the bottom of an activity failure → the trouble it is, or undefined (a real failure). */
export function llmTroubleOf(failureType: string | undefined): LlmTrouble | undefined {
  if (failureType === LLM_UNAVAILABLE) return 'unavailable';
  if (failureType === LLM_ACCESS_REJECTED) return 'rejected';
  if (failureType === LLM_UNSUPPORTED) return 'unsupported';
  if (failureType === LLM_SLOW) return 'slow';
  return undefined;
}

export const PROBE_INITIAL_MS = 5_000;
export const PROBE_MAX_MS = 60_000;

/** The wait before probe `n` (1, 2, …) of an outage: 5 s doubling, capped at 60 s. */
export function probeDelayMs(n: number): number {
  const k = Number.isFinite(n) && n >= 1 ? Math.floor(n) : 1;
  return Math.min(PROBE_MAX_MS, PROBE_INITIAL_MS * 2 ** Math.min(k - 1, 20));
}

/** Why a run (or a child told by it) is paused; several may hold at once. */
export const PAUSE_KINDS = ['user', 'llm_outage', 'llm_rejected', 'llm_unsupported', 'llm_slow', 'budget', 'host_offline'] as const;
export type PauseKind = (typeof PAUSE_KINDS)[number];

/**
 * A prober of an outage (the LLM's, or the workspace host's) retries its call while the run is
 * paused only for outages; any other pause (the user's, a rejected key, …) holds it like every other call.
 */
export const mayProbe = (kinds: readonly PauseKind[]): boolean => kinds.every((k) => k === 'llm_outage' || k === 'host_offline');

/** The pause kind of an LLM trouble. */
export function pauseKindOf(trouble: LlmTrouble): PauseKind {
  if (trouble === 'host_offline') return 'host_offline';
  if (trouble === 'slow') return 'llm_slow';
  return trouble === 'unavailable' ? 'llm_outage' : trouble === 'rejected' ? 'llm_rejected' : 'llm_unsupported';
}

/** A child's pause kinds from its parent's pauseGate message (an older message carries only `paused`: the user's pause). */
export function gateKinds(m: { paused: boolean; kinds?: readonly PauseKind[] | undefined }): PauseKind[] {
  if (!m.paused) return [];
  const kinds = [...new Set(m.kinds ?? [])];
  return kinds.length ? kinds : ['user'];
}

/** One line of an error for a pause reason (no stack, no multi-KB body). */
export const shortError = (message: string, max = 300): string => clipLine(message, max);
