// Notifications and the plan checklist on GitLab through @gitbeaker/rest: notes of an issue or a
// merge request. Host: the config's `url`, else GITLAB_URL, else https://gitlab.com. Each request
// is sent once (./gitlab-requester.ts): a 429 or 5xx reaches the run's delivery queue with its
// headers, and the retry table decides, as for GitHub.
import { IssueNotes, MergeRequestNotes, ProjectMembers } from '@gitbeaker/rest';
import { networkKindOf } from '../../domain/failures';
import type { NotifyTarget } from '../../domain/notifications';
import { gitlabMayWrite } from '../../domain/run/tracker-answers';
import { singleAttemptRequester, type Conditional } from './gitlab-requester';
import { REQUEST_TIMEOUT_MS, type CommentThread, type RepliesPage, type RequestProblem, type ThreadComment } from './thread';

type GitlabTarget = Extract<NotifyTarget, { service: 'gitlab' }>;

/** Pages of 100 notes the replies poll reads at most (a burst of replies beyond is read at the next poll). */
const MAX_REPLY_PAGES = 3;

interface GitlabNote {
  id: number;
  body?: unknown;
  system?: unknown;
  author?: { username?: unknown; id?: unknown };
  created_at?: string;
  updated_at?: string;
}

const replyOf = (n: GitlabNote): ThreadComment => ({
  id: n.id,
  author: typeof n.author?.username === 'string' ? n.author.username : '',
  ...(typeof n.author?.id === 'number' ? { authorId: n.author.id } : {}),
  body: typeof n.body === 'string' ? n.body : '',
  createdAt: n.created_at ?? '',
  updatedAt: n.updated_at ?? '',
});

const statusOf = (err: unknown): unknown => (err as { cause?: { response?: { status?: unknown } } }).cause?.response?.status;

/**
 * The options of the worker's gitbeaker resources: the token in the PRIVATE-TOKEN header only, each
 * request sent once and given `timeoutMs` (a request's limit by default); `conditional` makes GETs
 * conditional; with `textTailBytes` a body is read only to its end (a job's log).
 */
export function gitlabOptions(token: string, host: string, extra: { conditional?: Conditional; textTailBytes?: number; timeoutMs?: number } = {}) {
  const requesterFn = singleAttemptRequester(extra.conditional ?? {}, extra.textTailBytes);
  return { host: host.replace(/\/+$/, ''), token, queryTimeout: extra.timeoutMs ?? REQUEST_TIMEOUT_MS, requesterFn };
}

/** A GitLab project as gitbeaker takes it: a numeric id as a number, else its path. */
export const gitlabProjectId = (project: string): string | number => (/^\d+$/.test(project) ? Number(project) : project);

/** What a gitbeaker error says (status, headers, message) without its request (which holds the token). */
export function gitlabProblemOf(err: unknown): RequestProblem {
  const e = err as { name?: unknown; message?: unknown; cause?: { response?: Response; description?: unknown } };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const response = e.cause?.response;
  if (response && typeof response.status === 'number') {
    const headers: Record<string, string | undefined> = {};
    response.headers?.forEach((v, k) => (headers[k] = v));
    return { status: response.status, headers, body: e.cause?.description, detail: message };
  }
  if (e.name === 'GitbeakerTimeoutError') return { network: 'timeout', detail: message };
  return { network: networkKindOf(err) ?? 'other', detail: message };
}

export function gitlabThread(target: GitlabTarget, token: string, host: string): CommentThread {
  const conditional: Conditional = {};
  const options = gitlabOptions(token, host, { conditional });
  const notes = target.kind === 'merge_request' ? new MergeRequestNotes(options) : new IssueNotes(options);
  const project = gitlabProjectId(target.project);
  return {
    async find(marker) {
      // Every page (GitLab gives 20 notes a page unless asked; at most 100): a long thread is searched whole.
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
    async changedSince(since, etag, max): Promise<RepliesPage> {
      const sinceMs = Date.parse(since);
      const changed: ThreadComment[] = [];
      let tag: string | undefined;
      // Newest change first, until a note older than `since`: GitLab's notes API has no `since`.
      for (let page = 1; page <= MAX_REPLY_PAGES; page++) {
        if (page === 1 && etag) conditional.ifNoneMatch = etag;
        let data: GitlabNote[];
        try {
          data = await notes.all(project, target.number, { orderBy: 'updated_at', sort: 'desc', perPage: 100, page, maxPages: 1 });
        } catch (err) {
          if (page === 1 && statusOf(err) === 304) return { notModified: true, ...(etag ? { etag } : {}) };
          throw err;
        }
        if (page === 1) tag = conditional.etag;
        const fresh = data.filter((n) => !(Date.parse(n.updated_at ?? '') < sinceMs));
        changed.push(...fresh.filter((n) => n.system !== true).map(replyOf));
        if (fresh.length < data.length || data.length < 100) break;
      }
      return { notModified: false, ...(tag ? { etag: tag } : {}), comments: changed.reverse().slice(0, max) };
    },
    async canWrite({ authorId }) {
      if (authorId === undefined) return false;
      try {
        const m = await new ProjectMembers(options).show(project, authorId, { includeInherited: true });
        return gitlabMayWrite((m as { access_level?: unknown }).access_level);
      } catch (err) {
        // Not a member (of the project or its groups): no write access.
        if (statusOf(err) === 404) return false;
        throw err;
      }
    },
    problemOf: gitlabProblemOf,
  };
}
