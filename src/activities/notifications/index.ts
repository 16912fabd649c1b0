// The notification activities (X10): the checklist comment, one notification, and the
// poll of the thread's replies. The token is the worker's (GITHUB_TOKEN / GITLAB_TOKEN), read here
// at each call: it never travels in a workflow's input, history, memo or log. Every failure leaves
// as an ApplicationFailure whose message, details and cause have every secret value replaced (a
// client's error can echo request headers).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { failureDetails, scrubbedError } from '../../domain/failures';
import {
  checklistMarker,
  classifyDeliveryFailure,
  NOTIFICATION_REJECTED,
  NOTIFICATION_UNAVAILABLE,
  notificationMarker,
  targetAllowed,
  targetLabel,
  withMarker,
  type NotifyService,
  type NotifyTarget,
} from '../../domain/notifications';
import { MAX_COMMANDS_PER_POLL, MAX_REPLIES_READ, parseReplyCommand, type PollResult, type SeenCommand } from '../../domain/run/tracker-answers';
import { redactSecrets, secretValues } from '../tools/redact';
import { githubThread } from './github';
import { gitlabThread } from './gitlab';
import { heartbeating } from '../heartbeat';
import type { CommentThread, RequestProblem } from './thread';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
export const DEFAULT_GITLAB_URL = 'https://gitlab.com';

export interface ChecklistInput {
  runId: string;
  target: NotifyTarget;
  /** The checklist's Markdown (the marker is added here). */
  body: string;
  /** The comment created earlier (run state); absent: find the run's own by its marker, else create it. */
  commentId?: number;
}

export interface NotificationInput {
  runId: string;
  target: NotifyTarget;
  /** Unique within the run: its marker finds a comment a lost attempt already posted. */
  key: string;
  body: string;
  /** An earlier try may have posted it: look for its marker first. */
  lookFirst?: boolean;
}

export interface RepliesInput {
  target: NotifyTarget;
  /** Replies changed at or after this time (ISO, the forge's clock). */
  since: string;
  /** The last poll's ETag: an unchanged thread answers "not modified". */
  etag?: string;
  /** Replies (`id@updatedAt`) read already at `since`. */
  skip?: string[];
}

function threadFor(target: NotifyTarget, env: NodeJS.ProcessEnv): CommentThread {
  if (!targetAllowed(target, env.REPLANNER_NOTIFY_ALLOW)) {
    throw ApplicationFailure.nonRetryable(`${targetLabel(target)} is not in the worker's REPLANNER_NOTIFY_ALLOW`, NOTIFICATION_REJECTED);
  }
  if (target.service === 'github') {
    const token = env.GITHUB_TOKEN?.trim();
    if (!token) throw ApplicationFailure.nonRetryable('GitHub: GITHUB_TOKEN is not set on the worker', NOTIFICATION_REJECTED);
    return githubThread(target, token, env.GITHUB_API_URL?.trim() || DEFAULT_GITHUB_API_URL);
  }
  const token = env.GITLAB_TOKEN?.trim();
  if (!token) throw ApplicationFailure.nonRetryable('GitLab: GITLAB_TOKEN is not set on the worker', NOTIFICATION_REJECTED);
  return gitlabThread(target, token, target.url ?? (env.GITLAB_URL?.trim() || DEFAULT_GITLAB_URL));
}

/**
 * The failure the workflow sees: decided by the retry table (through classifyDeliveryFailure), the
 * upstream's status and body in its details, the client's error as its cause; no secret in any.
 */
export function deliveryFailure(
  service: NotifyService,
  p: RequestProblem,
  err: unknown,
  env: NodeJS.ProcessEnv,
  /** The failure's types, and what was being done (it leads the message): the forge activities' own. */
  as: { rejected: string; unavailable: string; doing?: string } = { rejected: NOTIFICATION_REJECTED, unavailable: NOTIFICATION_UNAVAILABLE },
): ApplicationFailure {
  const secrets = secretValues(env);
  const c = classifyDeliveryFailure({
    service,
    ...(p.status !== undefined ? { status: p.status } : {}),
    ...(p.network !== undefined ? { network: p.network } : {}),
    ...(p.headers ? { headers: p.headers } : {}),
    ...(p.detail ? { detail: redactSecrets(p.detail, secrets) } : {}),
    nowMs: Date.now(),
  });
  return ApplicationFailure.create({
    message: redactSecrets(as.doing ? `${as.doing}: ${c.message}` : c.message, secrets),
    type: c.retryable ? as.unavailable : as.rejected,
    nonRetryable: !c.retryable,
    ...(c.retryAfterMs !== undefined ? { nextRetryDelay: Math.max(1000, c.retryAfterMs) } : {}),
    details: [failureDetails(service, p, c, p.body, secrets)],
    // A copy: the client's error carries its request, whose headers hold the token.
    cause: scrubbedError(err, secrets),
  });
}

const isNotFound = (thread: CommentThread, err: unknown) => thread.problemOf(err).status === 404;

export function createNotificationActivities(env: NodeJS.ProcessEnv = process.env) {
  const deliver = async <T>(target: NotifyTarget, work: (thread: CommentThread) => Promise<T>): Promise<T> => {
    const thread = threadFor(target, env);
    try {
      // Heartbeats while a request runs, so an attempt lost with its worker is retried within seconds.
      return await heartbeating(() => work(thread));
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      throw deliveryFailure(target.service, thread.problemOf(err), err, env);
    }
  };
  return {
    /**
     * The run's one checklist comment, edited in place. Before creating it, the run's own is
     * looked for by its marker: a crash between the create and its recorded result (a retry, or a
     * continued run) never makes a second one.
     */
    async upsertChecklist(input: ChecklistInput): Promise<{ commentId: number }> {
      const marker = checklistMarker(input.runId);
      const body = withMarker(marker, input.body);
      return deliver(input.target, async (thread) => {
        if (input.commentId !== undefined) {
          try {
            await thread.update(input.commentId, body);
            return { commentId: input.commentId };
          } catch (err) {
            // Deleted by someone: make it again (below); anything else is a failure of this edit.
            if (!isNotFound(thread, err)) throw err;
          }
        }
        const found = await thread.find(marker);
        if (found !== undefined) {
          await thread.update(found, body);
          return { commentId: found };
        }
        return { commentId: await thread.create(body) };
      });
    },

    /** One notification, its own comment. A retried attempt first looks for what a lost one posted. */
    async postNotification(input: NotificationInput): Promise<{ commentId: number }> {
      const marker = notificationMarker(input.runId, input.key);
      return deliver(input.target, async (thread) => {
        if (input.lookFirst === true || Context.current().info.attempt > 1) {
          const found = await thread.find(marker);
          if (found !== undefined) return { commentId: found };
        }
        return { commentId: await thread.create(withMarker(marker, input.body)) };
      });
    },

    /**
     * Answers from the thread: the replies changed since the last poll that carry a command (`/answer`,
     * `/consult`), each with whether its author may write to the repository. A conditional
     * request: an unchanged thread answers "not modified" at no cost.
     */
    async pollReplies(input: RepliesInput): Promise<PollResult> {
      return deliver(input.target, async (thread) => {
        const page = await thread.changedSince(input.since, input.etag, MAX_REPLIES_READ);
        if (page.notModified) return { notModified: true, ...(page.etag ? { etag: page.etag } : {}), commands: [] };
        const skip = new Set(input.skip ?? []);
        const fresh = page.comments.filter((c) => !skip.has(`${c.id}@${c.updatedAt}`));
        const writers = new Map<string, Promise<boolean>>();
        const commands: SeenCommand[] = [];
        let read = 0;
        for (const c of fresh) {
          const command = parseReplyCommand(c.body);
          if (command && commands.length >= MAX_COMMANDS_PER_POLL) break;
          read++;
          if (!command) continue;
          if (!writers.has(c.author)) writers.set(c.author, thread.canWrite(c));
          const authorised = await writers.get(c.author)!;
          commands.push({ commentId: c.id, author: c.author, createdAt: c.createdAt, updatedAt: c.updatedAt, authorised, command });
        }
        const key = (c: { id: number; updatedAt: string }) => `${c.id}@${c.updatedAt}`;
        if (read < fresh.length) {
          // More commands than one poll takes: read from the same point again (no ETag), skipping these.
          return { notModified: false, newest: input.since, atNewest: fresh.slice(0, read).map(key), commands };
        }
        const newest = page.comments.reduce<string | undefined>(
          (m, c) => (m === undefined || Date.parse(c.updatedAt) > Date.parse(m) ? c.updatedAt : m),
          undefined,
        );
        return {
          notModified: false,
          ...(page.etag ? { etag: page.etag } : {}),
          ...(newest ? { newest, atNewest: page.comments.filter((c) => c.updatedAt === newest).map(key) } : {}),
          commands,
        };
      });
    },
  };
}
