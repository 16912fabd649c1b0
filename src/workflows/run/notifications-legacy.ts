// X10 / X11: the run's notifications as runs recorded before the delivery queue (./notifications.ts,
// patch DURABLE_DELIVERIES) send them, kept unchanged so those runs replay: each delivery retried
// by its activity's retry policy (5 attempts), then counted as failed.
//
// The run's notifications, sent while its phases go on. The run calls `observe(state)` each time it
// publishes its state (once per activation); what to post is decided by pure functions of
// src/domain/notifications from the last observed state and this one. Deliveries run in the
// background, never in front of a phase: at most one checklist edit in flight (the latest text
// wins), notifications one after another in order. A delivery that fails after its retries is
// counted in the run's state (status "Notifications" line) and never fails, blocks or pauses the run.
import { ActivityCancellationType, CancellationScope, condition, log, proxyActivities } from '@temporalio/workflow';
import { targetLabel, type NotifyTarget } from '../../domain/notifications';
import { emptyLedger, noteDelivered, noteUndelivered } from '../../domain/run/deliveries';
import { checklistText, notificationsBetween, type Notification } from '../../domain/run/notifications-due';
import type { RunState } from '../../domain/run/state';
import type { Activities } from '../../activities';
import { rootMessage } from '../failures';
import type { RunOptions } from '../options';
import type { RunEntity } from './entity';

/** How long the end of a run (or a continue-as-new) waits for deliveries still in flight. */
const DRAIN_TIMEOUT_MS = 5 * 60_000;

/**
 * Retries: 401/403/404 come back as NotificationRejected (not retried: they will not fix
 * themselves); a rate limit is retried at its reset (the activity sets the next delay), 5xx and no
 * response with backoff. Five attempts keep a delivery's life to a minute or two.
 */
function notifyActivities(o: RunOptions) {
  return (summary: string) =>
    proxyActivities<Activities>({
      startToCloseTimeout: '1 minute',
      // The activity heartbeats while its request runs: an attempt lost with its worker is retried soon.
      heartbeatTimeout: '10 seconds',
      cancellationType: ActivityCancellationType.TRY_CANCEL,
      retry: {
        initialInterval: o.llmRetryInitialMs,
        backoffCoefficient: 2,
        maximumInterval: '1 minute',
        maximumAttempts: 5,
        nonRetryableErrorTypes: ['NotificationRejected'],
      },
      summary,
    });
}

export function startLegacyNotifier(p: {
  target: NotifyTarget;
  options: RunOptions;
  entity: Pick<RunEntity, 'state' | 'apply'>;
  now: () => string;
}): { observe(state: RunState): void; drain(): Promise<void> } {
  const { target, entity, now } = p;
  const runId = entity.state.runId;
  const acts = notifyActivities(p.options);
  if (!entity.state.notifications) entity.apply((s) => ({ ...s, notifications: emptyLedger(target) }));
  const ledger = (s: RunState) => s.notifications ?? emptyLedger(target);
  const delivered = (commentId?: number) => entity.apply((s) => ({ ...s, notifications: noteDelivered(ledger(s), commentId) }));
  const undelivered = (what: string, err: unknown) => {
    const error = rootMessage(err);
    log.warn(`notification to ${targetLabel(target)} not delivered (${what}): ${error}`);
    entity.apply((s) => ({ ...s, notifications: noteUndelivered(ledger(s), error, now()) }));
  };

  let last = entity.state;
  // A continued run: the checklist as it stood is already posted (or its failure counted).
  let wanted = entity.state.notifications?.checklistCommentId !== undefined ? checklistText(entity.state) : undefined;
  let tried = wanted;
  let editing = false;
  const queue: Notification[] = [];
  let sending = false;

  const editChecklist = async () => {
    if (editing) return;
    editing = true;
    try {
      while (wanted !== undefined && wanted !== tried) {
        const body = wanted;
        tried = body;
        const commentId = entity.state.notifications?.checklistCommentId;
        try {
          const r = await acts('checklist').upsertChecklist({ runId, target, body, ...(commentId !== undefined ? { commentId } : {}) });
          delivered(r.commentId);
        } catch (err) {
          undelivered('checklist', err);
        }
      }
    } finally {
      editing = false;
    }
  };

  const send = async () => {
    if (sending) return;
    sending = true;
    try {
      for (let n = queue.shift(); n; n = queue.shift()) {
        try {
          await acts(n.kind.replace(/_/g, ' ')).postNotification({ runId, target, key: n.key, body: n.body });
          delivered();
        } catch (err) {
          undelivered(n.kind, err);
        }
      }
    } finally {
      sending = false;
    }
  };

  const idle = () => !editing && !sending && queue.length === 0 && (wanted === undefined || wanted === tried);

  return {
    observe(state) {
      const prev = last;
      last = state;
      const due = prev === state ? [] : notificationsBetween(prev, state, now());
      // Not cancellable: a phase cancelled (the budget's "stop") does not cancel what is being posted.
      if (due.length) {
        queue.push(...due);
        void CancellationScope.nonCancellable(send);
      }
      const text = checklistText(state);
      if (text !== undefined && text !== wanted) {
        wanted = text;
        void CancellationScope.nonCancellable(editChecklist);
      }
    },
    async drain() {
      if (idle()) return;
      if (await condition(idle, DRAIN_TIMEOUT_MS)) return;
      const left = queue.length + (sending ? 1 : 0) + (editing ? 1 : 0);
      log.warn(`${left} notification(s) to ${targetLabel(target)} still retrying when the run ended`);
      entity.apply((s) => ({ ...s, notifications: { ...ledger(s), failed: ledger(s).failed + left } }));
    },
  };
}
