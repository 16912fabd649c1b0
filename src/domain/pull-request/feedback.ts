// G4: what a read of the pull request gives the run. A check that failed on the current head (once
// per check and head), a "changes requested" review and a `/replanner <text>` comment from a user
// who may write to the repository (once each) are triggers: they reach the replanning loop with
// their text verbatim, bounded. Everything else changes nothing: a reader's review or command, a
// bot's, the run's own comments are logged; ordinary conversation is left alone. Pure: the
// activities (src/activities/forge) read the forge, the run's workflow acts on the triggers.
import { clipCounted } from '../text';
import type { FeedbackSeen, PullRequestComment, PullRequestFeedback, PullRequestReview } from './types';

/** A trigger's text at most this long (code points): a check's name, summary and log tail; a review's body; a command. */
export const MAX_TRIGGER_TEXT_CHARS = 8000;
/** Ids the run keeps of each kind it has seen (the oldest are dropped: the cursor has moved past them). */
export const MAX_SEEN = 200;

export type PullRequestTrigger =
  | { kind: 'check_failed'; key: string; headSha: string; name: string; text: string }
  | { kind: 'changes_requested'; key: string; reviewId: string; author: string; text: string; url?: string }
  | { kind: 'command'; key: string; commentId: number; author: string; text: string };

export interface FeedbackOutcome {
  triggers: PullRequestTrigger[];
  /** One line each: what was read and changes nothing (a reader's review, a bot's command…). */
  logged: string[];
  /** `seen` with what this read acted on or logged. */
  seen: FeedbackSeen;
}

export const emptySeen = (): FeedbackSeen => ({ checks: [], reviews: [], comments: [] });

/** The run's own posts carry a hidden replanner marker: they are never a command. */
export const isOwnText = (body: string): boolean => body.includes('<!-- replanner:');

/** A bot account: GitHub's `type: Bot` or `name[bot]`; GitLab's project and group bots (`project_12_bot_…`). */
export function isBotAccount(login: string, type?: unknown): boolean {
  return type === 'Bot' || /\[bot\]$/i.test(login) || /^(?:project|group)_\d+_bot(?:_[0-9a-f]+)?$/i.test(login);
}

/**
 * The text of a `/replanner <text>` comment: its first non-empty line starts with `/replanner`,
 * the text follows on that line and the next ones. Undefined: not a command (no text, or the run's
 * own post).
 */
export function parsePullRequestCommand(body: string): string | undefined {
  if (isOwnText(body)) return undefined;
  const m = /^\/replanner(?:[ \t]+([^\n]*))?(?:\n([\s\S]*))?$/.exec(body.replace(/\r\n?/g, '\n').trim());
  if (!m) return undefined;
  const text = [m[1] ?? '', m[2] ?? ''].join('\n').trim();
  return text || undefined;
}

const checkSeenKey = (headSha: string, key: string) => `${headSha}:${key}`;

/** A trigger's key at most this long (it names the reply's marker). */
export const MAX_TRIGGER_KEY_CHARS = 200;

/**
 * A trigger's key as it may travel (in a hidden HTML comment, a reply's marker): only plain
 * characters (others become "_"), at most MAX_TRIGGER_KEY_CHARS (a longer one keeps its head and a
 * hash of the whole, so two long names stay apart). The same input gives the same key.
 */
export function triggerKey(raw: string): string {
  const plain = raw.replace(/[^A-Za-z0-9._:/@#+=-]/g, '_');
  if (plain.length <= MAX_TRIGGER_KEY_CHARS) return plain;
  let h = 0x811c9dc5;
  for (let i = 0; i < raw.length; i++) h = Math.imul(h ^ raw.charCodeAt(i), 0x01000193) >>> 0;
  return `${plain.slice(0, MAX_TRIGGER_KEY_CHARS - 9)}~${h.toString(16).padStart(8, '0')}`;
}

/** Why an author's review or command changes nothing, if it does not. */
function notAllowed(who: Pick<PullRequestReview, 'author' | 'authorised' | 'bot' | 'own'>): string | undefined {
  if (who.own) return 'the run’s own';
  if (who.bot) return `@${who.author} is a bot`;
  if (!who.authorised) return `@${who.author} may not review (no write access)`;
  return undefined;
}

function reviewOutcome(r: PullRequestReview): { trigger?: PullRequestTrigger; log?: string } {
  const command = r.state === 'commented' ? parsePullRequestCommand(r.body) : undefined;
  if (r.state !== 'changes_requested' && command === undefined) return {};
  const what = command !== undefined ? `command in review ${r.id}` : `review ${r.id} requesting changes`;
  const why = notAllowed(r);
  if (why) return { log: `${what} ignored: ${why}` };
  const text = clipCounted(command ?? (r.body.trim() || '(the review has no text)'), MAX_TRIGGER_TEXT_CHARS);
  const key = triggerKey(`review:${r.id}`);
  return { trigger: { kind: 'changes_requested', key, reviewId: r.id, author: r.author, text, ...(r.url ? { url: r.url } : {}) } };
}

function commentOutcome(c: PullRequestComment): { trigger?: PullRequestTrigger; log?: string } | undefined {
  const command = parsePullRequestCommand(c.body);
  if (command === undefined) return undefined;
  const why = notAllowed(c);
  if (why) return { log: `command in comment ${c.id} ignored: ${why}` };
  const [key, text] = [triggerKey(`comment:${c.id}`), clipCounted(command, MAX_TRIGGER_TEXT_CHARS)];
  return { trigger: { kind: 'command', key, commentId: c.id, author: c.author, text } };
}

/** A failed check's text for the prompt: its name, what it said, the end of its log. */
export function checkFailureText(name: string, summary: string | undefined, logTail: string | undefined): string {
  const parts = [`Check "${name}" failed.`, summary ? `Its summary:\n${summary}` : '', logTail ? `The end of its log:\n${logTail}` : ''];
  return clipCounted(parts.filter(Boolean).join('\n\n'), MAX_TRIGGER_TEXT_CHARS);
}

/**
 * G4: the new triggers in a read, and what is only logged. Nothing triggers on a pull request that
 * is no longer open. A check counts once per head: the same failure on a new head (after the run
 * pushed a fix) is a new trigger. A review or comment counts once: a later edit changes nothing.
 */
export function feedbackTriggers(f: PullRequestFeedback, seen: FeedbackSeen = emptySeen()): FeedbackOutcome {
  const triggers: PullRequestTrigger[] = [];
  const logged: string[] = [];
  const checks = new Set(seen.checks);
  const reviews = new Set(seen.reviews);
  const comments = new Set(seen.comments);
  const next = { checks: [...seen.checks], reviews: [...seen.reviews], comments: [...seen.comments] };
  if (f.state !== 'open') return { triggers, logged, seen };
  for (const c of f.checks) {
    const key = checkSeenKey(f.headSha, c.key);
    if (c.state !== 'failed' || checks.has(key)) continue;
    checks.add(key);
    next.checks.push(key);
    triggers.push({
      kind: 'check_failed',
      key: triggerKey(`check:${key}`),
      headSha: f.headSha,
      name: c.name,
      text: checkFailureText(c.name, c.summary, c.logTail),
    });
  }
  for (const r of f.reviews) {
    if (reviews.has(r.id)) continue;
    const o = reviewOutcome(r);
    if (!o.trigger && !o.log) continue;
    reviews.add(r.id);
    next.reviews.push(r.id);
    if (o.trigger) triggers.push(o.trigger);
    if (o.log) logged.push(o.log);
  }
  for (const c of f.comments) {
    if (comments.has(c.id)) continue;
    const o = commentOutcome(c);
    if (!o) continue;
    comments.add(c.id);
    next.comments.push(c.id);
    if (o.trigger) triggers.push(o.trigger);
    if (o.log) logged.push(o.log);
  }
  const bounded = { checks: next.checks.slice(-MAX_SEEN), reviews: next.reviews.slice(-MAX_SEEN), comments: next.comments.slice(-MAX_SEEN) };
  return { triggers, logged, seen: bounded };
}
