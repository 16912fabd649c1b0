// G4 on GitHub: one read of a pull request. Its state and head; the check runs on the head (with
// their output's title, summary and text, and for a GitHub Actions job that failed the end of its
// log) and the combined status's contexts; its reviews (a review requesting changes with its line
// comments); the conversation's comments changed since the cursor (a conditional request: an
// unchanged thread costs nothing). Every author is checked once per run: collaborator permission
// write, maintain or admin may review. Requests go one after another (GitHub asks clients not to
// send them at once). Log tails and line comments are read only for what the run has not seen.
import type { Octokit } from '@octokit/rest';
import { checkSummary, githubCheckRunState, githubStatusState, logTail } from '../../domain/pull-request/checks';
import { emptySeen, isBotAccount, isOwnText } from '../../domain/pull-request/feedback';
import type { PullRequestCheck, PullRequestFeedback, PullRequestReview, PullRequestState, ReadFeedbackInput } from '../../domain/pull-request/types';
import { clipCounted } from '../../domain/text';
import type { CommentThread } from '../notifications/thread';
import { authorityCache, checkOf, commentsSince, LOG_READ_BYTES, MAX_REVIEW_CHARS, type ReadDeadline } from './api';
import { tailResponse } from './read-tail';

/** Pages of 100 read at most of check runs, statuses and reviews. */
const MAX_PAGES = 5;
/** Failed checks whose log is read in one read, at most. */
const MAX_LOGS = 5;

type Where = { owner: string; repo: string };

interface CheckRun {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  html_url?: string | null;
  details_url?: string | null;
  app?: { slug?: string } | null;
  output?: { title?: string | null; summary?: string | null; text?: string | null };
}

interface Review {
  id: number;
  user: { login: string; type?: string } | null;
  body?: string | null;
  state: string;
  submitted_at?: string;
  commit_id?: string | null;
  html_url?: string;
}

const REVIEW_STATES: Record<string, PullRequestReview['state']> = {
  CHANGES_REQUESTED: 'changes_requested',
  APPROVED: 'approved',
  COMMENTED: 'commented',
  DISMISSED: 'dismissed',
};

/** A pull request's state: merged (GitHub says so in `merged` or `merged_at`), open, or closed. */
export const githubStateOf = (p: { state: string; merged_at?: string | null; merged?: boolean }): PullRequestState =>
  p.merged === true || (typeof p.merged_at === 'string' && p.merged_at !== '') ? 'merged' : p.state === 'open' ? 'open' : 'closed';

/**
 * Pages of 100 (`page` reads one), until a short page or MAX_PAGES. Not octokit's paginate: it
 * drops a request's options, and with them its abort signal.
 */
async function pages<T>(page: (n: number) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let n = 1; n <= MAX_PAGES; n++) {
    const data = await page(n);
    out.push(...data);
    if (data.length < 100) break;
  }
  return out;
}

/** The end of a GitHub Actions job's log (the check run's id is the job's), or undefined where GitHub has none (expired, not Actions). */
async function jobLogTail(octokit: Octokit, where: Where, jobId: number, deadline: ReadDeadline): Promise<string | undefined> {
  try {
    // GitHub answers with a redirect to the log's storage, which fetch follows (dropping the
    // Authorization header: another host). Only the end of the body is kept as it streams.
    const r = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
      ...where,
      job_id: jobId,
      request: {
        signal: deadline.signal(),
        fetch: async (url: string, init: RequestInit) => tailResponse(await fetch(url, init), LOG_READ_BYTES),
      },
    });
    const data: unknown = r.data;
    const text = typeof data === 'string' ? data : data instanceof ArrayBuffer ? Buffer.from(data).toString('utf8') : undefined;
    return text ? logTail(text) : undefined;
  } catch {
    return undefined; // logs expire and may be unreadable to the token: the check's summary still goes
  }
}

async function readChecks(
  octokit: Octokit,
  where: Where,
  headSha: string,
  fresh: (key: string) => boolean,
  deadline: ReadDeadline,
): Promise<PullRequestCheck[]> {
  const request = () => ({ signal: deadline.signal() });
  const runs = await pages(
    async (page) =>
      (await octokit.rest.checks.listForRef({ ...where, ref: headSha, filter: 'latest', per_page: 100, page, request: request() })).data
        .check_runs as CheckRun[],
  );
  const checks: PullRequestCheck[] = [];
  let logs = 0;
  for (const run of runs) {
    const state = githubCheckRunState(run.status, run.conclusion);
    const key = `check:${run.name}`;
    const summary = checkSummary(run.output?.title, run.output?.summary, run.output?.text);
    const url = run.html_url ?? run.details_url ?? undefined;
    const readLog = state === 'failed' && fresh(key) && run.app?.slug === 'github-actions' && deadline.roomForExtras() && logs++ < MAX_LOGS;
    const tail = readLog ? await jobLogTail(octokit, where, run.id, deadline) : undefined;
    checks.push(checkOf({ key, name: run.name, source: 'check_run', state }, { summary, logTail: tail, url }));
  }
  const combined = await octokit.rest.repos.getCombinedStatusForRef({ ...where, ref: headSha, per_page: 100, request: request() });
  for (const s of combined.data.statuses) {
    const summary = checkSummary(s.description);
    checks.push(
      checkOf({ key: `status:${s.context}`, name: s.context, source: 'status', state: githubStatusState(s.state) }, { summary, url: s.target_url }),
    );
  }
  return checks;
}

/** A review's text: its body, then its line comments (`path:line: text`), bounded. */
async function reviewText(octokit: Octokit, where: Where, number: number, r: Review, deadline: ReadDeadline): Promise<string> {
  const comments = await pages(
    async (page) =>
      (
        await octokit.rest.pulls.listCommentsForReview({
          ...where,
          pull_number: number,
          review_id: r.id,
          per_page: 100,
          page,
          request: { signal: deadline.signal() },
        })
      ).data as { path?: string; line?: number | null; original_line?: number | null; body?: string }[],
  );
  const lines = comments.map((c) => `${c.path ?? ''}${(c.line ?? c.original_line) ? `:${c.line ?? c.original_line}` : ''}: ${c.body ?? ''}`);
  return clipCounted([r.body ?? '', ...lines].filter((t) => t.trim() !== '').join('\n\n'), MAX_REVIEW_CHARS);
}

export async function readGithubFeedback(
  octokit: Octokit,
  where: Where,
  input: ReadFeedbackInput,
  thread: CommentThread,
  deadline: ReadDeadline,
): Promise<PullRequestFeedback> {
  const request = () => ({ signal: deadline.signal() });
  const seen = input.seen ?? emptySeen();
  const pr = (await octokit.rest.pulls.get({ ...where, pull_number: input.number, request: request() })).data;
  const headSha = pr.head.sha;
  const seenChecks = new Set(seen.checks);
  const checks = await readChecks(octokit, where, headSha, (key) => !seenChecks.has(`${headSha}:${key}`), deadline);
  const authority = authorityCache(input.authority, (login) => thread.canWrite({ author: login }));
  const raw = await pages(
    async (page) =>
      (await octokit.rest.pulls.listReviews({ ...where, pull_number: input.number, per_page: 100, page, request: request() })).data as Review[],
  );
  const seenReviews = new Set(seen.reviews);
  const reviews: PullRequestReview[] = [];
  for (const r of raw) {
    const state = REVIEW_STATES[r.state];
    if (!state || !r.user) continue; // PENDING: not submitted yet; a deleted user's review
    const author = r.user.login;
    const bot = isBotAccount(author, r.user.type);
    const own = isOwnText(r.body ?? '');
    const authorised = bot || own ? false : await authority.of(author);
    const id = String(r.id);
    const full = state === 'changes_requested' && authorised && !seenReviews.has(id) && deadline.roomForExtras();
    const body = full ? await reviewText(octokit, where, input.number, r, deadline) : clipCounted(r.body ?? '', MAX_REVIEW_CHARS);
    reviews.push({
      id,
      author,
      authorised,
      bot,
      own,
      state,
      body,
      submittedAt: r.submitted_at ?? '',
      ...(r.commit_id ? { commitId: r.commit_id } : {}),
      ...(r.html_url ? { url: r.html_url } : {}),
    });
  }
  const { comments, cursor } = await commentsSince(thread, input.cursor, authority);
  return {
    state: githubStateOf(pr),
    draft: pr.draft === true,
    headSha,
    checks,
    reviews,
    comments,
    approvedBy: [],
    cursor,
    authority: authority.snapshot(),
  };
}
