// G3 / G4: the forge activities of a run that ends in a pull request (GitHub) or merge request
// (GitLab): open it once (looked up by its head branch first), edit its body in place, mark it
// ready, read what its checks and reviewers say, reply on its thread. The token is the worker's
// (GITHUB_TOKEN / GITLAB_TOKEN), read here at each call: it never travels in an input, a result,
// a history or a log. Every failure leaves as an ApplicationFailure (the retry table decides:
// src/domain/failures.ts) whose message names the fix and whose details and cause have every
// secret replaced. The worker registers these beside the notification activities.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { targetAllowed } from '../../domain/notifications';
import { pullRequestBody, pullRequestTitle, replyBody } from '../../domain/pull-request/reply';
import {
  FORGE_REJECTED,
  FORGE_UNAVAILABLE,
  PULL_REQUEST_NO_COMMITS,
  type EnsurePullRequestInput,
  type ForgeProject,
  type MarkReadyInput,
  type PullRequestFeedback,
  type PullRequestRef,
  type ReadFeedbackInput,
  type ReplyInput,
  type UpdatePullRequestInput,
} from '../../domain/pull-request/types';
import { heartbeating } from '../heartbeat';
import { deliveryFailure, DEFAULT_GITHUB_API_URL, DEFAULT_GITLAB_URL } from '../notifications';
import { readDeadline, type PullRequestApi } from './api';
import { githubPullRequests } from './github-pr';
import { gitlabMergeRequests } from './gitlab-mr';

const label = (p: ForgeProject) => (p.service === 'github' ? `GitHub ${p.repo}` : `GitLab ${p.project}`);

function apiFor(project: ForgeProject, env: NodeJS.ProcessEnv): PullRequestApi {
  const name = project.service === 'github' ? project.repo : project.project;
  const shape = project.service === 'github' ? /^[^/\s]+\/[^/\s]+$/ : /^(?:\d+|[^/\s]+(?:\/[^/\s]+)+)$/;
  if (typeof name !== 'string' || !shape.test(name)) {
    throw ApplicationFailure.nonRetryable(
      `not a ${project.service === 'github' ? 'GitHub owner/repo' : 'GitLab group/project'}: ${JSON.stringify(name)}`,
      FORGE_REJECTED,
    );
  }
  const target =
    project.service === 'github' ? { ...project, kind: 'pull' as const, number: 0 } : { ...project, kind: 'merge_request' as const, number: 0 };
  if (!targetAllowed(target, env.REPLANNER_NOTIFY_ALLOW)) {
    throw ApplicationFailure.nonRetryable(
      `${label(project)} is not in the worker's REPLANNER_NOTIFY_ALLOW (add it there, or leave the list empty)`,
      FORGE_REJECTED,
    );
  }
  if (project.service === 'github') {
    const token = env.GITHUB_TOKEN?.trim();
    if (!token)
      throw ApplicationFailure.nonRetryable(
        'GitHub: GITHUB_TOKEN is not set on the worker (set it in the worker’s environment and restart it)',
        FORGE_REJECTED,
      );
    return githubPullRequests(project.repo, token, env.GITHUB_API_URL?.trim() || DEFAULT_GITHUB_API_URL);
  }
  const token = env.GITLAB_TOKEN?.trim();
  if (!token)
    throw ApplicationFailure.nonRetryable(
      'GitLab: GITLAB_TOKEN is not set on the worker (set it in the worker’s environment and restart it)',
      FORGE_REJECTED,
    );
  return gitlabMergeRequests(project.project, token, project.url ?? (env.GITLAB_URL?.trim() || DEFAULT_GITLAB_URL));
}

/** A read of the pull request takes at most this long, by default (the run gives it 30 s). */
const READ_BUDGET_MS = 20_000;
/** How much longer than its budget a read may hang (a request not yet aborted) before it is given up. */
const READ_GRACE_MS = 4_000;

/** `read`, or a retryable failure when it has not answered within the read's budget and grace. */
async function withinBudget<T>(read: Promise<T>, budgetMs: number, project: ForgeProject, doing: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(ApplicationFailure.retryable(`${doing}: ${label(project)} did not answer within ${budgetMs / 1000} s`, FORGE_UNAVAILABLE)),
      budgetMs + READ_GRACE_MS,
    );
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

const word = (p: ForgeProject) => (p.service === 'github' ? 'pull request' : 'merge request');

function checkNumber(n: unknown): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
    throw ApplicationFailure.nonRetryable(`not a pull request number: ${String(n)}`, FORGE_REJECTED);
  return n;
}

/** `readBudgetMs`: the time a read of the pull request may take (tests shorten it). */
export function createForgeActivities(env: NodeJS.ProcessEnv = process.env, opts: { readBudgetMs?: number } = {}) {
  const readBudgetMs = opts.readBudgetMs ?? READ_BUDGET_MS;
  /**
   * Runs `work` against the project's forge while the activity heartbeats (a local activity does
   * not: it has no heartbeat); a client error becomes the failure the retry table says.
   */
  const withForge = async <T>(project: ForgeProject, doing: string, work: (api: PullRequestApi) => Promise<T>): Promise<T> => {
    const api = apiFor(project, env);
    try {
      return await (Context.current().info.isLocal ? work(api) : heartbeating(() => work(api)));
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      throw deliveryFailure(project.service, api.problemOf(err), err, env, { rejected: FORGE_REJECTED, unavailable: FORGE_UNAVAILABLE, doing });
    }
  };
  return {
    /**
     * G3: the run's one pull request: looked up by its head branch first (a crash between the
     * create and its recorded result never opens a second), else opened (a draft unless told). Call
     * it after the branch's first push: GitHub refuses a pull request with no commits
     * (PullRequestNoCommits, not retried).
     */
    async ensurePullRequest(input: EnsurePullRequestInput): Promise<PullRequestRef> {
      const what = word(input.project);
      return withForge(input.project, `opening the ${what} of ${input.head}`, async (api) => {
        const found = await api.find(input.head);
        if (found) return found;
        const create = { ...input, title: pullRequestTitle(input.title), body: pullRequestBody(input.runId, input.body) };
        try {
          return await api.create(create);
        } catch (err) {
          const why = api.unopenable(err);
          if (why) {
            const reason = why === 'no-commits' ? `it has no commits beyond ${input.base}` : 'it does not have that branch';
            throw ApplicationFailure.nonRetryable(
              `${label(input.project)} will not open a ${what} from ${input.head}: ${reason} (push a commit first, then open it)`,
              PULL_REQUEST_NO_COMMITS,
            );
          }
          // One was opened meanwhile (a lost answer of an earlier try): it is the run's.
          if (api.exists(err)) {
            const again = await api.find(input.head);
            if (again) return again;
          }
          throw err;
        }
      });
    },

    /** G3: the body (and title) edited in place; a GitLab draft keeps its "Draft:" prefix. */
    async updatePullRequestBody(input: UpdatePullRequestInput): Promise<void> {
      const n = checkNumber(input.number);
      await withForge(input.project, `editing ${word(input.project)} ${n}`, (api) =>
        api.update(n, {
          ...(input.title !== undefined ? { title: pullRequestTitle(input.title) } : {}),
          ...(input.body !== undefined ? { body: pullRequestBody(input.runId, input.body) } : {}),
        }),
      );
    },

    /** G3: out of draft, ready for review (GitHub: the GraphQL mutation; GitLab: the title's prefix dropped). Repeating it changes nothing. */
    async markPullRequestReady(input: MarkReadyInput): Promise<PullRequestRef> {
      const n = checkNumber(input.number);
      return withForge(input.project, `marking ${word(input.project)} ${n} ready for review`, (api) => api.markReady(n));
    },

    /**
     * G4: one read of the pull request: state, checks on its head, reviews, comments since the
     * cursor, each author's authority. A read only (the run may call it as a local activity), done
     * within its budget (20 s): each request gets what is left, and no answer in time is a
     * failure to retry.
     */
    async readPullRequestFeedback(input: ReadFeedbackInput): Promise<PullRequestFeedback> {
      const n = checkNumber(input.number);
      const doing = `reading ${word(input.project)} ${n}`;
      return withForge(input.project, doing, (api) =>
        withinBudget(api.read({ ...input, number: n }, readDeadline(readBudgetMs)), readBudgetMs, input.project, doing),
      );
    },

    /** G4: a reply on the thread, naming the review or comment it answers; a retry finds the reply an earlier try posted. */
    async replyOnPullRequest(input: ReplyInput): Promise<{ commentId: number }> {
      const n = checkNumber(input.number);
      return withForge(input.project, `replying on ${word(input.project)} ${n}`, async (api) => {
        const thread = api.thread(n);
        const body = replyBody(input);
        const marker = body.slice(0, body.indexOf('\n'));
        const found = await thread.find(marker);
        if (found !== undefined) return { commentId: found };
        return { commentId: await thread.create(body) };
      });
    },
  };
}

export type ForgeActivities = ReturnType<typeof createForgeActivities>;
