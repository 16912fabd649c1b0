// One truth for a run's state (V4). Temporal's own status of the run's execution comes first: a
// closed execution (completed, failed, cancelled, terminated, timed out) is an ended run, whatever
// its search attribute or memo last said, and is never shown WAITING, RUNNING or PAUSED; its
// questions that were still open are closed, with why, and nobody is told how to answer them.
// Pure: `list`, `status`, `decisions` and `watch` (src/client) and the run's own ending call these.
import type { Question } from '../replan/questions';
import type { ShownRunStatus } from './state';

/** Temporal's execution statuses (describe and list: status.name) of an execution that has ended. */
const CLOSED: readonly string[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT'];

/**
 * The execution has ended for good. Continued-as-new is not: the run goes on in its next execution
 * (a describe of the workflow id reads that one).
 */
export const isClosedExecution = (status: string): boolean => CLOSED.includes(status);

/** The statuses a run shows once it has ended. */
export const FINAL_STATUSES: readonly ShownRunStatus[] = ['DONE', 'BLOCKED', 'FAILED', 'CANCELLED', 'STOPPED', 'TERMINATED', 'TIMED_OUT'];

export const isFinalStatus = (status: string): boolean => (FINAL_STATUSES as readonly string[]).includes(status);

/** Statuses only Temporal can give a run: the workflow code never ran to record them. */
export const ENDED_BY_TEMPORAL = ['TERMINATED', 'TIMED_OUT'] as const;

/**
 * What a run shows, from Temporal's status of its execution first. An open execution shows what the
 * run says of itself (its search attribute; RUNNING before it said anything). A closed one shows
 * Temporal's word when Temporal ended it (terminated, timed out), else the final status the run
 * recorded (memo, then search attribute), else what Temporal's status means.
 */
export function shownStatus(p: { execution: string; searchStatus?: string; recordedStatus?: string }): string {
  if (!isClosedExecution(p.execution)) return p.searchStatus ?? 'RUNNING';
  if ((ENDED_BY_TEMPORAL as readonly string[]).includes(p.execution)) return p.execution;
  for (const s of [p.recordedStatus, p.searchStatus]) if (s !== undefined && isFinalStatus(s)) return s;
  return finalStatusOfExecution(p.execution);
}

/** The final status a closed execution means when the run recorded none. */
export function finalStatusOfExecution(execution: string): ShownRunStatus {
  switch (execution) {
    case 'TERMINATED':
    case 'TIMED_OUT':
    case 'CANCELLED':
      return execution;
    case 'COMPLETED':
      return 'DONE';
    default:
      return 'FAILED';
  }
}

/** Why a question still open when the run ended can no longer be answered: "the run was cancelled". */
export function closedWhy(finalStatus: string): string {
  return Object.hasOwn(CLOSED_WHY, finalStatus) ? CLOSED_WHY[finalStatus]! : `the run ended ${finalStatus}`;
}

const CLOSED_WHY: Readonly<Record<string, string>> = {
  CANCELLED: 'the run was cancelled',
  TERMINATED: 'the run was terminated',
  TIMED_OUT: 'the run timed out',
  FAILED: 'the run failed',
  STOPPED: 'the run was stopped',
};

/** Every question still open, closed with `why`; the others as they are. */
export function closeOpenQuestions(questions: readonly Question[], why: string): Question[] {
  return questions.map((q) => (q.status === 'pending' ? { ...q, status: 'closed', closedWhy: why } : q));
}

/** A view of a run (status or decisions): once its status is final, no question in it is open. */
export function withOpenQuestionsClosed<V extends { questions?: Question[] }>(view: V, status: string): V {
  if (!isFinalStatus(status) || !view.questions?.some((q) => q.status === 'pending')) return view;
  return { ...view, questions: closeOpenQuestions(view.questions, closedWhy(status)) };
}
