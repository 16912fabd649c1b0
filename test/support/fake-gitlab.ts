/**
 * A real HTTP server speaking the GitLab notes endpoints Replanner uses, for @gitbeaker/rest:
 * GET/POST /api/v4/projects/:id/(issues|merge_requests)/:iid/notes and PUT …/notes/:note_id.
 * The project id is URL-encoded ("group%2Fproject"). Token: the PRIVATE-TOKEN header.
 */
import type * as http from 'node:http';
import { FakeForge, type Route, type StoredComment } from './fake-forge';

const view = (c: StoredComment) => ({ id: c.id, body: c.body, system: false, author: { username: 'replanner' } });

export class FakeGitLab extends FakeForge {
  static async start(token: string): Promise<FakeGitLab> {
    const f = new FakeGitLab(token);
    await f.listen();
    return f;
  }

  protected tokenOf(req: http.IncomingMessage): string | undefined {
    const t = req.headers['private-token'];
    return typeof t === 'string' ? t : undefined;
  }

  protected routes(): Route[] {
    const thread = (m: RegExpExecArray) => `${decodeURIComponent(m[1]!)}${m[2] === 'merge_requests' ? '!' : '#'}${m[3]}`;
    const notes = '^/api/v4/projects/([^/]+)/(issues|merge_requests)/(\\d+)/notes';
    return [
      {
        method: 'GET',
        pattern: new RegExp(`${notes}$`),
        handle: (m, _b, url) => {
          // Offset pagination as GitLab does it: x-next-page, and the link header gitbeaker follows.
          const { page, next } = this.list(thread(m), url);
          const to = new URL(`${this.baseURL}${url.pathname}${url.search}`);
          to.searchParams.set('page', String(next));
          return [200, page.map(view), next ? { 'x-next-page': String(next), link: `<${to.href}>; rel="next"` } : undefined];
        },
      },
      {
        method: 'POST',
        pattern: new RegExp(`${notes}$`),
        handle: (m, b, _u, rec) => {
          if (typeof b?.body !== 'string') return [400, { message: 'body is missing' }];
          const c = this.create(thread(m), b.body);
          rec.commentId = c.id;
          return [201, view(c)];
        },
      },
      {
        method: 'PUT',
        pattern: new RegExp(`${notes}/(\\d+)$`),
        handle: (m, b, _u, rec) => {
          const c = typeof b?.body === 'string' ? this.edit(Number(m[4]), b.body) : undefined;
          if (!c || c.thread !== thread(m)) return [404, { message: '404 Not found' }];
          rec.commentId = c.id;
          return [200, view(c)];
        },
      },
    ];
  }

  /** Notes of `group/project!n` (merge request) or `group/project#n` (issue). */
  notesOf(thread: string): StoredComment[] {
    return this.comments.filter((c) => c.thread === thread);
  }
}
