// G1 / G2: the run's branch, beside its phases. A run started with `pullRequest.branch` (or
// `open`) makes its branch as its first step (a git activity on the workspace's host), then
// commits each task the moment the run learns it ended DONE: one commit at a time, in the plan's
// order, each one exactly once (the activity looks for the task's trailer first). With a remote it
// pushes the branch after its commits. The state keeps each task's commit, the head and what was
// pushed (carried across continue-as-new). Runs without the setting never get here.
import { ActivityCancellationType, ApplicationFailure, condition, log, proxyActivities, type RetryPolicy } from '@temporalio/workflow';
import type { ReplannerConfig } from '../../domain/config';
import {
  forgetReopened,
  gitProblem,
  nextToCommit,
  othersUncommitted,
  pushDue,
  recordCommit,
  recordPush,
  startRunGit,
  type RunGit,
} from '../../domain/git/run-git';
import { failRun } from '../../domain/run/phases';
import type { RunState } from '../../domain/run/state';
import type { Activities } from '../../activities';
import { rootMessage } from '../failures';
import type { RunOptions } from '../options';
import type { RunEntity } from './entity';

/** The git activities' failures that no retry mends: the message says what to do. */
const REFUSED = ['GitRefused', 'WorkspaceDirty', 'PushRejected'];

function gitActivities(options: RunOptions) {
  // On the workspace's host (it holds the checkout); a host that is away is waited for.
  const placed = options.hostQueue ? { taskQueue: options.hostQueue } : {};
  const retry: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', nonRetryableErrorTypes: REFUSED };
  const onHost = proxyActivities<Activities>({
    ...placed,
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '10 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { ...retry, maximumAttempts: 10 },
  });
  // A push waits out a remote that cannot be reached, for as long as the run lives.
  const push = proxyActivities<Activities>({
    ...placed,
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { ...retry, maximumInterval: '5 minutes' },
  });
  return { prepareRunBranch: onHost.prepareRunBranch, commitRunTask: onHost.commitRunTask, pushRunBranch: push.pushRunBranch };
}

export interface BranchDeps {
  entity: RunEntity;
  options: RunOptions;
  config: ReplannerConfig;
  /** G2: whose token pushes (the pull request's forge). */
  service?: 'github' | 'gitlab';
}

export class RunBranch {
  private readonly acts: ReturnType<typeof gitActivities>;
  private busy = false;
  /** Told after each push (the pull request is opened after the first). */
  onPushed: (() => void) | undefined;

  constructor(private readonly deps: BranchDeps) {
    this.acts = gitActivities(deps.options);
  }

  private get git(): RunGit | undefined {
    return this.deps.entity.state.git;
  }

  private setGit(f: (g: RunGit) => RunGit): void {
    this.deps.entity.apply((s) => (s.git ? { ...s, git: f(s.git) } : s));
  }

  /** G1: the run's first step: its branch made (a continued run has it in its state already). */
  async start(): Promise<void> {
    const { entity, config } = this.deps;
    if (entity.state.git) return;
    const pr = config.pullRequest;
    const s = entity.state;
    try {
      const made = await this.acts.prepareRunBranch({
        runId: s.runId,
        workspace: s.workspace,
        remote: pr.remote,
        ...(pr.base ? { base: pr.base } : {}),
      });
      entity.apply((st) => ({ ...st, git: startRunGit({ ...made, ...(pr.open ? { remote: pr.remote } : {}) }) }));
      log.info(`run branch ${made.branch} from ${made.base} (${made.baseSha.slice(0, 12)})`);
    } catch (err) {
      const message = rootMessage(err);
      entity.apply((st) => failRun(st, message));
      entity.publish();
      throw ApplicationFailure.nonRetryable(message, 'WorkspaceRefused');
    }
  }

  /** The run published its state: a task that ended DONE is committed, new commits pushed. */
  observe(s: RunState): void {
    if (!this.busy && s.git && !s.git.problem && (nextToCommit(forgetReopened(s.git, s.tasks), s.tasks) || pushDue(s.git))) void this.work();
  }

  /** Resolves when no commit or push is due or under way; throws what stopped them. */
  async settled(): Promise<void> {
    if (this.git) this.observe(this.deps.entity.state);
    await condition(() => !this.busy);
    const problem = this.git?.problem;
    if (problem) throw ApplicationFailure.nonRetryable(problem, 'GitFailed');
  }

  private async work(): Promise<void> {
    this.busy = true;
    try {
      await this.commitAll();
      const g = this.git!;
      if (pushDue(g)) {
        const r = await this.acts.pushRunBranch({
          workspace: this.deps.entity.state.workspace,
          remote: g.remote!,
          branch: g.branch,
          sha: g.head,
          ...(this.deps.service ? { service: this.deps.service } : {}),
        });
        this.setGit((x) => recordPush(x, r.pushed));
        this.onPushed?.();
      }
    } catch (err) {
      const message = rootMessage(err);
      log.warn(`the run's branch: ${message}`);
      this.setGit((x) => gitProblem(x, message));
    } finally {
      this.busy = false;
    }
    // What became due meanwhile (a task that ended during the push).
    this.observe(this.deps.entity.state);
  }

  private async commitAll(): Promise<void> {
    const { entity } = this.deps;
    for (;;) {
      const s = entity.state;
      const g = forgetReopened(s.git!, s.tasks);
      if (g !== s.git) this.setGit(() => g);
      const t = nextToCommit(g, s.tasks);
      if (!t) return;
      const c = await this.acts.commitRunTask({
        runId: s.runId,
        workspace: s.workspace,
        branch: g.branch,
        since: g.head,
        taskId: t.id,
        title: t.title,
        ...(t.summary ? { summary: t.summary } : {}),
        others: othersUncommitted(g, s.tasks, t.id),
      });
      log.info(`task ${t.id}: commit ${c.sha.slice(0, 12)} (${c.files} files${c.created ? '' : ', found after a restart'})`);
      this.setGit((x) => recordCommit(x, t.id, c.sha));
    }
  }
}

/** The run's branch when its config asks for one (absent: the run commits nothing). */
export function runBranchOf(deps: BranchDeps): RunBranch | undefined {
  const pr = deps.config.pullRequest;
  return pr.branch || pr.open ? new RunBranch(deps) : undefined;
}
