/**
 * The pull requests of the fake GitHub (fake-github.ts), as GitHub's REST and GraphQL APIs show
 * them to @octokit/rest: list by `head=owner:branch` (the filter is ignored without the owner, and
 * only open ones are listed unless `state=all`), create (422 with no commits between base and head,
 * or when one is open for the head already), get, update (which ignores `draft`: only the GraphQL
 * mutation markPullRequestReadyForReview takes a draft out), reviews and their line comments. A
 * test adds reviews and merges or closes a pull request; the checks of a commit are
 * fake-github-checks.ts'. No jest here.
 */
import { itemRoutes, type JsonBody, type Route } from './fake-forge';
import type { BranchSource } from './fake-git';

/** GitHub's timestamps: ISO 8601 to the second. */
export const githubTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export interface FakePull {
  repo: string;
  number: number;
  node_id: string;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  user: string;
  createdAt: number;
  updatedAt: number;
  /** PATCHes of its title or body. */
  edits: number;
}

export interface FakeReview {
  id: number;
  repo: string;
  number: number;
  user: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';
  body: string;
  commit_id: string;
  submittedAt: number;
  comments: { id: number; path: string; line: number; body: string }[];
}

/** What the store needs of its server. */
export interface PullsHost {
  baseURL(): string;
  userId(login: string): number;
  /** Numbers of issues and pull requests with comments (GitHub numbers both in one sequence). */
  threadNumbers(repo: string): number[];
  /** One page of `items` and the link to the next (GitHub's pagination). */
  page<T>(items: T[], url: URL): { page: T[]; headers?: Record<string, string> };
  /** Where the repository's branches are read from (a bare git repository, or what the test says). */
  branches(repo: string): BranchSource | undefined;
}

const REPO = '/repos/([^/]+)/([^/]+)';

export class GithubPullStore {
  readonly pulls: FakePull[] = [];
  readonly reviews: FakeReview[] = [];
  /** The GraphQL requests, with their variables. */
  readonly graphql: { query: string; variables: Record<string, unknown> }[] = [];
  private nextId = 5000;

  constructor(private readonly host: PullsHost) {}

  pull(repo: string, number: number): FakePull | undefined {
    return this.pulls.find((p) => p.repo === repo && p.number === number);
  }

  /** The head commit the pull request shows: its branch's, as the repository has it now. */
  headSha(p: FakePull): string {
    return this.host.branches(p.repo)?.head(p.head) ?? '0'.repeat(40);
  }

  review(
    repo: string,
    number: number,
    user: string,
    state: FakeReview['state'],
    body: string,
    comments: { path: string; line: number; body: string }[] = [],
  ): FakeReview {
    const p = this.pull(repo, number);
    if (!p) throw new Error(`no pull request ${repo}#${number}`);
    const r: FakeReview = {
      id: this.nextId++,
      repo,
      number,
      user,
      state,
      body,
      commit_id: this.headSha(p),
      submittedAt: Date.now(),
      comments: comments.map((c) => ({ id: this.nextId++, ...c })),
    };
    this.reviews.push(r);
    return r;
  }

  merge(repo: string, number: number): void {
    const p = this.pull(repo, number)!;
    Object.assign(p, { state: 'closed', merged: true, updatedAt: Date.now() });
  }

  close(repo: string, number: number): void {
    Object.assign(this.pull(repo, number)!, { state: 'closed', updatedAt: Date.now() });
  }

  view(p: FakePull) {
    const owner = p.repo.split('/')[0]!;
    return {
      url: `${this.host.baseURL()}/repos/${p.repo}/pulls/${p.number}`,
      id: p.number * 7 + 1,
      node_id: p.node_id,
      html_url: `https://github.example/${p.repo}/pull/${p.number}`,
      number: p.number,
      state: p.state,
      draft: p.draft,
      title: p.title,
      body: p.body,
      user: { login: p.user, id: this.host.userId(p.user), type: 'User' },
      created_at: githubTime(p.createdAt),
      updated_at: githubTime(p.updatedAt),
      merged: p.merged,
      merged_at: p.merged ? githubTime(p.updatedAt) : null,
      closed_at: p.state === 'closed' ? githubTime(p.updatedAt) : null,
      head: { label: `${owner}:${p.head}`, ref: p.head, sha: this.headSha(p) },
      base: { label: `${owner}:${p.base}`, ref: p.base, sha: this.host.branches(p.repo)?.head(p.base) ?? '' },
    };
  }

  private create(repo: string, b: JsonBody | undefined, user: string): [number, unknown] {
    const invalid = (field: string) =>
      [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field, code: 'invalid' }] }] as [number, unknown];
    const custom = (message: string) =>
      [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message }] }] as [number, unknown];
    const { head, base, title } = (b ?? {}) as { head?: unknown; base?: unknown; title?: unknown };
    if (typeof title !== 'string' || title === '')
      return [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'title', code: 'missing_field' }] }];
    if (typeof head !== 'string' || typeof base !== 'string') return invalid(typeof head !== 'string' ? 'head' : 'base');
    const branch = head.includes(':') ? head.slice(head.indexOf(':') + 1) : head;
    const git = this.host.branches(repo);
    if (!git?.head(branch)) return invalid('head');
    if (!git.head(base)) return invalid('base');
    if (this.pulls.some((p) => p.repo === repo && p.head === branch && p.base === base && p.state === 'open')) {
      return custom(`A pull request already exists for ${repo.split('/')[0]}:${branch}.`);
    }
    if (git.ahead(base, branch) === 0) return custom(`No commits between ${base} and ${branch}`);
    const number = Math.max(0, ...this.host.threadNumbers(repo), ...this.pulls.filter((p) => p.repo === repo).map((p) => p.number)) + 1;
    const now = Date.now();
    const p: FakePull = {
      repo,
      number,
      node_id: `PR_kw${Buffer.from(`${repo}#${number}`).toString('base64url')}`,
      title,
      body: typeof b?.body === 'string' ? b.body : '',
      head: branch,
      base,
      draft: b?.draft === true,
      state: 'open',
      merged: false,
      user,
      createdAt: now,
      updatedAt: now,
      edits: 0,
    };
    this.pulls.push(p);
    return [201, this.view(p)];
  }

  /** A PATCH / PUT of the item (the route's body). */
  change(p: FakePull, b: JsonBody | undefined): void {
    // GitHub's REST update takes title, body, state and base; `draft` is not among them.
    if (typeof b?.title === 'string') p.title = b.title;
    if (typeof b?.body === 'string') p.body = b.body;
    if (b?.state === 'closed' || b?.state === 'open') p.state = b.state;
    if (typeof b?.title === 'string' || typeof b?.body === 'string') p.edits += 1;
    p.updatedAt = Date.now();
  }

  /** The GraphQL endpoint: markPullRequestReadyForReview only; anything else is a GraphQL error. */
  private graphqlRequest(b: JsonBody | undefined): [number, unknown] {
    const query = typeof b?.query === 'string' ? b.query : '';
    const variables = (b?.variables ?? {}) as Record<string, unknown>;
    this.graphql.push({ query, variables });
    if (!/markPullRequestReadyForReview/.test(query)) return [200, { errors: [{ message: 'This fake knows only markPullRequestReadyForReview' }] }];
    const id = variables.id ?? variables.pullRequestId;
    const p = this.pulls.find((x) => x.node_id === id);
    if (!p)
      return [
        200,
        {
          data: { markPullRequestReadyForReview: null },
          errors: [
            {
              type: 'NOT_FOUND',
              path: ['markPullRequestReadyForReview'],
              message: `Could not resolve to a node with the global id of '${String(id)}'`,
            },
          ],
        },
      ];
    p.draft = false;
    p.updatedAt = Date.now();
    return [200, { data: { markPullRequestReadyForReview: { pullRequest: { isDraft: false, number: p.number } } } }];
  }

  private reviewView(r: FakeReview) {
    const state = r.state;
    return {
      id: r.id,
      node_id: `PRR_${r.id}`,
      user: { login: r.user, id: this.host.userId(r.user), type: /\[bot\]$/.test(r.user) ? 'Bot' : 'User' },
      body: r.body,
      state,
      html_url: `https://github.example/${r.repo}/pull/${r.number}#pullrequestreview-${r.id}`,
      commit_id: r.commit_id,
      ...(state === 'PENDING' ? {} : { submitted_at: githubTime(r.submittedAt) }),
    };
  }

  routes(who: () => string): Route[] {
    const repoOf = (m: RegExpExecArray) => `${m[1]}/${m[2]}`;
    const pullOf = (m: RegExpExecArray) => this.pull(repoOf(m), Number(m[3]));
    const notFound: [number, unknown] = [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    const paged = <T>(items: T[], url: URL): [number, unknown, Record<string, string>?] => {
      const { page, headers } = this.host.page(items, url);
      return [200, page, headers];
    };
    return [
      {
        method: 'GET',
        pattern: new RegExp(`^${REPO}/pulls$`),
        handle: (m, _b, url) => {
          const state = url.searchParams.get('state') ?? 'open';
          const head = url.searchParams.get('head');
          // GitHub reads `head` only as owner:branch; without the owner the filter is not applied.
          const [owner, branch] = head?.includes(':')
            ? [head.slice(0, head.indexOf(':')), head.slice(head.indexOf(':') + 1)]
            : [undefined, undefined];
          const all = this.pulls
            .filter((p) => p.repo === repoOf(m) && (state === 'all' || p.state === state))
            .filter((p) => branch === undefined || (owner === m[1] && p.head === branch))
            .sort((a, b) => b.number - a.number);
          return paged(
            all.map((p) => this.view(p)),
            url,
          );
        },
      },
      { method: 'POST', pattern: new RegExp(`^${REPO}/pulls$`), handle: (m, b) => this.create(repoOf(m), b, who()) },
      ...itemRoutes(new RegExp(`^${REPO}/pulls/(\\d+)$`), 'PATCH', pullOf, this, notFound),
      {
        method: 'GET',
        pattern: new RegExp(`^${REPO}/pulls/(\\d+)/reviews$`),
        handle: (m, _b, url) =>
          pullOf(m)
            ? paged(
                this.reviews.filter((r) => r.repo === repoOf(m) && r.number === Number(m[3])).map((r) => this.reviewView(r)),
                url,
              )
            : notFound,
      },
      {
        method: 'GET',
        pattern: new RegExp(`^${REPO}/pulls/(\\d+)/reviews/(\\d+)/comments$`),
        handle: (m, _b, url) => {
          const r = this.reviews.find((x) => x.repo === repoOf(m) && x.number === Number(m[3]) && x.id === Number(m[4]));
          if (!r) return notFound;
          return paged(
            r.comments.map((c) => ({
              id: c.id,
              pull_request_review_id: r.id,
              path: c.path,
              line: c.line,
              original_line: c.line,
              body: c.body,
              user: { login: r.user },
            })),
            url,
          );
        },
      },
      { method: 'POST', pattern: /^\/(?:api\/)?graphql$/, handle: (_m, b) => this.graphqlRequest(b) },
    ];
  }
}
