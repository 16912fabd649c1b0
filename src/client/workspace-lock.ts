// S3 / issue 23: starting a run that holds its workspace (src/workflows/workspace-lock.ts). The
// server refuses a second lock while one runs (id conflict policy FAIL), so of two starts at the
// same moment exactly one gets the workspace. A lock whose run has already closed (its worker has
// not processed the close yet, or the lock was left behind) is terminated — that very execution,
// never a newer one — and the start is tried again, so a lock never strands a workspace.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import type { RunInput } from '../workflows/run';
import type { WorkspaceLockWorkflow } from '../workflows/workspace-lock';

/** The lock's workflow id: `workspace-<sha256 of the workspace's real path>` (symlinks and `..` name one workspace). */
export async function workspaceLockId(workspace: string): Promise<string> {
  const real = await fs.realpath(path.resolve(workspace)).catch(() => path.resolve(workspace));
  return `workspace-${createHash('sha256').update(real).digest('hex')}`;
}

/** The workspace is held by a running run (`runId`); the start was refused. */
export class WorkspaceBusy extends Error {
  constructor(
    message: string,
    readonly runId: string,
  ) {
    super(message);
  }
}

/** The run id is already taken by a running run elsewhere. */
export class RunIdTaken extends Error {}

/** How long to wait for the lock to start its run (a worker must pick the lock up). */
const START_WAIT_MS = 60_000;

/**
 * Starts `input` as the run holding its workspace and resolves once the run has started (its
 * handle). WorkspaceBusy when another run holds the workspace; RunIdTaken when `run-<id>` runs.
 */
export async function startRunHoldingWorkspace(client: Client, taskQueue: string, input: RunInput): Promise<WorkflowHandle> {
  const lockId = await workspaceLockId(input.workspace);
  for (let attempt = 0; ; attempt++) {
    let lock: WorkflowHandleWithFirstExecutionRunId;
    try {
      lock = await client.workflow.start<typeof WorkspaceLockWorkflow>('WorkspaceLockWorkflow', {
        taskQueue,
        workflowId: lockId,
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        args: [{ run: input }],
        memo: { runId: input.runId, workspace: input.workspace },
        staticSummary: `workspace lock of run ${input.runId}: ${input.workspace}`.slice(0, 200),
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || attempt >= 5) throw err;
      const holder = await lockHolder(client, lockId);
      if (holder?.running) {
        throw new WorkspaceBusy(`the workspace ${input.workspace} already has a running run: ${holder.runId}`, holder.runId);
      }
      if (holder) {
        // Its run closed: the lock is stale. Terminate that execution only (a newer lock stays).
        await client.workflow
          .getHandle(lockId, holder.lockExecution)
          .terminate(`its run ${holder.runId} has ended; the workspace is free`)
          .catch(() => undefined);
      }
      continue;
    }
    return waitForRun(client, lock, input.runId);
  }
}

/** Who holds the lock: its run id, the lock's execution, and whether that run is (or is about to be) running. */
async function lockHolder(client: Client, lockId: string): Promise<{ runId: string; lockExecution: string; running: boolean } | undefined> {
  let lock: WorkflowExecutionDescription;
  try {
    lock = await client.workflow.getHandle(lockId).describe();
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return undefined;
    throw e;
  }
  if (lock.status.name !== 'RUNNING') return undefined; // closed meanwhile: try again
  const runId = typeof lock.memo?.runId === 'string' ? lock.memo.runId : '?';
  let run: WorkflowExecutionDescription | undefined;
  try {
    run = await client.workflow.getHandle(`run-${runId}`).describe();
  } catch (e) {
    if (!(e instanceof WorkflowNotFoundError)) throw e;
  }
  // Not started yet (the lock waits for a worker to start it): it will run, so it holds the
  // workspace — unless its starter gave up waiting (it then terminates the lock itself; this covers
  // a starter that died meanwhile).
  if (!run || run.parentExecution?.runId !== lock.runId) {
    return { runId, lockExecution: lock.runId, running: Date.now() - lock.startTime.getTime() < START_WAIT_MS + 10_000 };
  }
  return { runId, lockExecution: lock.runId, running: run.status.name === 'RUNNING' };
}

/** Waits until the lock has started `run-<runId>` as its child; the lock's failure (id taken) is thrown. */
async function waitForRun(client: Client, lock: WorkflowHandleWithFirstExecutionRunId, runId: string): Promise<WorkflowHandle> {
  const deadline = Date.now() + START_WAIT_MS;
  const run = client.workflow.getHandle(`run-${runId}`);
  for (;;) {
    const d = await run.describe().catch((e: unknown) => {
      if (e instanceof WorkflowNotFoundError) return undefined;
      throw e;
    });
    if (d && d.parentExecution?.workflowId === lock.workflowId && d.parentExecution.runId === lock.firstExecutionRunId) {
      return client.workflow.getHandle(run.workflowId);
    }
    const l = await lock.describe();
    if (l.status.name !== 'RUNNING') {
      const failure = await lock.result().then(
        () => undefined,
        (e: unknown) => (e as { cause?: { message?: string; type?: string } }).cause,
      );
      if (failure?.type === 'RunIdTaken') throw new RunIdTaken(failure.message ?? `a run with id "${runId}" is already running`);
      if (d?.parentExecution?.workflowId === lock.workflowId) return client.workflow.getHandle(run.workflowId);
      throw new Error(`the workspace lock ${lock.workflowId} ended before starting run ${runId}: ${failure?.message ?? l.status.name}`);
    }
    if (Date.now() > deadline) {
      // Nobody will start it: free the workspace rather than leave a lock for a run that never began.
      await client.workflow
        .getHandle(lock.workflowId, lock.firstExecutionRunId)
        .terminate(`run ${runId} did not start`)
        .catch(() => undefined);
      throw new Error(
        `run ${runId} did not start within ${START_WAIT_MS / 1000} s: no worker picked up its workspace lock on task queue "${l.taskQueue}"`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
