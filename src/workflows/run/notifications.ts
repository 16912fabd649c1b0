// The run's deliveries to its issue or merge request, run beside its phases. The run
// calls `observe(state)` each time it publishes its state; what became due (src/domain/run/
// notifications-due.ts) joins the delivery queue kept in the run's state (src/domain/run/
// deliveries.ts), and the checklist comment's text is recomputed. One loop delivers: the queue's
// head first, in order, then the checklist when its text changed (the latest text wins). A try that
// meets an outage, a timeout or a rate limit waits on one workflow timer (the server's reset, else
// backoff) and tries again, for as long as the run lives; one refused for good is counted and said.
// A delivery never fails, blocks or pauses the run. Its end flushes, bounded, and records what is left.
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  log,
  proxyActivities,
} from '@temporalio/workflow';
import { NOTIFICATION_REJECTED, targetLabel, type NotifyTarget } from '../../domain/notifications';
import {
  emptyLedger,
  enqueue,
  nextDelivery,
  noteFailed,
  noteLeft,
  noteSent,
  waitLeftMs,
  type DeliveryFailureFacts,
  type NextDelivery,
  type NotificationLedger,
} from '../../domain/run/deliveries';
import { notificationsBetween } from '../../domain/run/notifications-due';
import type { RunState } from '../../domain/run/state';
import { trackerChecklist } from '../../domain/run/tracker-comment';
import type { Activities } from '../../activities';
import { rootMessage } from '../failures';
import type { RunOptions } from '../options';
import type { RunEntity } from './entity';
import { startTrackerAnswers, type TrackerAnswers } from './tracker-answers';

/** How long the end of a run flushes what is still queued, at most (a wait that ends later is cut to one last try). */
export const FLUSH_TIMEOUT_MS = 5 * 60_000;

export interface Notifier {
  /** The run published `state`: queue what became due, recompute the checklist's text. */
  observe(state: RunState): void;
  /**
   * `final`: the run ends: a bounded flush, then what is left is recorded. Otherwise (continue-as-
   * new) the queue is carried in the state and only the try in flight is waited for.
   */
  drain(final: boolean): Promise<void>;
}

const NO_NOTIFIER: Notifier = { observe: () => undefined, drain: async () => undefined };

export interface NotifierDeps {
  target: NotifyTarget | undefined;
  options: RunOptions;
  entity: RunEntity;
  now: () => string;
}

export function startNotifier(p: NotifierDeps): Notifier {
  if (!p.target) return NO_NOTIFIER;
  const target = p.target;
  const answers = startTrackerAnswers({ ...p, target });
  return startQueue({ ...p, target }, answers);
}

/** One attempt per try: the run's queue decides when to try again (no attempt cap, no retry hidden from `status`). */
function deliveryActivities(summary: string) {
  return proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    // The activity heartbeats while its request runs: a try lost with its worker fails within seconds.
    heartbeatTimeout: '10 seconds',
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: { maximumAttempts: 1 },
    summary,
  });
}

/** What a failed try said: the activity's failure (the retry table's verdict and wait in its details), or a timeout. */
function failureFacts(err: unknown): DeliveryFailureFacts {
  let e: unknown = err;
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  if (e instanceof ApplicationFailure) {
    const d = e.details?.[0] as { retryAfterMs?: unknown } | undefined;
    const wait = typeof d?.retryAfterMs === 'number' ? { retryAfterMs: d.retryAfterMs } : {};
    return { refused: e.type === NOTIFICATION_REJECTED || e.nonRetryable === true, message: e.message, ...wait };
  }
  // A timeout (the request hung, or the worker was lost): the post may have been made.
  return { refused: false, message: rootMessage(err) };
}

function startQueue(p: NotifierDeps & { target: NotifyTarget }, answers: TrackerAnswers): Notifier {
  const { target, entity, options } = p;
  const runId = entity.state.runId;
  const ledger = (s: RunState = entity.state): NotificationLedger => s.notifications ?? emptyLedger(target);
  const update = (f: (l: NotificationLedger) => NotificationLedger) => entity.apply((s) => ({ ...s, notifications: f(ledger(s)) }));
  if (!entity.state.notifications) update((l) => l);

  let last = entity.state;
  let checklist = trackerChecklist(entity.state);
  let busy = false;
  /** Set when the run's end begins its flush: no wait goes past it. */
  let flushBy: number | undefined;
  /** The flush made its one try past a wait it could not sit out. */
  let lastTried = false;
  let stopped = false;
  let looping = true;
  const next = () => nextDelivery(ledger(), checklist);
  const idle = () => !busy && next() === undefined;

  const tryOne = async (d: NextDelivery): Promise<void> => {
    busy = true;
    try {
      if (d.what === 'notification') {
        const n = d.item;
        const r = await deliveryActivities(n.kind.replace(/_/g, ' ')).postNotification({
          runId,
          target,
          key: n.key,
          body: n.body,
          ...(n.maybePosted ? { lookFirst: true } : {}),
        });
        update((l) => noteSent(l, d, r.commentId));
      } else {
        const commentId = ledger().checklistCommentId;
        const r = await deliveryActivities('checklist').upsertChecklist({
          runId,
          target,
          body: d.body,
          ...(commentId !== undefined ? { commentId } : {}),
        });
        update((l) => noteSent(l, d, r.commentId));
      }
    } catch (err) {
      const f = failureFacts(err);
      log.warn(`${d.what === 'checklist' ? 'checklist' : `notification ${d.item.key}`} to ${targetLabel(target)} not delivered: ${f.message}`);
      update((l) => noteFailed(l, d, f, Date.now(), options.llmRetryInitialMs));
    } finally {
      busy = false;
    }
  };

  /** Waits out the delivery's wait (one timer); 'stop' when the run's flush cannot wait any longer. */
  const waited = async (): Promise<'try' | 'stop'> => {
    for (;;) {
      const left = waitLeftMs(ledger(), Date.now());
      if (left <= 0) return 'try';
      if (flushBy !== undefined && Date.now() + left > flushBy) {
        // The end cannot wait this long: one last try now, then what is left is recorded.
        if (lastTried) return 'stop';
        lastTried = true;
        return 'try';
      }
      const seen = flushBy;
      if (!(await condition(() => stopped || flushBy !== seen, left))) return 'try';
      if (stopped) return 'stop';
    }
  };

  const loop = async (): Promise<void> => {
    try {
      for (;;) {
        await condition(() => stopped || next() !== undefined);
        if (stopped) return;
        if ((await waited()) === 'stop') return;
        const d = next();
        if (d) await tryOne(d);
      }
    } finally {
      looping = false;
    }
  };
  // Not cancellable: a phase cancelled (the budget's "stop") does not cancel what is being posted.
  void CancellationScope.nonCancellable(loop);

  return {
    observe(state) {
      const prev = last;
      last = state;
      const due = prev === state ? [] : notificationsBetween(prev, state, p.now(), { repliesRead: true });
      if (due.length) update((l) => enqueue(l, due));
      checklist = trackerChecklist(entity.state);
    },
    async drain(final) {
      if (!final) {
        // Continue-as-new carries the queue and its wait; the try in flight (bounded by its timeouts) finishes first.
        await condition(() => !busy);
        return;
      }
      answers.stop();
      if (!idle()) {
        const bound = options.notifyFlushMs ?? FLUSH_TIMEOUT_MS;
        flushBy = Date.now() + bound;
        // Bounded: the loop stops at the flush's end; a try in flight ends within its own timeouts.
        await condition(() => idle() || !looping, bound + 90_000);
      }
      stopped = true;
      if (!idle()) {
        update((l) => noteLeft(l, checklist));
        log.warn(`${ledger().left ?? 0} notification(s) to ${targetLabel(target)} not delivered when the run ended`);
      }
    },
  };
}
