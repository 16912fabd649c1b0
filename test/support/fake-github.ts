/**
 * A real HTTP server speaking the GitHub REST endpoints Replanner uses, for @octokit/rest:
 * GET/POST /repos/{owner}/{repo}/issues/{n}/comments and PATCH /repos/{owner}/{repo}/issues/comments/{id}
 * (a pull request's conversation comments are the same issue comments). Token: `Authorization:
 * token …` or `Bearer …`.
 */
import type * as http from 'node:http';
import { FakeForge, type Route, type StoredComment } from './fake-forge';

const view = (c: StoredComment) => ({ id: c.id, body: c.body, html_url: `https://github.example/comment/${c.id}`, user: { login: 'replanner' } });

export class FakeGitHub extends FakeForge {
  static async start(token: string): Promise<FakeGitHub> {
    const f = new FakeGitHub(token);
    await f.listen();
    return f;
  }

  protected tokenOf(req: http.IncomingMessage): string | undefined {
    return /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  }

  protected routes(): Route[] {
    const thread = (m: RegExpExecArray) => `${m[1]}/${m[2]}#${m[3]}`;
    return [
      {
        method: 'GET',
        pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/,
        handle: (m, _b, url) => {
          // Pages are linked as GitHub does (octokit's paginate follows rel="next").
          const { page, next } = this.list(thread(m), url);
          const to = new URL(`${this.baseURL}${url.pathname}${url.search}`);
          to.searchParams.set('page', String(next));
          return [200, page.map(view), next ? { link: `<${to.href}>; rel="next"` } : undefined];
        },
      },
      {
        method: 'POST',
        pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/,
        handle: (m, b, _u, rec) => {
          if (typeof b?.body !== 'string') return [422, { message: 'Validation Failed' }];
          const c = this.create(thread(m), b.body);
          rec.commentId = c.id;
          return [201, view(c)];
        },
      },
      {
        method: 'PATCH',
        pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/,
        handle: (m, b, _u, rec) => {
          const c = typeof b?.body === 'string' ? this.edit(Number(m[3]), b.body) : undefined;
          if (!c) return [404, { message: 'Not Found' }];
          rec.commentId = c.id;
          return [200, view(c)];
        },
      },
    ];
  }

  /** Comments of `owner/repo#n`. */
  commentsOf(thread: string): StoredComment[] {
    return this.comments.filter((c) => c.thread === thread);
  }
}
