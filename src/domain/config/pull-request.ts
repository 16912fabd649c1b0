// G1–G5: the `pullRequest` section of the config: whether the run commits its tasks on a branch of
// its own (`--branch`), pushes it and opens a pull or merge request it then follows
// (`--pull-request`), and the limits of that following. The CLI's flags fill it. Tokens are the
// worker's (GITHUB_TOKEN / GITLAB_TOKEN), never part of a run's config.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { branchNameProblem, remoteNameProblem } from '../git/branch';
import { count, flag, positive, section } from './fields';
import { GITHUB_REPO, GITLAB_PROJECT, HTTP_URL } from './notifications';

/** G4: the longest a run follows its pull request with nothing new (30 days). */
export const MAX_FOLLOW_HOURS = 30 * 24;

const checked = (problem: (v: string) => string | undefined) =>
  z.string({ error: 'must be text' }).superRefine((v, ctx) => {
    const p = problem(v);
    if (p) ctx.addIssue({ code: 'custom', message: p, input: v });
  });

export const PullRequestConfigSchema = lazySchema(() =>
  section({
    /** G1: commit each task that ends DONE on the branch `replanner/<runId>` (nothing is pushed). */
    branch: flag(false),
    /** G3: also push the branch and open one pull or merge request, then follow it (implies `branch`). */
    open: flag(false),
    /** G1: the branch the run's branch starts from (absent: the branch checked out when the run starts). */
    base: checked(branchNameProblem).optional(),
    /** G2: the remote the branch is pushed to. */
    remote: checked(remoteNameProblem).default('origin'),
    /** G3: the repository of the pull request (absent: the notifications' repository, else the remote's URL, read by the CLI). */
    github: z
      .string({ error: 'must be "owner/name"' })
      .refine((v) => GITHUB_REPO.test(v), { error: 'must be "owner/name"' })
      .optional(),
    gitlab: z
      .string({ error: 'must be "group/project" or a project id' })
      .refine((v) => GITLAB_PROJECT.test(v), { error: 'must be "group/project" or a project id' })
      .optional(),
    /** G3: the GitLab host of `gitlab` (absent: the notifications' url, else the worker's GITLAB_URL). */
    gitlabUrl: z
      .string({ error: 'must be an http(s) URL' })
      .max(2000)
      .refine((v) => HTTP_URL.test(v), { error: 'must be an http(s) URL, e.g. https://gitlab.example.com' })
      .optional(),
    /** G3: the body says `Closes #N` for the run's issue (absent or false: `Refs #N`). */
    closesIssue: flag(false),
    /** G4: the run stops following once this many hours pass with nothing new on the pull request. */
    followHours: positive(72, MAX_FOLLOW_HOURS),
    /** G4: how often the run reads its pull request while it follows it (at least once a minute). */
    pollSeconds: count(30, 1, 60),
  }),
);
