// One running run per workspace (S3), enforced by Temporal. The lock is this workflow, id
// `workspace-<sha256 of the workspace's real path>`: the server never runs two workflows with one id,
// so of two runs that start it at the same moment exactly one gets it.
//
// The run is the root: its first step starts its lock as ITS child
// (src/workflows/run/workspace.ts, parent close policy ABANDON, so a continue-as-new keeps it), and
// the lock holds until its run tells it to go (releaseWorkspaceSignal, carrying the token the run gave
// it: a release typed by anyone else is ignored). A lock whose run was closed behind its back
// (terminated) is found stale by the next run on that workspace and cleared then.
import { ApplicationFailure, condition, log, setDefaultSignalHandler, setHandler } from '@temporalio/workflow';
import { parsePayload, releaseWorkspaceSignal, WorkspaceReleaseSchema } from './messages';

/** The lock of a run that started it itself (the run's token seals its release). */
export interface HeldLockInput {
  runId: string;
  token: string;
}

export type WorkspaceLockInput = HeldLockInput;

export interface WorkspaceLockResult {
  runId: string;
  /** How the run ended, as the lock saw it ('released': the run let go as it ended). */
  runEnded: 'released';
}

export async function WorkspaceLockWorkflow(input: WorkspaceLockInput): Promise<WorkspaceLockResult> {
  const held = input as Partial<HeldLockInput> | null;
  if (!held || typeof held.runId !== 'string' || typeof held.token !== 'string' || !held.token) {
    throw ApplicationFailure.create({ type: 'InvalidInput', message: 'the lock needs { runId, token }', nonRetryable: true });
  }
  let released = false;
  setHandler(releaseWorkspaceSignal, (payload: unknown) => {
    const p = parsePayload(WorkspaceReleaseSchema, payload);
    if (p.ok && p.value.token === held.token) released = true;
    else log.warn(`ignored releaseWorkspace: ${p.ok ? 'not the token of the run holding the workspace' : p.reason}`);
  });
  setDefaultSignalHandler((name) => log.warn(`ignored unknown signal "${name}"`));
  await condition(() => released);
  return { runId: held.runId, runEnded: 'released' };
}
