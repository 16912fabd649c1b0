// X10/X11: the comments of one issue or merge request, as the notification activities need them:
// find the run's own comment by its hidden marker, create one, edit one. One adapter per service
// (github.ts, gitlab.ts) over its well-kept client library.

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

export interface CommentThread {
  /** The id of the first comment whose body contains `marker`, if any. */
  find(marker: string): Promise<number | undefined>;
  create(body: string): Promise<number>;
  update(id: number, body: string): Promise<void>;
  /** Reads what a client error says (status, headers, message) without its request (which holds the token). */
  problemOf(err: unknown): RequestProblem;
}

/** A request must not outlive the activity's start-to-close timeout (workflows/run/notifications.ts). */
export const REQUEST_TIMEOUT_MS = 20_000;
