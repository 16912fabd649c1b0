/**
 * A real HTTP server speaking the GitHub REST endpoints Replanner uses, for @octokit/rest:
 * GET/POST /repos/{owner}/{repo}/issues/{n}/comments (30 a page unless asked, at most 100; `since`
 * filters by the time of the last change), PATCH /repos/{owner}/{repo}/issues/comments/{id} (a pull
 * request's conversation comments are the same issue comments) and
 * GET /repos/{owner}/{repo}/collaborators/{user}/permission. Times are GitHub's: whole seconds.
 * Token: `Authorization: token …` or `Bearer …`.
 */
import type * as http from 'node:http';
import { FakeForge, type Route, type StoredComment } from './fake-forge';

/** GitHub's timestamps: ISO 8601 to the second. */
const time = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export class FakeGitHub extends FakeForge {
  protected tokenOf(req: http.IncomingMessage): string | undefined {
    return /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  }

  protected view(c: StoredComment) {
    return {
      id: c.id,
      body: c.body,
      html_url: `https://github.example/comment/${c.id}`,
      user: { login: c.user, id: this.userIds.get(c.user) ?? 0 },
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
          // Pages are linked as GitHub does (octokit's paginate follows rel="next").
          const { page, next } = this.pageOf(all, url, 30);
          const to = new URL(`${this.baseURL}${url.pathname}${url.search}`);
          to.searchParams.set('page', String(next));
          return [200, page.map((c) => this.view(c)), next ? { link: `<${to.href}>; rel="next"` } : undefined];
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
          const permission = may ? 'write' : 'read';
          return [200, { permission, role_name: permission, user: { login: user, id: this.userIds.get(user) } }];
        },
      },
    ];
  }
}
