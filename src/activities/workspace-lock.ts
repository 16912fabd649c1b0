// What the run needs from outside its sandbox to hold its workspace (src/workflows/run/workspace.ts):
// the lock's workflow id (the workspace's real path, hashed) and, when that id is taken, whether
// its holder still runs. A lock whose run has closed (terminated by hand, say, so it never let go)
// is stale: that very lock execution is terminated — never a newer one — and the run tries again.
// Local activities: the run's own worker answers them, through its client of the Temporal server.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';

/** The lock's workflow id: `workspace-<sha256 of the workspace's real path>` (symlinks and `..` name one workspace). */
export async function workspaceLockId(workspace: string): Promise<string> {
  const real = await fs.realpath(path.resolve(workspace)).catch(() => path.resolve(workspace));
  return `workspace-${createHash('sha256').update(real).digest('hex')}`;
}

/**
 * A lock whose run was started by an older client (the lock started the run as its child) may not
 * have started its run yet: it holds the workspace this long after its own start.
 */
const LEGACY_START_GRACE_MS = 70_000;

/** Who holds the lock `lockId` now: a running run (`busy`), or nobody any more (`freed`: the lock closed or was cleared). */
export type LockHolder = { busy: string } | { freed: true };

/** The run `runId` found the lock `lockId` taken: is its holder still running? A stale lock is cleared. */
export async function clearStaleWorkspaceLock(input: { lockId: string; runId: string }): Promise<LockHolder> {
  return holderOf(Context.current().client, input.lockId, input.runId);
}

export async function holderOf(client: Client, lockId: string, runId: string): Promise<LockHolder> {
  let lock: WorkflowExecutionDescription;
  try {
    lock = await client.workflow.getHandle(lockId).describe();
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return { freed: true };
    throw e;
  }
  if (lock.status.name !== 'RUNNING') return { freed: true };
  const holder = typeof lock.memo?.runId === 'string' ? lock.memo.runId : undefined;
  // The holder is this very run id: an earlier run of it that never let go (this one holds nothing yet).
  if (holder !== undefined && holder !== runId && (await holderRunning(client, holder, lock))) return { busy: holder };
  await client.workflow
    .getHandle(lockId, lock.runId)
    .terminate(`its run ${holder ?? '?'} has ended; the workspace is free`)
    .catch(() => undefined);
  return { freed: true };
}

async function holderRunning(client: Client, holder: string, lock: WorkflowExecutionDescription): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(`run-${holder}`).describe()).status.name === 'RUNNING';
  } catch (e) {
    if (!(e instanceof WorkflowNotFoundError)) throw e;
    // Not started yet: only an older client's lock starts its run after itself.
    return Date.now() - lock.startTime.getTime() < LEGACY_START_GRACE_MS;
  }
}
