// G3 / G4: the run's pull request (GitHub) or merge request (GitLab), beside its branch. It is
// opened once, as a draft, after the branch's first push (looked up by its head branch first), its
// body kept current like the issue's checklist comment (edited in place, one edit in flight, the
// newest text next). When the phases run out: the last commits pushed, the feedback a fix round
// answered gets its reply, the pull request is marked ready once no task is blocked, and the run
// follows it (./pull-request-follow.ts) until it is merged or closed, nothing new comes for
// `pullRequest.followHours`, or the user stops the run.
import { ApplicationFailure, condition, log, proxyActivities, type RetryPolicy } from '@temporalio/workflow';
import type { ReplannerConfig } from '../../domain/config';
import { noteGit, type RunGit } from '../../domain/git/run-git';
import { notifyTargetOf } from '../../domain/notifications';
import { pullRequestName } from '../../domain/pull-request/run-feedback';
import { pullRequestOpened, pullRequestProjectOf, startPullRequest, textPrint, type RunPullRequest } from '../../domain/pull-request/run-state';
import { fixReply, fixRoundResult, issueReference, pullRequestBodyOf, pullRequestTitleOf } from '../../domain/pull-request/run-text';
import { failRun } from '../../domain/run/phases';
import type { RunState } from '../../domain/run/state';
import { TaskState, type Phase } from '../../domain/types';
import type { Activities } from '../../activities';
import { rootMessage } from '../failures';
import type { RunEntity } from './entity';
import type { RunBranch } from './git-branch';
import { followPullRequest, type FollowDeps } from './pull-request-follow';

/** Forge failures no retry mends (a token without the right to, a repository that is not there). */
const REFUSED = ['ForgeRejected', 'PullRequestNoCommits'];

export function forgeActivities() {
  const retry: RetryPolicy = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: REFUSED };
  return proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '10 seconds', retry });
}

export interface PullRequestDeps extends Omit<FollowDeps, 'acts'> {
  entity: RunEntity;
  config: ReplannerConfig;
  branch: RunBranch;
}

export class RunPullRequestFlow {
  private readonly acts = forgeActivities();
  private busy = false;

  constructor(private readonly deps: PullRequestDeps) {}

  private get pr(): RunPullRequest | undefined {
    return this.deps.entity.state.git?.pr;
  }

  private setGit(f: (g: RunGit) => RunGit): void {
    this.deps.entity.apply((s) => (s.git ? { ...s, git: f(s.git) } : s));
  }

  private setPr(f: (p: RunPullRequest) => RunPullRequest): void {
    this.setGit((g) => (g.pr ? { ...g, pr: f(g.pr) } : g));
  }

  /** The run's state names where the pull request goes (once, at the start). */
  init(project: RunPullRequest['project']): void {
    if (!this.pr) this.setGit((g) => ({ ...g, pr: startPullRequest(project) }));
  }

  /** The body as the run would send it now. */
  private body(s: RunState): string {
    const n = notifyTargetOf(this.deps.config.notifications);
    const sameRepo =
      n &&
      this.pr &&
      (n.service === 'github'
        ? this.pr.project.service === 'github' && n.repo === this.pr.project.repo
        : this.pr.project.service === 'gitlab' && n.project === this.pr.project.project);
    return pullRequestBodyOf(s, sameRepo ? issueReference(n, this.deps.config.pullRequest.closesIssue) : undefined);
  }

  /** The run published its state: the pull request opened after the first push, its body kept current. */
  observe(s: RunState): void {
    const pr = s.git?.pr;
    if (this.busy || !pr || s.git?.problem) return;
    const due = (pr.number === undefined && s.git?.pushed !== undefined) || (pr.number !== undefined && pr.bodyPrint !== textPrint(this.body(s)));
    if (due) void this.work();
  }

  /** Resolves when nothing is under way; throws what stopped it. */
  async settled(): Promise<void> {
    this.observe(this.deps.entity.state);
    await condition(() => !this.busy);
    const problem = this.deps.entity.state.git?.problem;
    if (problem) throw new Error(problem);
  }

  private async work(): Promise<void> {
    this.busy = true;
    const { entity } = this.deps;
    try {
      const s = entity.state;
      const pr = s.git!.pr!;
      if (pr.number === undefined) {
        const body = this.body(s);
        const ref = await this.acts.ensurePullRequest({
          runId: s.runId,
          project: pr.project,
          head: s.git!.branch,
          base: s.git!.base,
          title: pullRequestTitleOf(s),
          body,
          draft: true,
        });
        this.setPr((p) => ({ ...pullRequestOpened(p, ref), bodyPrint: textPrint(body) }));
        this.setGit((g) =>
          noteGit(g, `${pullRequestName(pr.project.service, ref.number)} ${ref.created ? 'opened as a draft' : 'found'}: ${ref.url}`),
        );
      } else {
        const body = this.body(s);
        await this.acts.updatePullRequestBody({ runId: s.runId, project: pr.project, number: pr.number, body });
        this.setPr((p) => ({ ...p, bodyPrint: textPrint(body) }));
      }
    } catch (err) {
      const message = rootMessage(err);
      log.warn(`the pull request: ${message}`);
      this.setGit((g) => ({ ...noteGit(g, `the pull request: ${message}`), problem: message }));
    } finally {
      this.busy = false;
    }
    this.observe(entity.state);
  }

  /**
   * G3 / G4: the phases ran out. The commits are pushed and the pull request current; the feedback
   * a fix round worked on gets its reply; ready for review once no task is blocked; then the run
   * follows it. Returns the phase a new piece of feedback sends the run to, or undefined: the end.
   */
  async afterPhases(): Promise<Phase | undefined> {
    const { entity, branch } = this.deps;
    await branch.settled();
    await this.settled();
    const pr = this.pr;
    if (!pr || pr.number === undefined) return undefined; // nothing was committed: no pull request
    await this.replyToAnswered(pr.number);
    if (!pr.ready && !entity.state.tasks.some((t) => t.state === TaskState.BLOCKED)) {
      const ref = await this.acts.markPullRequestReady({ project: pr.project, number: pr.number });
      this.setPr((p) => ({ ...p, ready: !ref.draft }));
      this.setGit((g) => noteGit(g, `${pullRequestName(pr.project.service, pr.number!)} ready for review`));
    }
    return followPullRequest({ ...this.deps, acts: this.acts }, () => this.settled());
  }

  /** G4: the reply to each piece of feedback a fix round answered: the commits it pushed. */
  private async replyToAnswered(number: number): Promise<void> {
    const s = this.deps.entity.state;
    const a = s.git?.pr?.answering;
    if (!a) return;
    const body = fixReply({ answering: a, ...fixRoundResult(s, a), branch: s.git!.branch });
    // One reply to each review or comment (it names its author); one for the failed checks together.
    const general = a.triggers.find((t) => !t.inReplyTo);
    for (const t of a.triggers.filter((x) => x.inReplyTo || x === general)) {
      await this.acts.replyOnPullRequest({
        runId: s.runId,
        project: s.git!.pr!.project,
        number,
        key: `pr-reply:${t.key}:answered`,
        body,
        ...(t.inReplyTo ? { inReplyTo: t.inReplyTo } : {}),
      });
    }
    this.setPr((p) => {
      const { answering: _a, ...rest } = p;
      return rest;
    });
    this.setGit((g) => noteGit(g, `replied on ${pullRequestName(g.pr!.project.service, number)} to ${a.triggers.map((t) => t.label).join(', ')}`));
  }
}

/** G3: the run's pull request when its config asks for one (it must name the repository); absent: none. */
export function pullRequestFlowOf(deps: PullRequestDeps): RunPullRequestFlow | undefined {
  if (!deps.config.pullRequest.open) return undefined;
  const project = pullRequestProjectOf(deps.config);
  if (!project) {
    const message = 'invalid config: pullRequest.open needs the repository: pullRequest.github (owner/repo) or pullRequest.gitlab (group/project)';
    deps.entity.apply((s) => failRun(s, message));
    deps.entity.publish();
    throw ApplicationFailure.nonRetryable(message, 'InvalidConfig');
  }
  const flow = new RunPullRequestFlow(deps);
  flow.init(project);
  return flow;
}
