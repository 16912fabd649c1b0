// G3 / G4 / G5: what the run keeps of its pull request (in RunState.git, carried across
// continue-as-new): where it lives, its number once opened, whether it was marked ready, the
// cursor and the feedback already acted on, who may review, the one-line summary of its last
// read, and the feedback a fix round is answering. Every change is a pure transition here.
import { clipLine } from '../text';
import { emptySeen, MAX_SEEN, type PullRequestTrigger } from './feedback';
import type { FeedbackCursor, FeedbackSeen, ForgeProject, PullRequestFeedback, PullRequestRef, PullRequestState } from './types';

/** A piece of feedback a fix round answers: who gets the reply, and about what. */
export interface AnsweredTrigger {
  key: string;
  kind: PullRequestTrigger['kind'];
  /** "the failed check "ci"", "the review of @alice", "the command of @bob". */
  label: string;
  inReplyTo?: { kind: 'review' | 'comment'; id: string | number; author: string; url?: string };
}

/** G4: feedback the run acts on: the replan it made, the branch's head and the plan's tasks before it. */
export interface Answering {
  triggers: AnsweredTrigger[];
  headBefore: string;
  tasksBefore: string[];
  /** The replan decision's id (X9), when one ran. */
  replanId?: string;
}

export interface RunPullRequest {
  project: ForgeProject;
  number?: number;
  url?: string;
  state?: PullRequestState;
  /** Marked ready for review (G3: once, when the run's tasks are done). */
  ready?: boolean;
  /** A short print of the body last sent (an unchanged body is not sent again). */
  bodyPrint?: string;
  /** G4: following since (workflow time), and the last time something new came. */
  following?: { since: string; lastNews: string };
  /** G5: the last read in one line ("2 of 3 checks passing, changes requested by @alice"). */
  summary?: string;
  headSha?: string;
  cursor?: FeedbackCursor;
  seen: FeedbackSeen;
  /** Who may review, as read in this run (login → may write), bounded. */
  authority: Record<string, boolean>;
  answering?: Answering;
}

const MAX_AUTHORITY = 200;

export function startPullRequest(project: ForgeProject): RunPullRequest {
  return { project, seen: emptySeen(), authority: {} };
}

export function pullRequestOpened(p: RunPullRequest, ref: PullRequestRef): RunPullRequest {
  return { ...p, number: ref.number, url: ref.url, state: ref.state, ...(ref.draft ? {} : { ready: true }) };
}

/** G4 / G5: one read taken in: the state, the summary, the cursor, who may review (bounded). */
export function feedbackRead(p: RunPullRequest, f: PullRequestFeedback, summary: string, seen: FeedbackSeen): RunPullRequest {
  const authority = Object.fromEntries(Object.entries(f.authority).slice(-MAX_AUTHORITY));
  const bounded = { checks: seen.checks.slice(-MAX_SEEN), reviews: seen.reviews.slice(-MAX_SEEN), comments: seen.comments.slice(-MAX_SEEN) };
  return { ...p, state: f.state, headSha: f.headSha, summary: clipLine(summary, 300), cursor: f.cursor, authority, seen: bounded };
}

/** G4: following starts (or goes on after a fix round): "nothing new" counts from `at`. */
export function follow(p: RunPullRequest, at: string): RunPullRequest {
  return { ...p, following: { since: p.following?.since ?? at, lastNews: at } };
}

/** G4: a fix round runs: the run is not following while it works. */
export function stopFollowing(p: RunPullRequest): RunPullRequest {
  const { following: _following, ...rest } = p;
  return rest;
}

/** G4: stop following once `followHours` passed since the last news. */
export function followExpired(p: RunPullRequest, nowMs: number, followHours: number): boolean {
  return p.following !== undefined && nowMs - Date.parse(p.following.lastNews) >= followHours * 3_600_000;
}

/** G4: a trigger as the answer's record keeps it. */
export function answeredTrigger(t: PullRequestTrigger): AnsweredTrigger {
  switch (t.kind) {
    case 'check_failed':
      return { key: t.key, kind: t.kind, label: `the failed check "${clipLine(t.name, 100)}"` };
    case 'changes_requested':
      return {
        key: t.key,
        kind: t.kind,
        label: `the review of @${t.author}`,
        inReplyTo: { kind: 'review', id: t.reviewId, author: t.author, ...(t.url ? { url: t.url } : {}) },
      };
    case 'command':
      return { key: t.key, kind: t.kind, label: `the request of @${t.author}`, inReplyTo: { kind: 'comment', id: t.commentId, author: t.author } };
  }
}

/** FNV-1a of a text, as 8 hex digits: whether the body changed since it was last sent. */
export function textPrint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** G3: where the pull request goes: the config's `pullRequest.github` / `gitlab` (the CLI fills it), else the notifications' repository. */
export function pullRequestProjectOf(c: {
  pullRequest: { github?: string; gitlab?: string; gitlabUrl?: string };
  notifications: { github?: { repo: string }; gitlab?: { project: string; url?: string } };
}): ForgeProject | undefined {
  const pr = c.pullRequest;
  if (pr.github) return { service: 'github', repo: pr.github };
  const url = pr.gitlabUrl ?? c.notifications.gitlab?.url;
  if (pr.gitlab) return { service: 'gitlab', project: pr.gitlab, ...(url ? { url } : {}) };
  if (c.notifications.github) return { service: 'github', repo: c.notifications.github.repo };
  if (c.notifications.gitlab) return { service: 'gitlab', project: c.notifications.gitlab.project, ...(url ? { url } : {}) };
  return undefined;
}
