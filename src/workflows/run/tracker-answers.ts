// Answers from the run's issue or merge request. While a question or a consultation
// waits (and only then), the run reads the thread's new replies on a durable timer: a conditional
// request (an unchanged thread answers "not modified"), the wait growing while nothing changes and
// following a rate limit's reset. A reply command from a user with write access goes through the
// run's own answer path (the CLI's: RunEntity.answerFromThread; a consultation: the task's
// answerConsultationSignal), so whichever answer comes first wins; the run acknowledges on the
// thread through its delivery queue. The poll's result is in the history before any answer is
// applied: a worker lost between the two replays it and answers once.
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { targetLabel, type NotifyTarget } from '../../domain/notifications';
import { validateConsultationAnswer } from '../../domain/pacemaker';
import { emptyLedger, enqueue } from '../../domain/run/deliveries';
import type { RunState } from '../../domain/run/state';
import {
  afterPoll,
  afterPollFailure,
  answerTaken,
  consultationSent,
  hasAwaitingAnswers,
  markHandled,
  notTaken,
  pollSince,
  pollWaitMs,
  replyAction,
  skipAt,
  type PollResult,
  type SeenCommand,
  type TrackerPollState,
} from '../../domain/run/tracker-answers';
import type { Activities } from '../../activities';
import { taskWorkflowId } from '../execution';
import { rootMessage } from '../failures';
import { answerConsultationSignal } from '../messages';
import type { RunOptions } from '../options';
import { isoNow, type RunEntity } from './entity';

/** The first wait before reading the thread after a question is asked (then ×1.5 while nothing changes, up to 2 minutes). */
export const DEFAULT_POLL_MS = 10_000;

export interface TrackerAnswers {
  /** The run ends: no more polls. */
  stop(): void;
}

const pollActivities = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  // One attempt: the poll's own backoff (and a rate limit's reset) decides when to read again.
  retry: { maximumAttempts: 1 },
  summary: 'read replies',
});

/** The server's wait of a failed poll (a rate limit's reset), from the activity's failure details. */
function retryAfterOf(err: unknown): number | undefined {
  let e: unknown = err;
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  const d = e instanceof ApplicationFailure ? (e.details?.[0] as { retryAfterMs?: unknown } | undefined) : undefined;
  return typeof d?.retryAfterMs === 'number' ? d.retryAfterMs : undefined;
}

export function startTrackerAnswers(p: { target: NotifyTarget; options: RunOptions; entity: RunEntity }): TrackerAnswers {
  const { target, entity, options } = p;
  const label = targetLabel(target);
  const who = target.service === 'github' ? 'GitHub' : 'GitLab';
  const initialMs = options.trackerPollMs ?? DEFAULT_POLL_MS;
  let stopped = false;
  const poll = (): TrackerPollState | undefined => entity.state.tracker;
  const setPoll = (f: (t: TrackerPollState | undefined) => TrackerPollState) => entity.apply((s) => ({ ...s, tracker: f(s.tracker) }));
  const waiting = () => !stopped && hasAwaitingAnswers(entity.state);
  /** The acknowledgement goes out through the delivery queue (in order, durably, found again by its marker). */
  const say = (c: SeenCommand, body: string) =>
    entity.apply((s: RunState) => ({
      ...s,
      notifications: enqueue(s.notifications ?? emptyLedger(target), [{ kind: 'reply', key: `reply-${c.commentId}`, body }]),
    }));

  const consult = async (c: SeenCommand, a: { taskId: string; consultationId: string; choice: string; guidance?: string; by: string }) => {
    const open = entity.state.consultations.find((x) => x.id === a.consultationId);
    const payload = { consultationId: a.consultationId, choice: a.choice, ...(a.guidance ? { guidance: a.guidance } : {}) };
    // The task's own check, asked first so the thread hears why a choice is not taken.
    const v = validateConsultationAnswer(open, payload);
    if (!v.ok) return say(c, notTaken(c.author, v.error));
    try {
      const task = taskWorkflowId(workflowInfo().workflowId, a.taskId, entity.state.phaseRuns.execution ?? 1);
      await getExternalWorkflowHandle(task).signal(answerConsultationSignal, payload);
      say(c, consultationSent(a.consultationId, a.choice, a.by));
    } catch (err) {
      say(c, notTaken(c.author, `task ${a.taskId} could not be reached: ${rootMessage(err)}`));
    }
  };

  const act = async (c: SeenCommand) => {
    const a = replyAction(entity.state, poll(), c, who);
    if (a.do === 'ignore') {
      log.warn(`ignored a reply on ${label}: ${a.why}`);
      if (a.tell) say(c, a.tell);
    } else if (a.do === 'answer') {
      const r = entity.answerFromThread({ questionId: a.questionId, answer: a.answer }, a.by);
      if (!r.ok) log.warn(`a reply on ${label} did not answer ${a.questionId}: ${r.reason}`);
      say(c, r.ok ? answerTaken(a.questionId, a.answer, a.by) : notTaken(c.author, r.reason));
    } else {
      await consult(c, a);
    }
    if (a.do !== 'ignore' || a.tell) setPoll((t) => markHandled(t ?? { idle: 0 }, c.commentId));
  };

  const loop = async () => {
    for (;;) {
      await condition(waiting);
      const wait = pollWaitMs(poll(), initialMs, Date.now());
      // One timer per wait; it ends early when nothing waits for an answer any more (or the run ends).
      if (wait > 0 && (await condition(() => !waiting(), wait))) continue;
      const since = pollSince(poll(), entity.state, isoNow());
      let r: PollResult;
      try {
        const etag = poll()?.since === since ? poll()?.etag : undefined;
        const skip = skipAt(poll(), since);
        r = await pollActivities.pollReplies({ target, since, ...(etag ? { etag } : {}), ...(skip.length ? { skip } : {}) });
      } catch (err) {
        log.warn(`reading the replies on ${label} failed: ${rootMessage(err)}`);
        setPoll((t) => afterPollFailure(t, retryAfterOf(err), Date.now(), initialMs));
        continue;
      }
      setPoll((t) => afterPoll(t, since, r));
      for (const c of r.commands) await act(c);
    }
  };
  // Not cancellable: like the deliveries, reading answers is no part of the phases a budget's "stop" cancels.
  void CancellationScope.nonCancellable(loop);

  return {
    stop() {
      stopped = true;
    },
  };
}
