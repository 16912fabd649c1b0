// A task never moves backwards in any view. The run learns a task's progress from its execution
// phase, and its memo (what `status` reads when no worker answers) is written when a task ends, not
// when it starts: read from the memo after its worker died, a task that was running showed READY.
// So a view also looks at the task's own workflow, as Temporal says it is: a task whose workflow is
// open has started, whatever the run last recorded. One whose worker died stays RUNNING, marked
// "worker lost, retrying", until it moves on (its lost step retried by a worker, or no worker to
// retry it yet). Pure: src/client/running-tasks.ts observes, this decides.
import { TaskState, type TaskRecord } from '../types';

/** A task as a view shows it: its record, and when its worker was lost, a note saying so. */
export type ShownTask = TaskRecord & {
  /** Its worker died and its step waits to be tried again: "worker lost, retrying …". */
  workerLost?: string;
};

/** Why the last try of an activity failed, as far as telling a lost worker goes. */
export type LastFailure = 'heartbeat_timeout' | 'start_to_close_timeout' | 'other';

/** What Temporal says of one task's workflow. */
export interface TaskWorkflowSeen {
  /** The task's workflow is open (it started and has not closed); false: it ran and has ended. */
  open: boolean;
  /** Its activities waiting to finish (a worker step, a judge call): each try's number and why the last try failed. */
  activities: { attempt: number; lastFailure?: LastFailure }[];
}

/** The task's step was lost with its worker: Temporal tries it again on a live worker. */
export const WORKER_LOST_RETRYING = 'worker lost, retrying';
/** … and no worker polls the run's queue to try it again yet. */
export const WORKER_LOST_WAITING = 'worker lost, retrying once a worker polls again';

const OPEN_STATES: readonly TaskState[] = [TaskState.READY, TaskState.RUNNING, TaskState.NEEDS_CONTINUATION];

/** A try that ended because its worker stopped answering: no heartbeat in time, or no result in time. */
const lostTry = (a: { attempt: number; lastFailure?: LastFailure }) =>
  a.attempt > 1 && (a.lastFailure === 'heartbeat_timeout' || a.lastFailure === 'start_to_close_timeout');

/**
 * One task as a view shows it. `seen`: its workflow as Temporal says it is (absent: none found, or
 * not asked); `served`: a live worker polls the run's queue. A READY task whose workflow is open is
 * RUNNING; a task whose workflow is open is marked worker lost when its step was lost with its
 * worker (a try past the first, after a timeout) or when no worker serves the run. A finished task,
 * and a task whose workflow is not open, are shown as recorded (never moved back).
 */
export function taskAsSeen(t: TaskRecord, seen: TaskWorkflowSeen | undefined, served: boolean): ShownTask {
  if (!seen || !OPEN_STATES.includes(t.state)) return t;
  // It ran and ended, and the run has not been told yet: it started, so it is not READY again.
  if (!seen.open) return t.state === TaskState.READY ? { ...t, state: TaskState.RUNNING } : t;
  const state = t.state === TaskState.READY ? TaskState.RUNNING : t.state;
  const lost = !served ? WORKER_LOST_WAITING : seen.activities.some(lostTry) ? WORKER_LOST_RETRYING : undefined;
  return { ...t, state, ...(lost ? { workerLost: lost } : {}) };
}

/** Every task of a view as seen (`seen` by task id). */
export function tasksAsSeen(tasks: readonly TaskRecord[], seen: ReadonlyMap<string, TaskWorkflowSeen>, served: boolean): ShownTask[] {
  return tasks.map((t) => taskAsSeen(t, seen.get(t.id), served));
}
