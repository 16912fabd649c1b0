// Answers from the run's issue or merge request. While a question or a consultation
// waits, the run reads the thread's new replies (a conditional request on a durable timer, backed
// off while nothing changes); a reply `/answer q1 <text>` or `/consult t2 <choice> [text]` from a
// user with write access answers through the same path as the CLI's (the first answer wins, from
// wherever it comes); any other reply changes nothing. Pure: src/workflows/run/tracker-answers.ts
// polls and applies, src/activities/notifications reads the thread.
import type { Question } from '../replan/questions';
import { clipLine } from '../text';

/** What of the run's state waits for answers (RunState has it). */
export interface AnswerSource<C extends { id: string; taskId: string } = { id: string; taskId: string }> {
  questions: readonly Question[];
  consultations: readonly C[];
}

// ---------------------------------------------------------------- the commands

export type ReplyCommand =
  { kind: 'answer'; questionId: string; text: string } | { kind: 'consult'; taskId: string; choice: string; guidance?: string };

/** An answer or guidance longer than this is not a reply command (MAX_ANSWER_CHARS is the answer's own bound). */
const MAX_COMMAND_CHARS = 8000;
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/**
 * The command a reply carries, if any: its first non-empty line is `/answer <question id> <text>`
 * (the text may go on over the next lines) or `/consult <task id> <choice> [text]`. A comment the
 * run posted itself (it carries a replanner marker) is never a command.
 */
export function parseReplyCommand(body: string): ReplyCommand | undefined {
  if (body.includes('<!-- replanner:') || body.length > MAX_COMMAND_CHARS) return undefined;
  const text = body.replace(/\r\n?/g, '\n').trim();
  const m = /^\/(answer|consult)[ \t]+(\S+)(?:[ \t]+([^\n]*))?(?:\n([\s\S]*))?$/.exec(text);
  if (!m || !ID.test(m[2]!)) return undefined;
  const rest = [m[3] ?? '', m[4] ?? ''].join('\n').trim();
  if (m[1] === 'answer') return rest ? { kind: 'answer', questionId: m[2]!, text: rest } : undefined;
  const c = /^(\S+)(?:\s+([\s\S]*))?$/.exec(rest);
  if (!c) return undefined;
  const guidance = c[2]?.trim();
  return { kind: 'consult', taskId: m[2]!, choice: c[1]!, ...(guidance ? { guidance } : {}) };
}

/** GitHub's collaborator permission: write, maintain (shown as write) or admin may answer. */
export function githubMayWrite(permission: unknown, roleName: unknown): boolean {
  return ['admin', 'write'].includes(String(permission)) || ['admin', 'maintain', 'write'].includes(String(roleName));
}

/** GitLab's access level: Developer (30) or above may answer. */
export function gitlabMayWrite(accessLevel: unknown): boolean {
  return typeof accessLevel === 'number' && accessLevel >= 30;
}

// ---------------------------------------------------------------- the poll

/** One reply command as the poll activity read it (only replies carrying a command come back). */
export interface SeenCommand {
  commentId: number;
  author: string;
  createdAt: string;
  updatedAt: string;
  /** The author may write to the repository (checked by the activity with the forge). */
  authorised: boolean;
  command: ReplyCommand;
}

/** What one poll read. */
export interface PollResult {
  /** The server said "not modified" (nothing new since the last poll). */
  notModified: boolean;
  etag?: string;
  /** The newest change among every reply read (commands or not), and the replies changed exactly then. */
  newest?: string;
  atNewest?: string[];
  commands: SeenCommand[];
}

/** The run's poll of its thread (RunState.tracker; carried across continue-as-new). */
export interface TrackerPollState {
  /** Replies changed at or after this time are read next (the forge's own clock). */
  since?: string;
  etag?: string;
  /** Replies (`id@updatedAt`) changed exactly at `since` that were read already. */
  atSince?: string[];
  /** Replies whose command was acted on: a later edit of one changes nothing. */
  handled?: number[];
  /** Polls in a row that found nothing new (the wait grows with it). */
  idle: number;
  /** Failed polls in a row, and when the next may be tried (a rate limit's reset). */
  failures?: number;
  retryAt?: string;
}

export const MAX_COMMANDS_PER_POLL = 20;
/** Replies a poll reads at most (the newest changes beyond wait for the next poll). */
export const MAX_REPLIES_READ = 300;
const MAX_HANDLED = 100;
/** A reply this long before the question was asked (clock skew between worker and forge) still answers it. */
export const ASKED_MARGIN_MS = 2 * 60_000;
/** The longest wait between two polls while something waits for an answer. */
export const MAX_POLL_WAIT_MS = 2 * 60_000;

/** What waits for an answer the thread can give: pending questions (not the budget's) and open consultations. */
export function awaitingAnswers<C extends { id: string; taskId: string }>(
  s: AnswerSource<C>,
): { questions: Question[]; consultations: readonly C[] } {
  return { questions: s.questions.filter((q) => q.status === 'pending' && q.kind !== 'budget'), consultations: s.consultations };
}

export const hasAwaitingAnswers = (s: AnswerSource): boolean => {
  const a = awaitingAnswers(s);
  return a.questions.length + a.consultations.length > 0;
};

/** How long to wait before the next poll: from `initialMs`, ×1.5 for each idle poll, up to MAX_POLL_WAIT_MS; after a failure the server's wait or backoff. */
export function pollWaitMs(p: TrackerPollState | undefined, initialMs: number, nowMs: number): number {
  if (p?.retryAt) return Math.max(0, Date.parse(p.retryAt) - nowMs);
  const first = Math.max(100, Math.min(initialMs, MAX_POLL_WAIT_MS));
  return Math.round(Math.min(MAX_POLL_WAIT_MS, first * 1.5 ** Math.min(p?.idle ?? 0, 40)));
}

/** Where the next poll reads from: the last point read, never before the oldest waiting question was asked (less the margin). */
export function pollSince(p: TrackerPollState | undefined, s: AnswerSource, nowIso: string): string {
  const asked = awaitingAnswers(s)
    .questions.map((q) => Date.parse(q.askedAt))
    .filter(Number.isFinite);
  const floorMs = (asked.length ? Math.min(...asked) : Date.parse(nowIso)) - ASKED_MARGIN_MS;
  const since = p?.since ? Date.parse(p.since) : NaN;
  return Number.isFinite(since) && since >= floorMs ? p!.since! : new Date(floorMs).toISOString();
}

/** The replies read at `since` already, to skip (only while `since` stays the same). */
export function skipAt(p: TrackerPollState | undefined, since: string): string[] {
  return p?.since === since ? (p.atSince ?? []) : [];
}

/** After a poll that answered: the next one reads from the newest change, conditional on the new ETag. */
export function afterPoll(p: TrackerPollState | undefined, since: string, r: PollResult): TrackerPollState {
  const base: TrackerPollState = { idle: 0, ...(p?.handled?.length ? { handled: p.handled } : {}) };
  if (r.notModified)
    return {
      ...base,
      since,
      ...(p?.atSince && p.since === since ? { atSince: p.atSince } : {}),
      ...(r.etag ? { etag: r.etag } : {}),
      idle: (p?.idle ?? 0) + 1,
    };
  const moved = r.newest !== undefined && r.newest !== since && Date.parse(r.newest) > Date.parse(since);
  // Every reply read at the same point is kept (as many as one poll reads): a shorter list would
  // forget the first of a burst of commands (anyone may post them), read them again, and never get
  // past the burst to the answer after it.
  const atSince = moved ? (r.atNewest ?? []) : [...new Set([...skipAt(p, since), ...(r.atNewest ?? [])])];
  return {
    ...base,
    since: moved ? r.newest! : since,
    ...(atSince.length ? { atSince: atSince.slice(-MAX_REPLIES_READ) } : {}),
    ...(r.etag ? { etag: r.etag } : {}),
    idle: r.commands.length ? 0 : (p?.idle ?? 0) + 1,
  };
}

/** After a poll that failed: wait the server's time (a rate limit's reset), else back off from `initialMs`. */
export function afterPollFailure(
  p: TrackerPollState | undefined,
  retryAfterMs: number | undefined,
  nowMs: number,
  initialMs: number,
): TrackerPollState {
  const failures = (p?.failures ?? 0) + 1;
  const wait =
    typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs > 0
      ? retryAfterMs
      : Math.min(MAX_POLL_WAIT_MS, Math.max(100, initialMs) * 2 ** Math.min(failures - 1, 20));
  return { ...(p ?? { idle: 0 }), failures, retryAt: new Date(nowMs + Math.round(wait)).toISOString() };
}

/** The comment's command was acted on: a later edit of it changes nothing. */
export function markHandled(p: TrackerPollState, commentId: number): TrackerPollState {
  return { ...p, handled: [...(p.handled ?? []).filter((x) => x !== commentId), commentId].slice(-MAX_HANDLED) };
}

// ---------------------------------------------------------------- what a command does

export type ReplyAction =
  /** Answer the question through the run's own answer path (it checks again: the first answer wins). */
  | { do: 'answer'; questionId: string; answer: string; by: string }
  /** Send the choice to the task's consultation (the task's own answer path decides). */
  | { do: 'consult'; taskId: string; consultationId: string; choice: string; guidance?: string; by: string }
  /** Not taken: nothing changes; `tell` is said on the thread (to an authorised user only). */
  | { do: 'ignore'; why: string; tell?: string };

/**
 * What a reply command does. Unauthorised authors, edits of a reply already acted on, answers to
 * the budget question and replies older than their question change nothing (logged). A question or consultation that no
 * longer waits is said so on the thread: whoever answered first (CLI, Web UI, thread) wins.
 */
export function replyAction(s: AnswerSource, poll: TrackerPollState | undefined, c: SeenCommand, who: string): ReplyAction {
  const by = `@${c.author} on ${who}`;
  if ((poll?.handled ?? []).includes(c.commentId))
    return { do: 'ignore', why: `reply ${c.commentId} was acted on already (an edit changes nothing)` };
  if (!c.authorised) return { do: 'ignore', why: `${by} has no write access: reply ${c.commentId} ignored` };
  const cmd = c.command;
  if (cmd.kind === 'answer') {
    const q = s.questions.find((x) => x.id === cmd.questionId);
    // The budget question is not the thread's to answer (it raises what the run may spend): only
    // the run's own ways (the CLI, the Web UI) answer it.
    if (q?.kind === 'budget') {
      const why = `${q.id} is the run's budget question: answer it with \`npx replanner answer\``;
      return { do: 'ignore', why, tell: notTaken(c.author, why) };
    }
    if (q && Date.parse(c.createdAt) < Date.parse(q.askedAt) - ASKED_MARGIN_MS) {
      return { do: 'ignore', why: `reply ${c.commentId} was written before ${q.id} was asked` };
    }
    return { do: 'answer', questionId: cmd.questionId, answer: cmd.text, by };
  }
  const { taskId, choice, guidance } = cmd;
  const open = s.consultations.find((x) => x.taskId === taskId);
  if (!open) {
    const why = `task ${taskId} has no consultation waiting for an answer`;
    return { do: 'ignore', why, tell: notTaken(c.author, why) };
  }
  return { do: 'consult', taskId, consultationId: open.id, choice, ...(guidance ? { guidance } : {}), by };
}

// ---------------------------------------------------------------- what the run says back

/** The short reply that acknowledges an answer taken from the thread. */
export function answerTaken(questionId: string, answer: string, by: string): string {
  return `✅ **${questionId}** answered by ${by}: “${clipLine(answer, 300)}”`;
}

export function consultationSent(consultationId: string, choice: string, by: string): string {
  return `✅ Choice **${clipLine(choice, 40)}** sent to consultation **${consultationId}** (from ${by}); the task takes the first answer it gets.`;
}

/** A reply from an authorised user that was not used, and why (e.g. already answered elsewhere). */
export function notTaken(author: string, why: string): string {
  return `ℹ️ @${author}, your reply was not used: ${clipLine(why, 500)}`;
}
