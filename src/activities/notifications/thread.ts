// The comments of one issue or merge request, as the notification activities need them:
// find the run's own comment by its hidden marker, create one, edit one; read the replies
// changed since a time (a conditional request: "not modified" costs nothing) and ask whether their
// author may write to the repository. One adapter per service (github.ts, gitlab.ts) over its
// well-kept client library.

import type { NetworkErrorKind } from '../../domain/failures';

/** What a failed request said, for classifyDeliveryFailure (src/domain/notifications). */
export interface RequestProblem {
  /** HTTP status; undefined: no response. */
  status?: number;
  /** Why no response came, when the error's codes say. */
  network?: NetworkErrorKind;
  headers?: Record<string, string | undefined>;
  /** The response's body as the client parsed it (clipped and redacted before it goes anywhere). */
  body?: unknown;
  detail?: string;
}

/** A comment of the thread as the replies poll reads it. */
export interface ThreadComment {
  id: number;
  /** The author's login (GitHub) or username (GitLab). */
  author: string;
  /** The author's numeric id (GitLab's member lookup needs it). */
  authorId?: number;
  body: string;
  createdAt: string;
  updatedAt: string;
}

/** The replies changed since a time: none (the server said "not modified"), or the comments. */
export type RepliesPage = { notModified: true; etag?: string } | { notModified: false; etag?: string; comments: ThreadComment[] };

export interface CommentThread {
  /** The id of the first comment whose body contains `marker`, if any. */
  find(marker: string): Promise<number | undefined>;
  create(body: string): Promise<number>;
  update(id: number, body: string): Promise<void>;
  /** The comments created or edited at or after `since` (ISO), at most `max`, oldest change first; conditional on `etag`. */
  changedSince(since: string, etag: string | undefined, max: number): Promise<RepliesPage>;
  /** Whether the author may write to the repository (GitHub: write, maintain or admin; GitLab: Developer or above). */
  canWrite(author: Pick<ThreadComment, 'author' | 'authorId'>): Promise<boolean>;
  /** Reads what a client error says (status, headers, message) without its request (which holds the token). */
  problemOf(err: unknown): RequestProblem;
}

/** A request must not outlive the activity's start-to-close timeout (workflows/run/notifications.ts). */
export const REQUEST_TIMEOUT_MS = 20_000;
