// Where the run's notifications go and how they are delivered: the target from the
// config, the markers that find a comment again, the neutralizing of LLM text and how a delivery
// failure is judged. Pure: what to post is decided in src/domain/run/notifications-due.ts, the
// run's record and queue of deliveries is src/domain/run/deliveries.ts, *when* is the workflow's
// (src/workflows/run/notifications.ts); the activities (src/activities/notifications) carry the text.
import type { NotificationsConfig } from './config/notifications';
import { decideRetry, type FailureKind, type NetworkErrorKind } from './failures';
import { clipLine } from './text';

// ---------------------------------------------------------------- where

/** The run's issue or merge request (config `notifications.github` / `notifications.gitlab`). */
export type NotifyTarget =
  | { service: 'github'; repo: string; kind: 'issue' | 'pull'; number: number }
  | { service: 'gitlab'; project: string; kind: 'issue' | 'merge_request'; number: number; url?: string };

export function notifyTargetOf(c: NotificationsConfig | undefined): NotifyTarget | undefined {
  if (c?.github) {
    const g = c.github;
    return g.pull !== undefined
      ? { service: 'github', repo: g.repo, kind: 'pull', number: g.pull }
      : { service: 'github', repo: g.repo, kind: 'issue', number: g.issue! };
  }
  if (c?.gitlab) {
    const g = c.gitlab;
    const base =
      g.merge_request !== undefined ? { kind: 'merge_request' as const, number: g.merge_request } : { kind: 'issue' as const, number: g.issue! };
    return { service: 'gitlab', project: g.project, ...base, ...(g.url ? { url: g.url } : {}) };
  }
  return undefined;
}

/** "GitHub owner/repo#12", "GitLab group/project!45" (the spelling of the CLI flags). */
export function targetLabel(t: NotifyTarget): string {
  if (t.service === 'github') return `GitHub ${t.repo}#${t.number}`;
  return `GitLab ${t.project}${t.kind === 'merge_request' ? '!' : '#'}${t.number}`;
}

// ---------------------------------------------------------------- markers

/** The hidden line that names the run's checklist comment (found again after a crash). */
export function checklistMarker(runId: string): string {
  return `<!-- replanner:checklist run=${runId} -->`;
}

/** The hidden line of one notification (found again when its post is retried). */
export function notificationMarker(runId: string, key: string): string {
  return `<!-- replanner:notification run=${runId} key=${key} -->`;
}

/**
 * Texts from the LLM (reasoning, task titles, questions) must not act on the issue: a line
 * starting with "/" would be a GitLab quick action (`/close`, `/merge`, `/approve`), an "@name" would
 * ping people. A zero-width space keeps both as plain text (they read the same).
 */
export function neutralize(text: string): string {
  return text.replace(/^(\s*)\//gm, '$1\u200b/').replace(/@(?=[A-Za-z0-9_-])/g, '@\u200b');
}

/** The body as posted: the marker line first (hidden in rendered Markdown), then the neutralized text. */
export function withMarker(marker: string, body: string): string {
  return `${marker}\n${neutralize(body)}`;
}

/**
 * The worker's allowlist of targets (REPLANNER_NOTIFY_ALLOW: comma-separated `owner/repo`,
 * `group/project` or `owner/*`): anyone who can start a run chooses its target, the worker's token
 * decides what it can reach; with the list set, a run may only post where the worker allows.
 */
export function targetAllowed(t: NotifyTarget, allow: string | undefined): boolean {
  const list = (allow ?? '')
    .split(',')
    .map((x) => x.trim().toLowerCase())
    .filter(Boolean);
  if (list.length === 0) return true;
  const name = (t.service === 'github' ? t.repo : t.project).toLowerCase();
  return list.some((p) => (p.endsWith('/*') ? name.startsWith(p.slice(0, -1)) : p === name));
}

// ---------------------------------------------------------------- delivery failures

export type NotifyService = NotifyTarget['service'];

/** The failure types of the notification activities: refused for good, or unavailable for now. */
export const NOTIFICATION_REJECTED = 'NotificationRejected';
export const NOTIFICATION_UNAVAILABLE = 'NotificationUnavailable';
const SERVICE_NAME: Record<NotifyService, string> = { github: 'GitHub', gitlab: 'GitLab' };
const TOKEN_NAME: Record<NotifyService, string> = { github: 'GITHUB_TOKEN', gitlab: 'GITLAB_TOKEN' };

/** An outage's retry-after is believed up to this; a longer one is left to the run's backoff. */
const MAX_OUTAGE_WAIT_MS = 5 * 60_000;

export interface DeliveryFailureInput {
  service: NotifyService;
  /** HTTP status; undefined: no response (connection refused, timeout). */
  status?: number;
  /** Why no response came, when known. */
  network?: NetworkErrorKind;
  headers?: Record<string, string | undefined>;
  /** What the client said (already free of secrets). */
  detail?: string;
  nowMs: number;
}

export interface DeliveryFailure {
  /** The retry table's kind (./failures.ts). */
  kind: FailureKind;
  /** Worth trying again (rate limit, 5xx, no response); 401/403/404/422 will not fix themselves. */
  retryable: boolean;
  /** When to try again (a rate limit's reset), if the server said. */
  retryAfterMs?: number;
  /** One line for `status`: "GitHub: 403 Forbidden (check GITHUB_TOKEN's scope)". */
  message: string;
}

/**
 * What a failed delivery means. Retried or not as the retry table (./failures.ts) says: a
 * rate limit (429, or GitHub's 403 with `x-ratelimit-remaining: 0` or `retry-after`) after its
 * reset, however far; 5xx and no response with backoff. 401 / 403 / 404 / 422 and other 4xx will
 * not fix themselves: refused at once and reported (the next one tries again: a token fixed
 * meanwhile works).
 */
export function classifyDeliveryFailure(f: DeliveryFailureInput): DeliveryFailure {
  const svc = SERVICE_NAME[f.service];
  const token = TOKEN_NAME[f.service];
  const detail = f.detail ? ` — ${clipLine(f.detail, 200)}` : '';
  const d = decideRetry({ status: f.status, network: f.network, headers: f.headers, nowMs: f.nowMs });
  const told = (message: string): DeliveryFailure => ({ kind: d.kind, retryable: d.retryable, message });
  if (f.status === undefined) return told(`${svc}: no response${detail}`);
  if (d.kind === 'rate_limit') {
    const wait = d.retryAfterMs;
    const resetAt = wait !== undefined ? ` until ${new Date(f.nowMs + wait).toISOString()}` : '';
    // Waited for however far (the table bounds a server's wait to a day): nothing is dropped.
    return { ...told(`${svc}: ${f.status} rate limited${resetAt}`), ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
  }
  if (f.status === 401) return told(`${svc}: 401 Unauthorized (check ${token})`);
  if (f.status === 403) return told(`${svc}: 403 Forbidden (check ${token}'s scope)`);
  if (f.status === 404) {
    return told(`${svc}: 404 Not Found (check the ${f.service === 'github' ? 'repository' : 'project'} and number, and that ${token} can see it)`);
  }
  if (d.kind !== 'outage') return told(`${svc}: ${f.status} refused${detail}`);
  // An outage's retry-after is followed when it is a sane wait; a longer one: the run's backoff.
  const wait = d.retryAfterMs !== undefined && d.retryAfterMs <= MAX_OUTAGE_WAIT_MS ? { retryAfterMs: d.retryAfterMs } : {};
  return { ...told(`${svc}: ${f.status} ${f.status >= 500 ? 'server error' : 'failed'}${detail}`), ...wait };
}
