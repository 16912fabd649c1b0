/**
 * A real HTTP server speaking the GitLab endpoints Replanner uses, for @gitbeaker/rest:
 * GET/POST /api/v4/projects/:id/(issues|merge_requests)/:iid/notes (20 a page unless asked, at most
 * 100; `order_by` created_at | updated_at, `sort` asc | desc), PUT …/notes/:note_id and
 * GET /api/v4/projects/:id/members/all/:user_id; merge requests, pipelines, jobs and their logs,
 * reviewers and approvals (fake-gitlab-mrs.ts). The project id is URL-encoded
 * ("group%2Fproject"). Token: the PRIVATE-TOKEN header.
 */
import type * as http from 'node:http';
import { BOT_USER, FakeForge, type Route, type StoredComment } from './fake-forge';
import { GitlabMrStore } from './fake-gitlab-mrs';

export class FakeGitLab extends FakeForge {
  /** Access levels set by the test (else Developer 30 for writers, Reporter 20 for the others). */
  private readonly levels = new Map<string, number>();
  /** Merge requests, pipelines and jobs, reviewers, approvals. */
  readonly mrs = new GitlabMrStore({
    baseURL: () => this.baseURL,
    user: (login) => {
      if (!this.userIds.has(login)) this.addUser(login, false);
      return { id: this.userIds.get(login)!, username: login };
    },
    page: (items, url) => this.linkedPage(items, url, 20, true),
    branches: (project) => this.branchSources.get(project),
  });

  /** A member with this access level (Guest 10, Reporter 20, Developer 30, Maintainer 40, Owner 50). */
  setAccessLevel(user: string, level: number): void {
    this.addUser(user, level >= 30);
    this.levels.set(user, level);
  }

  protected tokenOf(req: http.IncomingMessage): string | undefined {
    const t = req.headers['private-token'];
    return typeof t === 'string' ? t : undefined;
  }

  protected view(c: StoredComment) {
    return {
      id: c.id,
      body: c.body,
      system: false,
      author: { username: c.user, id: this.userIds.get(c.user) ?? 0 },
      created_at: new Date(c.createdAt).toISOString(),
      updated_at: new Date(c.updatedAt).toISOString(),
    };
  }

  protected routes(): Route[] {
    const thread = (m: RegExpExecArray) => `${decodeURIComponent(m[1]!)}${m[2] === 'merge_requests' ? '!' : '#'}${m[3]}`;
    const notes = '^/api/v4/projects/([^/]+)/(issues|merge_requests)/(\\d+)/notes';
    return [
      {
        method: 'GET',
        pattern: new RegExp(`${notes}$`),
        handle: (m, _b, url) => {
          const key = url.searchParams.get('order_by') === 'updated_at' ? 'updatedAt' : 'createdAt';
          // GitLab lists notes newest first unless asked otherwise.
          const desc = url.searchParams.get('sort') !== 'asc';
          const all = [...this.threadComments(thread(m))].sort((a, b) => (a[key] - b[key] || a.id - b.id) * (desc ? -1 : 1));
          const { page, headers } = this.linkedPage(all, url, 20, true);
          return [200, page.map((c) => this.view(c)), headers];
        },
      },
      this.createRoute('POST', new RegExp(`${notes}$`), thread, [400, { message: 'body is missing' }]),
      this.editRoute('PUT', new RegExp(`${notes}/(\\d+)$`), (m) => Number(m[4]), '404 Not found', thread),
      {
        method: 'GET',
        pattern: /^\/api\/v4\/projects\/([^/]+)\/members\/all\/(\d+)$/,
        handle: (m) => {
          const id = Number(m[2]);
          const user = [...this.userIds.entries()].find(([, v]) => v === id)?.[0];
          // A member with write access is a Developer (30); others are Reporters (20); strangers are not members.
          if (user === undefined || !this.writers.has(user)) return [404, { message: '404 Not found' }];
          return [200, { id, username: user, access_level: this.levels.get(user) ?? (this.writers.get(user) ? 30 : 20) }];
        },
      },
      ...this.mrs.routes(() => BOT_USER),
    ];
  }

  /** Notes of `group/project!n` (merge request) or `group/project#n` (issue). */
  notesOf(thread: string): StoredComment[] {
    return this.threadComments(thread);
  }
}
