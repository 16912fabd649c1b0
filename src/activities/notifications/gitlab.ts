// X10/X11 on GitLab through @gitbeaker/rest: notes of an issue or a merge request. Host: the
// config's `url`, else GITLAB_URL, else https://gitlab.com. gitbeaker's own requester retries a
// 429 or 502 a few times within a second; after that Temporal's retry policy takes over.
import { IssueNotes, MergeRequestNotes } from '@gitbeaker/rest';
import { networkKindOf } from '../../domain/failures';
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
      const e = err as { name?: unknown; message?: unknown; cause?: { response?: Response; description?: unknown } };
      const message = typeof e.message === 'string' ? e.message : String(err);
      const response = e.cause?.response;
      if (response && typeof response.status === 'number') {
        const headers: Record<string, string | undefined> = {};
        response.headers?.forEach((v, k) => (headers[k] = v));
        return { status: response.status, headers, body: e.cause?.description, detail: message };
      }
      if (e.name === 'GitbeakerTimeoutError') return { network: 'timeout', detail: message };
      // GitbeakerRetryError: its own retries of a 429 / 502 ran out. The status is only in its
      // message ("… last status code: 429"): read as the fact it is, then decided by the table.
      const last = e.name === 'GitbeakerRetryError' ? /last status code: (\d{3})/.exec(message) : null;
      return last ? { status: Number(last[1]), detail: message } : { network: networkKindOf(err) ?? 'other', detail: message };
    },
  };
}
