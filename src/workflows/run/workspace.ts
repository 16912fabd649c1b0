// One running run per workspace: the run holds its workspace (and is the root of its workflows: the lock is its child). Its first step
// starts the workspace's lock, `workspace-<sha256 of the real path>`, as its own child
// (src/workflows/workspace-lock.ts). The server never runs two workflows with one id, so of two runs
// starting on one workspace at the same moment exactly one gets it; the other is refused at once
// (WorkspaceBusy, naming the holder). A lock whose run closed without letting go (terminated by
// hand) is stale: it is cleared and taken (src/activities/workspace-lock.ts). The lock is abandoned
// when the run closes (so continue-as-new keeps it) and told to end, with the token the run gave
// it, on every other ending.
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  proxyActivities,
  patched,
  proxyLocalActivities,
  sleep,
  startChild,
  uuid4,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../../activities';
import { rootMessage } from '../failures';
import { releaseWorkspaceSignal, type WorkspaceHold } from '../messages';
import type { HeldLock, RunInput } from './start';

const REFUSED_RUN_AWAITS_DELETION = 'refused-run-awaits-deletion';
/** How long a refused run waits for its starter to delete it before it fails on its own. */
const REFUSED_DELETION_WAIT = '10 seconds';

/** How often a stale lock is cleared and the start tried again before the run gives up. */
const TAKE_ATTEMPTS = 5;

const LOCK_ACTIVITY_OPTIONS = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '500 milliseconds', maximumAttempts: 5 } } as const;

/** The lock's activities: ordinary ones (a local activity may be dropped with its workflow task), or local ones in runs recorded before RUN_WITHOUT_LOCAL_ACTIVITIES. */
const lockActivitiesOf = (withoutLocalActivities: boolean) =>
  withoutLocalActivities
    ? proxyActivities<Activities>({ ...LOCK_ACTIVITY_OPTIONS, summary: 'the workspace lock' })
    : proxyLocalActivities<Activities>(LOCK_ACTIVITY_OPTIONS);

export class RunWorkspace {
  private outcome: WorkspaceHold | undefined;
  private lock: HeldLock | undefined;
  /** The lock's end, when this execution started it (so the lock's completion comes back to it as its child's). */
  private lockEnd: Promise<void> | undefined;

  private readonly lockActivities: ReturnType<typeof lockActivitiesOf>;

  constructor(
    private readonly input: RunInput,
    withoutLocalActivities: boolean,
  ) {
    this.lockActivities = lockActivitiesOf(withoutLocalActivities);
  }

  /** The lock the run holds, carried across continue-as-new. */
  get held(): HeldLock | undefined {
    return this.lock;
  }

  /** The workspaceHold update: answers once the run holds its workspace, was refused it, or ended first. */
  async hold(): Promise<WorkspaceHold> {
    await condition(() => this.outcome !== undefined);
    return this.outcome!;
  }

  /** The run's first step: take the workspace's lock, or learn who holds it. */
  async take(): Promise<WorkspaceHold> {
    this.outcome = await this.taken();
    return this.outcome;
  }

  private async taken(): Promise<WorkspaceHold> {
    const { input } = this;
    if (input.carry) {
      this.lock = input.carry.lock;
      return { held: true };
    }
    const lockId = await this.lockActivities.workspaceLockId(input.workspace);
    const token = uuid4();
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      try {
        // Not cancellable: cancelling the run must not cancel the lock behind its release.
        const child = await CancellationScope.nonCancellable(() =>
          startChild('WorkspaceLockWorkflow', {
            workflowId: lockId,
            // src/workflows/workspace-lock.ts HeldLockInput (by name: that module reaches back to the run's start options).
            args: [{ runId: input.runId, token }],
            parentClosePolicy: ParentClosePolicy.ABANDON,
            workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
            memo: { runId: input.runId, workspace: input.workspace },
            staticSummary: `workspace lock of run ${input.runId}`,
          }),
        );
        this.lock = { lockId, token };
        this.lockEnd = child.result().then(
          () => undefined,
          () => undefined,
        );
        return { held: true };
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      const holder = await this.lockActivities.clearStaleWorkspaceLock({ lockId, runId: input.runId });
      if ('busy' in holder) {
        return { held: false, holder: holder.busy, reason: `the workspace ${input.workspace} already has a running run: ${holder.busy}` };
      }
    }
    throw ApplicationFailure.nonRetryable(`could not take the lock ${lockId} of the workspace ${input.workspace}`, 'WorkspaceLock');
  }

  /**
   * A refused run is deleted by the client that started it, right after it reads the refusal
   * (src/client/workspace-lock.ts). The server deletes a running execution at once but a closed one
   * only within a minute or so, which left refused runs in the run list: it waits a little for the
   * deletion before it fails. Runs recorded before this failed at once.
   */
  async awaitDeletion(): Promise<void> {
    if (!patched(REFUSED_RUN_AWAITS_DELETION)) return;
    await CancellationScope.nonCancellable(() => sleep(REFUSED_DELETION_WAIT));
  }

  /**
   * The run ends (`err`: how; none: completed): the lock is told to end (not on continue-as-new: the
   * next run of this workflow holds it), a workspaceHold still waiting is answered, and every
   * handler finishes first.
   */
  async ended(err?: unknown): Promise<void> {
    if (this.outcome === undefined) this.outcome = { held: false, reason: `the run ended before it took its workspace: ${rootMessage(err)}` };
    const lock = this.lock;
    if (lock && !(err instanceof ContinueAsNew)) {
      this.lock = undefined;
      await CancellationScope.nonCancellable(async () => {
        try {
          await getExternalWorkflowHandle(lock.lockId).signal(releaseWorkspaceSignal, { token: lock.token });
          // The lock ends at once; when this execution started it, its end comes back as a child's
          // event, which must not land between the run's last step and its completion (that fails the
          // workflow task: UnhandledCommand). Wait for it, a short while at most.
          const lockEnd = this.lockEnd;
          if (lockEnd) {
            let over = false;
            void lockEnd.then(() => (over = true));
            await condition(() => over, '30 seconds');
          }
        } catch (e) {
          log.warn(`could not release the workspace lock ${lock.lockId}: ${rootMessage(e)}`);
        }
      });
    }
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  }
}
