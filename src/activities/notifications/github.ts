// Notifications and the plan checklist on GitHub through @octokit/rest: issue comments (a pull
// request's conversation comments are issue comments too). Base URL: GITHUB_API_URL (GitHub
// Enterprise, tests), else api.github.com.
import { Octokit } from '@octokit/rest';
import { networkKindOf } from '../../domain/failures';
import type { NotifyTarget } from '../../domain/notifications';
import { githubMayWrite } from '../../domain/run/tracker-answers';
import { REQUEST_TIMEOUT_MS, type CommentThread, type RepliesPage, type RequestProblem, type ThreadComment } from './thread';

type GithubTarget = Extract<NotifyTarget, { service: 'github' }>;

/** Pages of 100 comments the replies poll reads at most (a burst of replies beyond is read at the next poll). */
const MAX_REPLY_PAGES = 3;

interface GithubComment {
  id: number;
  body?: string;
  user: { login: string; id?: number } | null;
  created_at: string;
  updated_at: string;
}

const replyOf = (c: GithubComment): ThreadComment => ({
  id: c.id,
  author: c.user?.login ?? '',
  ...(typeof c.user?.id === 'number' ? { authorId: c.user.id } : {}),
  body: c.body ?? '',
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

const statusOf = (err: unknown): unknown => (err as { status?: unknown }).status;

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The worker's GitHub client: the token in the Authorization header only, no log. No retry or
 * throttling plugin: Temporal's retry policy owns retries (workflows/run/notifications.ts).
 */
export function githubClient(token: string, baseUrl: string): Octokit {
  return new Octokit({ auth: token, baseUrl: baseUrl.replace(/\/+$/, ''), userAgent: 'replanner', log: quiet });
}

/** What an @octokit error says (status, headers, message) without its request (which holds the token). */
export function githubProblemOf(err: unknown): RequestProblem {
  const e = err as { status?: unknown; message?: unknown; response?: { headers?: Record<string, unknown>; data?: unknown } };
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(e.response?.headers ?? {})) if (typeof v === 'string' || typeof v === 'number') headers[k] = String(v);
  const detail = typeof e.message === 'string' ? e.message : String(err);
  // @octokit/request reports a request that got no response as status 500 without a response
  // (and without the socket error's code); a timeout comes through as the signal's TimeoutError.
  if (!(typeof e.status === 'number' && e.response)) return { network: networkKindOf(err) ?? 'other', headers, detail };
  return { status: e.status, headers, body: e.response.data, detail };
}

/** `requestTimeoutMs`: how long one request may take (tests shorten it). */
export function githubThread(target: GithubTarget, token: string, baseUrl: string, requestTimeoutMs = REQUEST_TIMEOUT_MS): CommentThread {
  const octokit = githubClient(token, baseUrl);
  const [owner, repo] = target.repo.split('/') as [string, string];
  const where = { owner, repo };
  const request = () => ({ signal: AbortSignal.timeout(requestTimeoutMs) });
  return {
    async find(marker) {
      // Page by page, each request with its own time limit (octokit's paginate drops a request's
      // options, its abort signal with them: a request that got no answer would wait for ever).
      for (let page = 1; ; page++) {
        const r = await octokit.rest.issues.listComments({ ...where, issue_number: target.number, per_page: 100, page, request: request() });
        const hit = r.data.find((c) => c.body?.includes(marker));
        if (hit) return hit.id;
        if (r.data.length < 100) return undefined;
      }
    },
    async create(body) {
      const r = await octokit.rest.issues.createComment({ ...where, issue_number: target.number, body, request: request() });
      return r.data.id;
    },
    async update(id, body) {
      await octokit.rest.issues.updateComment({ ...where, comment_id: id, body, request: request() });
    },
    async changedSince(since, etag, max): Promise<RepliesPage> {
      const comments: ThreadComment[] = [];
      let tag: string | undefined;
      for (let page = 1; page <= MAX_REPLY_PAGES && comments.length < max; page++) {
        // Only the first page is conditional: a 304 there means nothing changed (and costs no rate limit).
        const headers = page === 1 && etag ? { 'if-none-match': etag } : {};
        let r;
        try {
          r = await octokit.rest.issues.listComments({
            ...where,
            issue_number: target.number,
            since,
            per_page: 100,
            page,
            headers,
            request: request(),
          });
        } catch (err) {
          if (page === 1 && statusOf(err) === 304) return { notModified: true, ...(etag ? { etag } : {}) };
          throw err;
        }
        if (page === 1) tag = r.headers.etag;
        comments.push(...(r.data as GithubComment[]).map(replyOf));
        if (r.data.length < 100) break;
      }
      return { notModified: false, ...(tag ? { etag: tag } : {}), comments: comments.slice(0, max) };
    },
    async canWrite({ author }) {
      try {
        const r = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...where, username: author, request: request() });
        return githubMayWrite(r.data.permission, (r.data as { role_name?: unknown }).role_name);
      } catch (err) {
        // No such user (or one GitHub will not tell about): no write access.
        if (statusOf(err) === 404) return false;
        throw err;
      }
    },
    problemOf: githubProblemOf,
  };
}
