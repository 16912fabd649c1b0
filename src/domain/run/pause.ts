// The run's pauses. The user pauses and resumes (O1); an LLM call past its quick retries pauses the
// run for an outage, a rejected key or a model without tool calls, so a run never fails for a
// reason the user can fix (O2); a workspace host with no worker pauses it too. The budget's pause
// is kept by ./budget-ledger and shown here.
import { lowerRung, type LlmRung } from '../llm-form';
import { budgetPaused, budgetPauseView } from './budget-ledger';
import { PROBE_INITIAL_MS, PROBE_MAX_MS, shortError, type LlmTrouble, type PauseKind } from './llm-outage';
import type { Applied, PauseState, RunState, RunStatusValue } from './state';
import { replannerCommand } from '../printed-commands';

export const MAX_PAUSE_REASON_CHARS = 2000;

/** The one predicate: no new phase, task, worker step or LLM call starts while it holds, whoever paused. */
export const isPaused = (s: RunState): boolean => s.status === 'RUNNING' && (s.pause !== undefined || s.llmPause !== undefined || budgetPaused(s));

/** Every pause that holds, the user's first. */
export const activePauses = (s: RunState): PauseState[] =>
  s.status === 'RUNNING' ? [s.pause, s.llmPause, budgetPauseView(s)].filter((p) => p !== undefined) : [];

/** Why the run is paused, for the gate and its children (pauseGate). */
export const pauseKinds = (s: RunState): PauseKind[] => activePauses(s).map((p) => p.kind);

/**
 * What `status` and the ReplannerStatus search attribute show: WAITING while a question or a
 * consultation waits for a person's answer (even paused: the answer comes first; a budget pause is
 * its question), else PAUSED while a pause holds, else the stored status.
 */
export const displayStatus = (s: RunState): RunStatusValue => {
  if (s.status !== 'RUNNING') return s.status;
  if (s.consultations.length > 0 || s.questions.some((q) => q.status === 'pending')) return 'WAITING';
  if (isPaused(s)) return 'PAUSED';
  // G5: its tasks are done and it follows its pull request.
  return s.git?.pr?.following ? 'FOLLOWING' : 'RUNNING';
};

/** The outcome of a pause or resume: `changed` false when it was already so (acknowledged, not an error). */
export type PauseApplied = { ok: true; state: RunState; changed: boolean } | { ok: false; reason: string };

/** Pause a running run; pausing a paused run keeps the first pause (its reason and since). */
export function pauseRun(s: RunState, p: { reason?: string; at: string }): PauseApplied {
  if (s.status !== 'RUNNING') return { ok: false, reason: `the run already ended: ${s.status}` };
  if (s.pause) return { ok: true, state: s, changed: false };
  const reason = p.reason?.trim().slice(0, MAX_PAUSE_REASON_CHARS);
  return { ok: true, state: { ...s, pause: { kind: 'user', by: 'user', ...(reason ? { reason } : {}), since: p.at } }, changed: true };
}

/**
 * Resume a paused run; resuming a running one is acknowledged and changes nothing. It ends the
 * user's pause and an LLM pause too (after a rejected key, `resume` retries at once; during an
 * outage, every call tries again and the first that still fails pauses the run again).
 */
export function resumeRun(s: RunState): PauseApplied {
  if (s.status !== 'RUNNING') return { ok: false, reason: `the run already ended: ${s.status}` };
  if (!s.pause && !s.llmPause) return { ok: true, state: s, changed: false };
  const next = { ...s };
  delete next.pause;
  delete next.llmPause;
  return { ok: true, state: next, changed: true };
}

/**
 * Between phases no LLM call is in flight, so nothing probes an outage any more (its prober's
 * workflow ended): the outage pause ends and the next phase's first call is the probe (a failing
 * one pauses again). The user's pause and a rejection stay.
 */
export function endUnprobedOutage(s: RunState): RunState {
  if (s.llmPause?.kind !== 'llm_outage' && s.llmPause?.kind !== 'host_offline') return s;
  const next = { ...s };
  delete next.llmPause;
  return next;
}

/**
 * A workflow of the run learned that the server needs a lower rung of the structured-output
 * fallback ladder, or that the server refuses streaming (`stream` false); neither ever goes back up.
 */
export function noteLlmRung(s: RunState, rung: LlmRung | undefined, stream?: false): RunState {
  const low = lowerRung(s.llmRung, rung);
  const noStream = s.llmNoStream === true || stream === false;
  if (low === s.llmRung && noStream === (s.llmNoStream === true)) return s;
  return { ...s, llmRung: low, ...(noStream ? { llmNoStream: true as const } : {}) };
}

/** An LLM call of the run reports trouble past its quick retries, or that it succeeded again. */
export interface LlmTroubleMessage {
  /** 'host_back': a call on the workspace host's queue got through after 'host_offline'. */
  trouble: LlmTrouble | 'recovered' | 'host_back';
  /** The failure's message (for 'rejected' it names the fix); clipped for the reason. */
  error?: string;
}

/**
 * Workspace affinity: the run's workspace host has no worker. Nothing is lost: the call that
 * found it gone waits and probes, and the run goes on by itself when that host's worker polls again.
 */
export function hostOfflineReason(s: Pick<RunState, 'host' | 'runId'>, at: string): string {
  const host = s.host ?? 'of the workspace';
  return (
    `workspace host ${host} offline since ${at}: no worker of that host takes the run's workspace work; ` +
    `it goes on by itself when one polls again (on ${host}: ${replannerCommand('worker')}, with REPLANNER_HOST=${host} and REPLANNER_WORKSPACE_ROOTS holding the workspace), ` +
    `or stop it: ${replannerCommand('cancel', s.runId)}`
  );
}

/**
 * An outage pauses the run ('llm_outage', since the first report; a rejection stays a
 * rejection); a rejected access pauses it with the fix named ('llm_rejected', replacing an
 * outage); 'recovered' ends only an outage pause — never the user's, never a rejection (only
 * `resume` ends those). Changes nothing on a finished run.
 */
export function applyLlmTrouble(s: RunState, m: LlmTroubleMessage, at: string): Applied {
  if (s.status !== 'RUNNING') return { ok: false, reason: `the run already ended: ${s.status}` };
  const error = shortError(m.error ?? 'no detail');
  if (m.trouble === 'recovered' || m.trouble === 'host_back') {
    if (s.llmPause?.kind !== (m.trouble === 'recovered' ? 'llm_outage' : 'host_offline')) return { ok: true, state: s };
    const next = { ...s };
    delete next.llmPause;
    return { ok: true, state: next };
  }
  if (m.trouble === 'host_offline') {
    if (s.llmPause) return { ok: true, state: s };
    return { ok: true, state: { ...s, llmPause: { kind: 'host_offline', by: 'host', reason: hostOfflineReason(s, at), since: at } } };
  }
  if (m.trouble === 'unavailable') {
    if (s.llmPause) return { ok: true, state: s };
    const reason = `LLM unavailable since ${at}: ${error}; retrying by itself with backoff (${PROBE_INITIAL_MS / 1000} s doubling, at most every ${PROBE_MAX_MS / 1000} s)`;
    return { ok: true, state: { ...s, llmPause: { kind: 'llm_outage', by: 'llm', reason, since: at } } };
  }
  const kind = m.trouble === 'unsupported' ? 'llm_unsupported' : m.trouble === 'slow' ? 'llm_slow' : 'llm_rejected';
  if (s.llmPause?.kind === kind) return { ok: true, state: s };
  // A model without tool calls, or too slow for the run's limits, pauses with the fix named, like a rejected key: `resume` retries.
  const what =
    m.trouble === 'unsupported' ? 'LLM cannot make tool calls' : m.trouble === 'slow' ? 'LLM too slow for its limits' : 'LLM access rejected';
  const reason = `${what}: ${shortError(m.error ?? 'no detail', 600).replace(/<runId>/g, s.runId)}`;
  return { ok: true, state: { ...s, llmPause: { kind, by: 'llm', reason, since: at } } };
}
