// G3 / G4 on GitHub through @octokit/rest: the run's pull request. Found by its head branch
// (`head=owner:branch`, every state), opened as a draft, edited in place, made ready with the
// GraphQL mutation markPullRequestReadyForReview (the REST update ignores `draft`). Its checks and
// reviews: ./github-feedback.ts. Base URL: GITHUB_API_URL (GitHub Enterprise, tests), else
// api.github.com; GraphQL beside it (octokit derives /graphql, or /api/graphql for /api/v3).
import type { Octokit } from '@octokit/rest';
import type { PullRequestRef } from '../../domain/pull-request/types';
import { githubClient, githubProblemOf, githubThread } from '../notifications/github';
import { REQUEST_TIMEOUT_MS } from '../notifications/thread';
import { refusalMessages, type PullRequestApi } from './api';
import { githubStateOf, readGithubFeedback } from './github-feedback';

interface GithubPull {
  number: number;
  html_url: string;
  node_id: string;
  state: string;
  draft?: boolean;
  merged_at?: string | null;
  merged?: boolean;
  head: { sha: string };
}

const refOf = (p: GithubPull, created: boolean): PullRequestRef => ({
  number: p.number,
  url: p.html_url,
  state: githubStateOf(p),
  draft: p.draft === true,
  headSha: p.head.sha,
  created,
});

const MARK_READY = `mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }`;

/** A GraphQL refusal (HTTP 200 with `errors`) as a REST-like error: its status from the error's type, its errors as the body. */
function graphqlRefusal(err: unknown): unknown {
  const errors = (err as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return err;
  const type: unknown = (errors[0] as { type?: unknown } | undefined)?.type;
  const status = type === 'NOT_FOUND' ? 404 : type === 'FORBIDDEN' ? 403 : 422;
  const message = refusalMessages({ errors }).join('; ') || 'GraphQL error';
  return Object.assign(new Error(message), { status, response: { headers: {}, data: { message, errors } } });
}

export function githubPullRequests(repo: string, token: string, baseUrl: string): PullRequestApi {
  const octokit: Octokit = githubClient(token, baseUrl);
  const [owner, name] = repo.split('/') as [string, string];
  const where = { owner, repo: name };
  const request = () => ({ signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const get = async (n: number) => (await octokit.rest.pulls.get({ ...where, pull_number: n, request: request() })).data as GithubPull;
  const thread = (n: number) => githubThread({ service: 'github', repo, kind: 'pull', number: n }, token, baseUrl);
  const refused = (err: unknown, pattern: RegExp) => {
    const p = githubProblemOf(err);
    return p.status === 422 && refusalMessages(p.body).some((m) => pattern.test(m));
  };
  return {
    async find(head) {
      // `head` must name the owner: without it GitHub ignores the filter. Every state: a closed one is still the run's.
      const r = await octokit.rest.pulls.list({ ...where, head: `${owner}:${head}`, state: 'all', per_page: 100, request: request() });
      const mine = (r.data as unknown as (GithubPull & { head: { ref?: string } })[]).filter((p) => p.head.ref === undefined || p.head.ref === head);
      const newest = mine.sort((a, b) => b.number - a.number)[0];
      return newest ? refOf(newest, false) : undefined;
    },
    async create(input) {
      const r = await octokit.rest.pulls.create({
        ...where,
        head: input.head,
        base: input.base,
        title: input.title,
        body: input.body,
        draft: input.draft !== false,
        request: request(),
      });
      return refOf(r.data, true);
    },
    async update(n, change) {
      await octokit.rest.pulls.update({ ...where, pull_number: n, ...change, request: request() });
    },
    async markReady(n) {
      const pr = await get(n);
      if (pr.draft !== true) return refOf(pr, false);
      try {
        await octokit.graphql(MARK_READY, { id: pr.node_id, request: request() });
      } catch (err) {
        throw graphqlRefusal(err);
      }
      return refOf({ ...pr, draft: false }, false);
    },
    read: (input, deadline) => readGithubFeedback(octokit, where, input, thread(input.number), deadline),
    thread,
    problemOf: githubProblemOf,
    unopenable(err) {
      if (refused(err, /no commits between/i)) return 'no-commits';
      const p = githubProblemOf(err);
      const errors = (p.body as { errors?: unknown } | undefined)?.errors;
      const head = Array.isArray(errors) && errors.some((e: { field?: unknown; code?: unknown }) => e?.field === 'head' && e.code === 'invalid');
      return p.status === 422 && head ? 'no-branch' : undefined;
    },
    exists: (err) => refused(err, /pull request already exists/i),
  };
}
