// S3: one running run per workspace, enforced by Temporal. The lock is this workflow, id
// `workspace-<sha256 of the workspace's real path>`: the server never runs two workflows with one id,
// so of two runs that start it at the same moment exactly one gets it.
//
// Today (issue 28) the run is the root: its first step starts its lock as ITS child
// (src/workflows/run/workspace.ts, parent close policy ABANDON, so a continue-as-new keeps it), and
// the lock holds until its run tells it to go (releaseWorkspaceSignal, carrying the token the run gave
// it: a release typed by anyone else is ignored). A lock whose run was closed behind its back
// (terminated) is found stale by the next run on that workspace and cleared then.
//
// Before issue 28 the CLI started the lock, and the lock started the run as its child (`{ run }`
// input): that path stays for the histories recorded so (and a client of that time still running).
import {
  ApplicationFailure,
  condition,
  log,
  ParentClosePolicy,
  setDefaultSignalHandler,
  setHandler,
  startChild,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { runIdProblem } from '../domain/run-input';
import { parsePayload, releaseWorkspaceSignal, WorkspaceReleaseSchema } from './messages';
import type { RunInput } from './run';
import { runStartOptions } from './run-start';

/** The lock of a run that started it itself (the run's token seals its release). */
export interface HeldLockInput {
  runId: string;
  token: string;
}

/** Before issue 28: the lock started the run as its child. */
export interface LegacyLockInput {
  run: RunInput;
}

export type WorkspaceLockInput = HeldLockInput | LegacyLockInput;

export interface WorkspaceLockResult {
  runId: string;
  /** How the run ended, as the lock saw it ('released': the run let go as it ended). */
  runEnded: 'completed' | 'failed' | 'released';
}

export async function WorkspaceLockWorkflow(input: WorkspaceLockInput): Promise<WorkspaceLockResult> {
  if (input && typeof input === 'object' && 'run' in input) return legacyLock(input);
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

/** Before issue 28: start the run as this lock's child and hold the workspace until it ends. */
async function legacyLock(input: LegacyLockInput): Promise<WorkspaceLockResult> {
  const run = input.run;
  const problem = run && typeof run === 'object' ? runIdProblem(run.runId) : 'the lock needs { run: RunInput }';
  if (problem) throw ApplicationFailure.create({ type: 'InvalidInput', message: problem, nonRetryable: true });
  if (typeof run.workspace !== 'string' || !run.workspace || typeof run.instruction !== 'string') {
    throw ApplicationFailure.create({ type: 'InvalidInput', message: 'the run needs a workspace and an instruction', nonRetryable: true });
  }
  const opts = runStartOptions(run);
  let child;
  try {
    child = await startChild('RunWorkflow', {
      ...opts,
      args: [run],
      // Terminating the lock by hand must not take the run with it.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    });
  } catch (err) {
    throw ApplicationFailure.create({
      type: 'RunIdTaken',
      message: `a run with id "${run.runId}" is already running (${err instanceof Error ? err.message : String(err)})`,
      nonRetryable: true,
    });
  }
  try {
    await child.result();
    return { runId: run.runId, runEnded: 'completed' };
  } catch {
    // BLOCKED / FAILED / STOPPED runs end as failed workflows; cancelled and terminated ones too: the lock is free either way.
    return { runId: run.runId, runEnded: 'failed' };
  }
}
