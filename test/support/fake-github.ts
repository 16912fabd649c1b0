/**
 * A real HTTP server speaking the GitHub REST endpoints Replanner uses, for @octokit/rest:
 * GET/POST /repos/{owner}/{repo}/issues/{n}/comments (30 a page unless asked, at most 100; `since`
 * filters by the time of the last change), PATCH /repos/{owner}/{repo}/issues/comments/{id} (a pull
 * request's conversation comments are the same issue comments) and
 * GET /repos/{owner}/{repo}/collaborators/{user}/permission; pull requests, their checks and
 * reviews, and the GraphQL mutation that marks one ready (fake-github-pulls.ts); check runs,
 * statuses and job logs (fake-github-checks.ts). Times are GitHub's: whole seconds. Token: `Authorization: token …` or `Bearer …`.
 */
import type * as http from 'node:http';
import { BOT_USER, FakeForge, type Route, type StoredComment } from './fake-forge';
import { GithubCheckStore } from './fake-github-checks';
import { GithubPullStore, githubTime as time } from './fake-github-pulls';

/** A collaborator's role: GitHub's permission API says `write` for maintain and `read` for triage. */
export type GithubRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read';
const PERMISSION: Record<GithubRole, string> = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read' };

export class FakeGitHub extends FakeForge {
  private readonly roles = new Map<string, GithubRole>();
  /** Pull requests, reviews, GraphQL calls. */
  readonly pulls = new GithubPullStore({
    baseURL: () => this.baseURL,
    userId: (login) => this.userIds.get(login) ?? 0,
    threadNumbers: (repo) => this.comments.filter((c) => c.thread.startsWith(`${repo}#`)).map((c) => Number(c.thread.slice(repo.length + 1))),
    page: (items, url) => this.linkedPage(items, url, 30),
    branches: (repo) => this.branchSources.get(repo),
  });
  /** Check runs and statuses of commits, and GitHub Actions jobs' logs. */
  readonly checks = new GithubCheckStore({ baseURL: () => this.baseURL, page: (items, url) => this.linkedPage(items, url, 30) });

  /** A collaborator with this role (admin, maintain and write may write; triage and read may not). */
  setRole(user: string, role: GithubRole): void {
    this.addUser(user, PERMISSION[role] !== 'read');
    this.roles.set(user, role);
  }

  protected tokenOf(req: http.IncomingMessage): string | undefined {
    return /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  }

  protected view(c: StoredComment) {
    return {
      id: c.id,
      body: c.body,
      html_url: `https://github.example/comment/${c.id}`,
      user: { login: c.user, id: this.userIds.get(c.user) ?? 0, type: /\[bot\]$/.test(c.user) ? 'Bot' : 'User' },
      created_at: time(c.createdAt),
      updated_at: time(c.updatedAt),
    };
  }

  protected routes(): Route[] {
    const thread = (m: RegExpExecArray) => `${m[1]}/${m[2]}#${m[3]}`;
    return [
      {
        method: 'GET',
        pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/,
        handle: (m, _b, url) => {
          const since = url.searchParams.get('since');
          const sinceMs = since ? Date.parse(since) : Number.NEGATIVE_INFINITY;
          const all = this.threadComments(thread(m)).filter((c) => Math.floor(c.updatedAt / 1000) * 1000 >= sinceMs);
          const { page, headers } = this.linkedPage(all, url, 30);
          return [200, page.map((c) => this.view(c)), headers];
        },
      },
      this.createRoute('POST', /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/, thread, [422, { message: 'Validation Failed' }]),
      this.editRoute('PATCH', /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/, (m) => Number(m[3]), 'Not Found'),
      {
        method: 'GET',
        pattern: /^\/repos\/([^/]+)\/([^/]+)\/collaborators\/([^/]+)\/permission$/,
        handle: (m) => {
          const user = decodeURIComponent(m[3]!);
          const may = this.writers.get(user);
          if (may === undefined) return [404, { message: 'Not Found' }];
          const role = this.roles.get(user) ?? (may ? 'write' : 'read');
          return [200, { permission: PERMISSION[role], role_name: role, user: { login: user, id: this.userIds.get(user) } }];
        },
      },
      ...this.pulls.routes(() => BOT_USER),
      ...this.checks.routes(),
    ];
  }
}
