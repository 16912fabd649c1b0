// How a run leaves this workflow: it continues as new between phases when its history grows, or
// ends: done, blocked (a failure, typed, with the final result: it must not look like a success),
// stopped by its budget, cancelled, or failed. Each ending publishes the final state and lets the
// notifications go out first.
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  log,
  workflowInfo,
} from '@temporalio/workflow';
import { cancelRun, completeRun, failRun } from '../../domain/run/phases';
import { statusView } from '../../domain/run/views';
import type { Phase } from '../../domain/types';
import { rootMessage } from '../failures';
import type { RunOptions } from '../options';
import type { RunEntity } from './entity';
import type { Notifier } from './notifications';
import { resultOf, type HeldLock, type RunInput, type RunResult } from './start';

export interface RunEnd {
  entity: RunEntity;
  notifier: Notifier;
}

/**
 * Continue-as-new before phase `next` when the history grows (never before the first phase this
 * workflow ran), carrying the whole state; the checklist comment's id with it, once the deliveries
 * in flight finished.
 */
export async function continueAsNewIfDue(
  p: RunEnd & {
    input: RunInput;
    options: RunOptions;
    next: Phase;
    phasesRun: number;
    lock: HeldLock | undefined;
    settle?: { settled(): Promise<void> };
  },
): Promise<void> {
  const info = workflowInfo();
  if (p.phasesRun === 0) return;
  if (!info.continueAsNewSuggested && info.historyLength < p.options.continueAsNewAfterEvents) return;
  await condition(allHandlersFinished);
  // G1: the run's commits under way end first (their results would be lost with this history).
  if (p.settle) await p.settle.settled();
  log.info(`continue-as-new before ${p.next} (history ${info.historyLength} events)`);
  p.entity.publish();
  await p.notifier.drain(false);
  const carry = { state: p.entity.state, next: p.next, ...(p.lock ? { lock: p.lock } : {}) };
  await continueAsNew<(input: RunInput) => Promise<RunResult>>({ ...p.input, carry });
}

/** Another running run holds the workspace: this one starts nothing and fails, typed, naming it (once its starter had a moment to delete it). */
export async function refused(entity: RunEntity, hold: { reason: string; holder?: string }, awaitDeletion: () => Promise<void>): Promise<never> {
  entity.apply((s) => failRun(s, hold.reason));
  entity.publish();
  await awaitDeletion();
  throw ApplicationFailure.create({ message: hold.reason, type: 'WorkspaceBusy', nonRetryable: true, details: [{ holder: hold.holder }] });
}

/** The phases ran out: the run is DONE, or BLOCKED naming the tasks that could not finish. */
export async function completed({ entity, notifier }: RunEnd): Promise<void> {
  entity.apply(completeRun);
  entity.publish();
  await notifier.drain(true);
}

/**
 * The result of a completed run. One that did not reach its goal is not a green "Completed" in the
 * Web UI or `temporal workflow list`: it fails, typed, with the final result in the failure's details.
 */
export function outcome(entity: RunEntity): RunResult {
  const final = resultOf(statusView(entity.state));
  if (final.status === 'DONE') return final;
  const why = final.blocked.map((b) => `${b.taskId}: ${b.reason}`).join('; ');
  throw ApplicationFailure.create({
    message: `run ${final.runId} ended ${final.status}${why ? ` (${why.slice(0, 1000)})` : ''}`,
    type: 'RunBlocked',
    nonRetryable: true,
    details: [final],
  });
}

/** The phases ended early (`err`): stopped by the budget, cancelled or failed; a continue-as-new passes through. */
export async function endedEarly(err: unknown, { entity, notifier }: RunEnd): Promise<never> {
  if (err instanceof ContinueAsNew) throw err;
  if (entity.state.status === 'STOPPED') {
    entity.publish();
    await notifier.drain(true);
    // The user answered "stop" to the budget question: a failed workflow, typed, with the final result.
    const final = resultOf(statusView(entity.state));
    throw ApplicationFailure.create({
      message: `run ${final.runId} ${entity.state.error ?? 'stopped by its budget'}`,
      type: 'RunStoppedByBudget',
      nonRetryable: true,
      details: [final],
    });
  }
  if (isCancellation(err)) {
    await CancellationScope.nonCancellable(async () => {
      entity.apply(cancelRun);
      entity.publish();
    });
    throw err;
  }
  const error = rootMessage(err);
  entity.apply((s) => failRun(s, error));
  entity.publish();
  await notifier.drain(true);
  throw ApplicationFailure.create({ message: error, type: 'RunFailed', nonRetryable: true, details: [resultOf(statusView(entity.state))] });
}
