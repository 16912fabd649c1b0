// S3 / issue 23: one running run per workspace, enforced by Temporal. The lock is this workflow, id
// `workspace-<sha256 of the workspace's real path>` (src/client/workspace-lock.ts), started with
// the id conflict policy FAIL: a second start while it runs is refused by the server, atomically.
// It holds the lock for exactly the run's lifetime by starting the run as its child
// (`run-<runId>`, abandoned if the lock itself is terminated) and ending when the run ends, however
// it ends (done, failed, cancelled, terminated, timed out). Reuse of the id after close is allowed.
import { ApplicationFailure, ParentClosePolicy, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { runIdProblem } from '../domain/run-input';
import type { RunInput } from './run';
import { runStartOptions } from './run-start';

export interface WorkspaceLockInput {
  /** The run to start and hold the workspace for; RunWorkflow checks the rest of it. */
  run: RunInput;
}

export interface WorkspaceLockResult {
  runId: string;
  /** How the run ended, as the lock saw it. */
  runEnded: 'completed' | 'failed';
}

export async function WorkspaceLockWorkflow(input: WorkspaceLockInput): Promise<WorkspaceLockResult> {
  const run = input?.run;
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
