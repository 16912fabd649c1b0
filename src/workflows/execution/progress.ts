// The execution phase's progress, for the run (its `status` stays live while tasks run). The
// phase only pokes the run ("look again"); the run reads the task states from this workflow itself
// (the executionProgress query, through a local activity that checks this workflow is its child),
// so a poke forged from outside shows nothing the phase did not do. The query answers a delta: the
// tasks changed after the version the run has. Pokes are fired, never awaited on the critical
// path; none when nothing changed since the last.
import { CancellationScope, log, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { executionDecisionNote, MAX_NOTES_PER_READ } from '../../domain/run/event-log';
import { TaskState } from '../../domain/types';
import type { TokenUsage } from '../../domain/usage';
import { rootMessage } from '../failures';
import { executionProgressQuery } from '../messages';
import type { TaskBoard } from './board';
import type { Inbox } from './inbox';
import type { ExecutionDecision, ExecutionInput, SchedulerEvent } from './types';

export interface ProgressReports {
  /**
   * A poke when something changed since the last one, while a task runs (when none runs, the phase
   * is about to end and its result carries the states) or `force` (the run paused while only
   * decisions are pending).
   */
  report(force?: boolean): void;
  /** The scheduler's turn is over: a poke for what it changed (with the events taken together, once). */
  turnDone(): void;
  /** Before the phase returns: no poke is left in flight, and none is sent after. */
  delivered(): Promise<void>;
  /** A failed or cancelled phase has no result: its last states go to the run by one more poke. */
  lastReport(): Promise<void>;
}

export function reportProgress(
  input: ExecutionInput,
  board: TaskBoard,
  events: Inbox<SchedulerEvent>,
  spent: () => { usage: TokenUsage; decisions: ExecutionDecision[] },
): ProgressReports {
  // The poke is a local activity: one marker in this history where a signal command is two events
  // (initiated, signaled), at one poke per scheduler turn that changed a task (so the history grows
  // by a few events per LLM call). It holds this workflow task's completion for one signal round
  // trip (a few ms).
  const pokeRun = proxyLocalActivities<Activities>({
    startToCloseTimeout: '10 seconds',
    retry: { initialInterval: '200 milliseconds', maximumAttempts: 3 },
  }).pokeRunProgress;
  let poked = 0;
  /** Set when the phase ends: its result carries the final states. */
  let closing = false;
  // A poke's reply may reach this workflow in a later workflow task than the one that sent it (the
  // worker evicted it meanwhile, or the task was heartbeated), and a replay delivers that reply at
  // the start of the task that recorded it: earlier than it came. So what is sent must not depend
  // on when replies come: each change is poked once, when this turn's events are all taken, however
  // many pokes are still in flight.
  const pokes = new Set<Promise<void>>();
  setHandler(executionProgressQuery, (since?: unknown, decisionsFrom?: unknown) => {
    const { usage, decisions } = spent();
    const from = typeof since === 'number' && Number.isFinite(since) ? since : 0;
    // The decisions asked since the run's count, so `watch` shows them while the phase runs.
    const told = typeof decisionsFrom === 'number' && Number.isSafeInteger(decisionsFrom) && decisionsFrom >= 0 ? decisionsFrom : decisions.length;
    const notes = decisions.slice(told, told + MAX_NOTES_PER_READ).map((d) => executionDecisionNote(d.taskId, d.decision, d.parseError));
    return {
      round: input.round,
      seq: board.version,
      tasks: board.changedSince(from),
      usage,
      ...(notes.length ? { decisions: notes, decisionsFrom: told } : {}),
    };
  });
  // A poke must not be interrupted by a cancellation, or the run would show stale states.
  const poke = () => CancellationScope.nonCancellable(() => pokeRun({ runWorkflowId: input.runWorkflowId }));
  const warn = (e: unknown) => log.warn(`could not tell the run about progress: ${rootMessage(e)}`);
  const wanted = (force: boolean) => !closing && board.version > poked && (force || board.tasks.some((t) => t.state === TaskState.RUNNING));

  const report = (force = false) => {
    if (!wanted(force)) return;
    poked = board.version;
    const sent: Promise<void> = poke().then(
      () => void pokes.delete(sent),
      (e: unknown) => {
        pokes.delete(sent);
        warn(e);
      },
    );
    pokes.add(sent);
  };
  const delivered = async () => {
    closing = true;
    await CancellationScope.nonCancellable(() => Promise.all([...pokes]));
  };
  return {
    report,
    turnDone: () => {
      if (!events.waiting()) report();
    },
    delivered,
    async lastReport() {
      await delivered();
      closing = false;
      report(true);
      await delivered();
    },
  };
}
