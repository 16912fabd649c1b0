// G3 / G4: one pull request (GitHub) or merge request (GitLab), as the forge activities need it:
// find it by its head branch, create it, edit it, mark it ready, read what its checks and
// reviewers say, and the comment thread it shares with the notifications. One adapter per service
// (github-pr.ts, gitlab-mr.ts) over its well-kept client library.
import { isBotAccount, isOwnText } from '../../domain/pull-request/feedback';
import type {
  EnsurePullRequestInput,
  FeedbackCursor,
  PullRequestCheck,
  PullRequestComment,
  PullRequestFeedback,
  PullRequestRef,
  ReadFeedbackInput,
} from '../../domain/pull-request/types';
import { REQUEST_TIMEOUT_MS, type CommentThread, type RequestProblem } from '../notifications/thread';

export interface PullRequestApi {
  /** The newest pull request whose head is `head` (a branch of the same repository), whatever its state. */
  find(head: string): Promise<PullRequestRef | undefined>;
  /** Opens it (`created: true`); throws what the forge said (see `unopenable`, `exists`). */
  create(input: EnsurePullRequestInput): Promise<PullRequestRef>;
  update(number: number, change: { title?: string; body?: string }): Promise<void>;
  /** Takes it out of draft (a no-op when it is not a draft). */
  markReady(number: number): Promise<PullRequestRef>;
  read(input: ReadFeedbackInput, deadline: ReadDeadline): Promise<PullRequestFeedback>;
  /** Its conversation (GitHub: issue comments; GitLab: merge request notes). */
  thread(number: number): CommentThread;
  /** What a failed request said (status, headers, body), without its request (which holds the token). */
  problemOf(err: unknown): RequestProblem;
  /**
   * The forge refused to open it for want of a push: the head has no commits beyond the base
   * ('no-commits', GitHub), or the forge does not have the head branch (yet: 'no-branch').
   */
  unopenable(err: unknown): 'no-commits' | 'no-branch' | undefined;
  /** The forge refused to open it because one is open for the head already. */
  exists(err: unknown): boolean;
}

/** A review's text with its line comments, at most (code points). */
export const MAX_REVIEW_CHARS = 6000;
/** Bytes of a failed job's log read, from its end (the prompt keeps less: domain/pull-request/checks.ts). */
export const LOG_READ_BYTES = 64 * 1024;

/** Users whose authority is remembered per run, at most (a long thread's readers beyond are asked again). */
const MAX_AUTHORITY = 200;

/**
 * G4: who may review, asked of the forge once per user per run: `known` is the run's cache (carried
 * in its state), grown with every answer; `ask` asks the forge.
 */
export function authorityCache(known: Record<string, boolean> | undefined, ask: (login: string, id?: number) => Promise<boolean>) {
  const cache = new Map(Object.entries(known ?? {}));
  return {
    async of(login: string, id?: number): Promise<boolean> {
      const hit = cache.get(login);
      if (hit !== undefined) return hit;
      const may = await ask(login, id);
      cache.set(login, may);
      return may;
    },
    snapshot: (): Record<string, boolean> => Object.fromEntries([...cache].slice(-MAX_AUTHORITY)),
  };
}

/**
 * A read's time: every request gets what is left of it (at most a request's own limit), and the
 * extras (a failed job's log, a review's line comments) are read only while enough is left; without
 * them a trigger still carries the check's summary or the review's body.
 */
export interface ReadDeadline {
  /** A request's abort signal: at what is left of the read, at most REQUEST_TIMEOUT_MS. */
  signal(): AbortSignal;
  /** Milliseconds a request may take now (at least 1 s). */
  requestMs(): number;
  /** Enough time is left for an extra request. */
  roomForExtras(): boolean;
}

/** Time an extra request must leave of the read. */
const EXTRA_ROOM_MS = 8_000;

export function readDeadline(totalMs: number, nowMs: () => number = Date.now): ReadDeadline {
  const end = nowMs() + totalMs;
  const requestMs = () => Math.max(1000, Math.min(REQUEST_TIMEOUT_MS, end - nowMs()));
  return { requestMs, signal: () => AbortSignal.timeout(requestMs()), roomForExtras: () => end - nowMs() >= EXTRA_ROOM_MS };
}

/** A check with those of its optional parts that are there (no `undefined` travels in a result). */
export function checkOf(
  c: Pick<PullRequestCheck, 'key' | 'name' | 'source' | 'state'>,
  parts: { summary?: string | undefined; logTail?: string | undefined; url?: string | null | undefined },
): PullRequestCheck {
  const { summary, logTail, url } = parts;
  return { ...c, ...(summary ? { summary } : {}), ...(logTail ? { logTail } : {}), ...(url ? { url } : {}) };
}

/** Comments read at most per read (the newest changes beyond wait for the next). */
const MAX_COMMENTS = 300;

/**
 * The thread's comments changed since the cursor (a conditional request: nothing new costs
 * nothing), each with its author's authority, and where the next read starts.
 */
export async function commentsSince(
  thread: CommentThread,
  cursor: FeedbackCursor | undefined,
  authority: ReturnType<typeof authorityCache>,
): Promise<{ comments: PullRequestComment[]; cursor: FeedbackCursor }> {
  const since = cursor?.since ?? new Date(0).toISOString();
  const page = await thread.changedSince(since, cursor?.etag, MAX_COMMENTS);
  const comments: PullRequestComment[] = [];
  for (const c of page.notModified ? [] : page.comments) {
    const bot = isBotAccount(c.author);
    const own = isOwnText(c.body);
    const authorised = bot || own ? false : await authority.of(c.author, c.authorId);
    comments.push({ id: c.id, author: c.author, authorised, bot, own, body: c.body, createdAt: c.createdAt, updatedAt: c.updatedAt });
  }
  const newest = comments.reduce((m, c) => (Date.parse(c.updatedAt) > Date.parse(m) ? c.updatedAt : m), since);
  return { comments, cursor: { since: newest, ...(page.etag ? { etag: page.etag } : {}) } };
}

/** The error-list messages of a refusal's body (GitHub: `errors[].message`; GitLab: `message` as text or list). */
export function refusalMessages(body: unknown): string[] {
  if (typeof body === 'string') return [body];
  const b = body as { message?: unknown; errors?: unknown } | null | undefined;
  const out: string[] = [];
  if (typeof b?.message === 'string') out.push(b.message);
  if (Array.isArray(b?.message)) out.push(...b.message.filter((m): m is string => typeof m === 'string'));
  if (Array.isArray(b?.errors)) {
    for (const e of b.errors) {
      if (typeof e === 'string') out.push(e);
      else if (typeof (e as { message?: unknown })?.message === 'string') out.push((e as { message: string }).message);
    }
  }
  return out;
}
