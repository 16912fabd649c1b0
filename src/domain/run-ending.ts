// What `status`, `decisions` and `watch` show for a run no worker can answer for. A
// closed run shows its final state: what the workflow recorded in its memo, except when Temporal
// itself ended it (terminate, execution timeout), which the workflow never saw; a running run whose
// task queue nobody polls says which queue and how to start its worker. Pure: src/client/runs.ts
// calls these with what Temporal's describe and history say.
import { emptyCounters } from './replan/limits';
import { ENDED_BY_TEMPORAL, finalStatusOfExecution, isFinalStatus, withOpenQuestionsClosed } from './run/closed';
import type { DecisionsView, RunStatusView } from './run/views';
import { replannerCommand } from './printed-commands';

/** Temporal's execution status of a closed workflow (describe: status.name). */
export type TemporalClosedStatus = 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'TIMED_OUT' | 'CONTINUED_AS_NEW' | 'UNKNOWN';

/** How Temporal says the run ended, from the close event of its history. */
export interface RunEnding {
  temporalStatus: TemporalClosedStatus;
  /** The terminate reason, the failure message, …; absent when history did not say. */
  reason?: string;
  /** Who terminated it (the identity on the terminate request). */
  by?: string;
  /** ISO time the run closed. */
  at?: string;
}

/** The one line that says how Temporal ended a run, e.g. `terminated by alice@host: stuck (at …)`. */
export function endingLine(e: RunEnding): string {
  const what = e.temporalStatus === 'TIMED_OUT' ? 'timed out (its execution timeout passed)' : e.temporalStatus.toLowerCase().replace(/_/g, ' ');
  const by = e.by ? ` by ${e.by}` : '';
  const why = e.reason ? `: ${e.reason}` : '';
  const at = e.at ? ` (at ${e.at})` : '';
  return `${what}${by}${why}${at}`;
}

/**
 * The final status of a closed run. What the workflow recorded wins, unless Temporal ended the run
 * behind its back (terminated, timed out) or before it recorded an end: then the status is Temporal's
 * and the recorded state (tasks, usage so far) is kept beside it. No question of a closed run is
 * open: each one still open is closed, with why (nobody can answer it now), and no consultation or
 * pause holds.
 */
export function closedRunStatus(p: {
  runId: string;
  recorded?: RunStatusView;
  ending: RunEnding;
  /** The memo's instruction and workspace (set at start), for a run that recorded nothing. */
  memo?: { instruction?: unknown; workspace?: unknown };
}): RunStatusView {
  const byTemporal = (ENDED_BY_TEMPORAL as readonly string[]).includes(p.ending.temporalStatus);
  if (p.recorded && !byTemporal && isFinalStatus(p.recorded.status)) return withOpenQuestionsClosed(p.recorded, p.recorded.status);
  const base: RunStatusView = p.recorded ?? {
    runId: p.runId,
    instruction: typeof p.memo?.instruction === 'string' ? p.memo.instruction : '',
    workspace: typeof p.memo?.workspace === 'string' ? p.memo.workspace : '',
    phase: 'finished',
    status: 'FAILED',
    tasks: [],
    phaseRuns: {},
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0 },
    blocked: [],
  };
  const status = finalStatusOfExecution(p.ending.temporalStatus);
  const view: RunStatusView = withOpenQuestionsClosed({ ...base, phase: 'finished', status, error: `the run was ${endingLine(p.ending)}` }, status);
  delete view.waiting;
  delete view.consultations;
  delete view.pause;
  delete view.pauses;
  return view;
}

/**
 * The decision log of a closed run that ended `finalStatus`: what it recorded (its questions still
 * open closed, with why), else an empty log (it decided nothing that was kept).
 */
export function closedRunDecisions(recorded: DecisionsView | undefined, finalStatus: string): DecisionsView {
  return recorded ? withOpenQuestionsClosed(recorded, finalStatus) : { records: [], dropped: 0, counters: emptyCounters(), questions: [] };
}

/**
 * How to start a worker for `queue`, for the user to type: the caller's own environment already
 * routes there (`npx replanner worker`); else the settings the CLI recorded for a worker it once
 * started there; else the queue by name, with the LLM settings the run should use.
 */
export function workerStartHint(p: { queue: string; callerQueue: string; recorded?: { endpoint: string; model: string } }): string {
  if (p.queue === p.callerQueue) return `start its worker from this shell: ${replannerCommand('worker')}`;
  const env = p.recorded
    ? `OPENAI_BASE_URL=${p.recorded.endpoint} REPLANNER_MODEL=${p.recorded.model} OPENAI_API_KEY=<key>`
    : `REPLANNER_TASK_QUEUE=${p.queue} OPENAI_BASE_URL=<endpoint> REPLANNER_MODEL=<model> OPENAI_API_KEY=<key>`;
  return `start its worker: ${env} ${replannerCommand('worker')}`;
}
