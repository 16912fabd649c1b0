// X10/X11 on GitHub through @octokit/rest: issue comments (a pull request's conversation comments
// are issue comments too). Base URL: GITHUB_API_URL (GitHub Enterprise, tests), else api.github.com.
import { Octokit } from '@octokit/rest';
import { networkKindOf } from '../../domain/failures';
import type { NotifyTarget } from '../../domain/notifications';
import { REQUEST_TIMEOUT_MS, type CommentThread, type RequestProblem } from './thread';

type GithubTarget = Extract<NotifyTarget, { service: 'github' }>;

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export function githubThread(target: GithubTarget, token: string, baseUrl: string): CommentThread {
  // No retry or throttling plugin: Temporal's retry policy owns retries (workflows/run/notifications.ts).
  const octokit = new Octokit({ auth: token, baseUrl: baseUrl.replace(/\/+$/, ''), userAgent: 'replanner', log: quiet });
  const [owner, repo] = target.repo.split('/') as [string, string];
  const where = { owner, repo };
  const request = () => ({ signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return {
    async find(marker) {
      for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, {
        ...where,
        issue_number: target.number,
        per_page: 100,
        request: request(),
      })) {
        const hit = page.data.find((c) => c.body?.includes(marker));
        if (hit) return hit.id;
      }
      return undefined;
    },
    async create(body) {
      const r = await octokit.rest.issues.createComment({ ...where, issue_number: target.number, body, request: request() });
      return r.data.id;
    },
    async update(id, body) {
      await octokit.rest.issues.updateComment({ ...where, comment_id: id, body, request: request() });
    },
    problemOf(err: unknown): RequestProblem {
      const e = err as { status?: unknown; message?: unknown; response?: { headers?: Record<string, unknown>; data?: unknown } };
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(e.response?.headers ?? {})) if (typeof v === 'string' || typeof v === 'number') headers[k] = String(v);
      const detail = typeof e.message === 'string' ? e.message : String(err);
      // @octokit/request reports a request that got no response as status 500 without a response
      // (and without the socket error's code); a timeout comes through as the signal's TimeoutError.
      if (!(typeof e.status === 'number' && e.response)) return { network: networkKindOf(err) ?? 'other', headers, detail };
      return { status: e.status, headers, body: e.response.data, detail };
    },
  };
}
