// G4 on GitLab: one read of a merge request. Its state and head; the jobs of the newest pipeline
// for the head (for a job that failed and is not allowed to, the end of its log); its reviewers
// (one who requested changes, with their newest notes as the text); who approved; the notes changed
// since the cursor (a conditional request). Every author is checked once per run: Developer (30)
// or above may review. Log tails are read only for failures the run has not seen.
import { Jobs, MergeRequestApprovals, MergeRequestNotes, MergeRequests, Pipelines } from '@gitbeaker/rest';
import { checkSummary, gitlabJobState, logTail } from '../../domain/pull-request/checks';
import { emptySeen, isBotAccount, isOwnText, parsePullRequestCommand } from '../../domain/pull-request/feedback';
import type { PullRequestCheck, PullRequestFeedback, PullRequestReview, PullRequestState, ReadFeedbackInput } from '../../domain/pull-request/types';
import { clipCounted } from '../../domain/text';
import { gitlabOptions, gitlabProblemOf } from '../notifications/gitlab';
import type { CommentThread } from '../notifications/thread';
import { authorityCache, checkOf, commentsSince, LOG_READ_BYTES, MAX_REVIEW_CHARS, type ReadDeadline } from './api';

/** Failed jobs whose log is read in one read, at most. */
const MAX_LOGS = 5;
/** A reviewer's notes that make the text of their request for changes, at most (newest). */
const MAX_REVIEW_NOTES = 3;

interface Where {
  project: string | number;
  token: string;
  host: string;
}

/** Resources' options for the next request: what is left of the read's time (`extra`: a log's tail). */
const optionsAt = (w: Where, deadline: ReadDeadline, textTailBytes?: number) =>
  gitlabOptions(w.token, w.host, { timeoutMs: deadline.requestMs(), ...(textTailBytes !== undefined ? { textTailBytes } : {}) });

interface Job {
  id: number;
  name: string;
  status: string;
  allow_failure?: boolean;
  failure_reason?: string;
  web_url?: string;
}

interface Note {
  id: number;
  body?: string;
  system?: boolean;
  author?: { username?: string; id?: number };
  created_at?: string;
  position?: { new_path?: string; new_line?: number | null; old_path?: string; old_line?: number | null } | null;
}

/** A merge request's state: opened (and locked, mid-merge) is open. */
export const gitlabStateOf = (state: string): PullRequestState => (state === 'merged' ? 'merged' : state === 'closed' ? 'closed' : 'open');

/** A read that older GitLab versions or editions do not answer (404, 403): nothing, not a failure. */
async function optional<T>(read: () => Promise<T>, none: T): Promise<T> {
  try {
    return await read();
  } catch (err) {
    const status = gitlabProblemOf(err).status;
    if (status === 404 || status === 403) return none;
    throw err;
  }
}

async function readJobs(w: Where, headSha: string, fresh: (key: string) => boolean, deadline: ReadDeadline): Promise<PullRequestCheck[]> {
  const pipelines = (await new Pipelines(optionsAt(w, deadline)).all(w.project, {
    sha: headSha,
    orderBy: 'id',
    sort: 'desc',
    perPage: 5,
    maxPages: 1,
  })) as unknown as {
    id: number;
  }[];
  const newest = pipelines.sort((a, b) => b.id - a.id)[0];
  if (!newest) return [];
  const jobs = (await new Jobs(optionsAt(w, deadline)).all(w.project, { pipelineId: newest.id, perPage: 100, maxPages: 3 })) as unknown as Job[];
  const checks: PullRequestCheck[] = [];
  let read = 0;
  for (const j of jobs) {
    const state = gitlabJobState(j.status, j.allow_failure);
    const key = `job:${j.name}`;
    const summary = checkSummary(j.failure_reason ? `failure reason: ${j.failure_reason}` : undefined);
    const tail =
      state === 'failed' && fresh(key) && deadline.roomForExtras() && read++ < MAX_LOGS
        ? await optional(async () => logTail(String(await new Jobs(optionsAt(w, deadline, LOG_READ_BYTES)).showLog(w.project, j.id))), '')
        : '';
    checks.push(checkOf({ key, name: j.name, source: 'pipeline_job', state }, { summary, logTail: tail, url: j.web_url }));
  }
  return checks;
}

/** Reviewers who requested changes, each as a review: the text is their newest notes (a line note with its `path:line`). */
async function readReviews(
  w: Where,
  number: number,
  authorityOf: (login: string, id?: number) => Promise<boolean>,
  deadline: ReadDeadline,
): Promise<PullRequestReview[]> {
  const reviewers = await optional(
    async () =>
      (await new MergeRequests(optionsAt(w, deadline)).showReviewers(w.project, number)) as unknown as {
        user?: { username?: string; id?: number };
        state?: string;
      }[],
    [],
  );
  const asking = reviewers.filter((r) => r.state === 'requested_changes' && typeof r.user?.username === 'string');
  if (asking.length === 0) return [];
  const notes = (await new MergeRequestNotes(optionsAt(w, deadline)).all(w.project, number, {
    orderBy: 'created_at',
    sort: 'desc',
    perPage: 100,
    maxPages: 1,
  })) as unknown as Note[];
  const out: PullRequestReview[] = [];
  for (const r of asking) {
    const author = r.user!.username!;
    // Their own words: not a system note, not a `/replanner` command (a trigger of its own).
    const theirs = notes
      .filter(
        (n) =>
          n.author?.username === author &&
          n.system !== true &&
          typeof n.body === 'string' &&
          parsePullRequestCommand(n.body) === undefined &&
          !isOwnText(n.body),
      )
      .slice(0, MAX_REVIEW_NOTES);
    const bot = isBotAccount(author);
    const authorised = bot ? false : await authorityOf(author, r.user!.id);
    const text = theirs
      .reverse()
      .map((n) => {
        const p = n.position;
        const where = p ? `${p.new_path ?? p.old_path ?? ''}${(p.new_line ?? p.old_line) ? `:${p.new_line ?? p.old_line}` : ''}: ` : '';
        return `${where}${n.body}`;
      })
      .join('\n\n');
    out.push({
      id: `rc:${author}:${theirs.at(-1)?.id ?? 0}`,
      author,
      authorised,
      bot,
      own: false,
      state: 'changes_requested',
      body: clipCounted(text, MAX_REVIEW_CHARS),
      submittedAt: theirs.at(-1)?.created_at ?? '',
    });
  }
  return out;
}

export async function readGitlabFeedback(
  w: Where,
  input: ReadFeedbackInput,
  thread: CommentThread,
  deadline: ReadDeadline,
): Promise<PullRequestFeedback> {
  const seen = input.seen ?? emptySeen();
  const mr = (await new MergeRequests(optionsAt(w, deadline)).show(w.project, input.number)) as unknown as {
    state: string;
    draft?: boolean;
    work_in_progress?: boolean;
    sha?: string;
  };
  const headSha = mr.sha ?? '';
  const seenChecks = new Set(seen.checks);
  const checks = headSha ? await readJobs(w, headSha, (key) => !seenChecks.has(`${headSha}:${key}`), deadline) : [];
  const authority = authorityCache(input.authority, (login, id) => thread.canWrite({ author: login, ...(id !== undefined ? { authorId: id } : {}) }));
  const reviews = await readReviews(w, input.number, (l, id) => authority.of(l, id), deadline);
  const approvals = await optional(
    async () =>
      (await new MergeRequestApprovals(optionsAt(w, deadline)).showConfiguration(w.project, { mergerequestIId: input.number })) as unknown as {
        approved_by?: { user?: { username?: string } }[];
      },
    {},
  );
  const { comments, cursor } = await commentsSince(thread, input.cursor, authority);
  return {
    state: gitlabStateOf(mr.state),
    draft: mr.draft === true || mr.work_in_progress === true,
    headSha,
    checks,
    reviews,
    comments,
    approvedBy: (approvals.approved_by ?? []).map((a) => a.user?.username).filter((u): u is string => typeof u === 'string'),
    cursor,
    authority: authority.snapshot(),
  };
}
