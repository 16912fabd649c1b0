// X10/X11 on GitLab through @gitbeaker/rest: notes of an issue or a merge request. Host: the
// config's `url`, else GITLAB_URL, else https://gitlab.com. gitbeaker's own requester retries a
// 429 or 502 a few times within a second; after that Temporal's retry policy takes over.
import { IssueNotes, MergeRequestNotes } from '@gitbeaker/rest';
import type { NotifyTarget } from '../../domain/notifications';
import { REQUEST_TIMEOUT_MS, type CommentThread, type RequestProblem } from './thread';

type GitlabTarget = Extract<NotifyTarget, { service: 'gitlab' }>;

export function gitlabThread(target: GitlabTarget, token: string, host: string): CommentThread {
  const options = { host: host.replace(/\/+$/, ''), token, queryTimeout: REQUEST_TIMEOUT_MS };
  const notes = target.kind === 'merge_request' ? new MergeRequestNotes(options) : new IssueNotes(options);
  const project = /^\d+$/.test(target.project) ? Number(target.project) : target.project;
  return {
    async find(marker) {
      const all = await notes.all(project, target.number, { perPage: 100 });
      return all.find((n) => typeof n.body === 'string' && n.body.includes(marker))?.id;
    },
    async create(body) {
      const n = await notes.create(project, target.number, body);
      return n.id;
    },
    async update(id, body) {
      await notes.edit(project, target.number, id, { body });
    },
    problemOf(err: unknown): RequestProblem {
      const e = err as { message?: unknown; cause?: { response?: Response; description?: unknown } };
      const message = typeof e.message === 'string' ? e.message : String(err);
      const response = e.cause?.response;
      if (response && typeof response.status === 'number') {
        const headers: Record<string, string | undefined> = {};
        response.headers?.forEach((v, k) => (headers[k] = v));
        return { status: response.status, headers, detail: message };
      }
      // GitbeakerRetryError: its own retries of a 429 / 502 ran out ("… last status code: 429").
      const last = /last status code: (\d{3})/.exec(message);
      return last ? { status: Number(last[1]), detail: message } : { detail: message };
    },
  };
}
