// Starting a run that holds its workspace. The run is the root workflow; its first step takes
// the workspace's lock as its child (src/workflows/run/workspace.ts), which the server gives to
// exactly one of two runs started at once. The client starts the run together with the
// `workspaceHold` update (update-with-start), so one round trip says whether it holds the workspace
// or was refused; a refused run started nothing (no lock, no phase) and is deleted.
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { workspaceHoldUpdate, type WorkspaceHold } from '../workflows/messages';
import type { RunInput, RunWorkflow } from '../workflows/run';
import { runStartOptions } from '../workflows/run-start';

export { workspaceLockId } from '../activities/workspace-lock';

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

/** How long to wait for the run to take its workspace (a worker must pick the run up). */
const START_WAIT_MS = 60_000;

/**
 * Starts `input` as a run holding its workspace and resolves once it holds it (its handle).
 * WorkspaceBusy when another run holds the workspace; RunIdTaken when `run-<id>` runs.
 */
export async function startRunHoldingWorkspace(client: Client, taskQueue: string, input: RunInput): Promise<WorkflowHandle> {
  const start = new WithStartWorkflowOperation<typeof RunWorkflow>('RunWorkflow', {
    taskQueue,
    args: [input],
    ...runStartOptions(input),
    workflowIdConflictPolicy: 'FAIL',
  });
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), START_WAIT_MS);
  let hold: WorkspaceHold;
  try {
    hold = await client.withAbortSignal(abort.signal, () =>
      client.workflow.executeUpdateWithStart(workspaceHoldUpdate, { startWorkflowOperation: start }),
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      throw new RunIdTaken(`a run with id "${input.runId}" is already running`, { cause: err });
    if (!abort.signal.aborted) throw err;
    // Nobody picked the run up: end it rather than leave a run that never began.
    const handle = await start.workflowHandle().catch(() => undefined);
    await handle?.terminate(`run ${input.runId} did not start`).catch(() => undefined);
    throw new Error(`run ${input.runId} did not start within ${START_WAIT_MS / 1000} s: no worker picked it up on task queue "${taskQueue}"`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
  const handle = await start.workflowHandle();
  if (hold.held) return handle;
  await deleteRefused(client, handle);
  if (hold.holder) throw new WorkspaceBusy(hold.reason, hold.holder);
  throw new Error(`run ${input.runId} did not start: ${hold.reason}`);
}

/**
 * A refused run started nothing: its execution is deleted so it does not litter the run list. The
 * run waits a little for this before it fails (a running execution is deleted at once, a closed one
 * within a minute or so). A try that fails is tried again; if all fail, the run stays as a failed
 * run naming the holder.
 */
async function deleteRefused(client: Client, handle: WorkflowHandle): Promise<void> {
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
    try {
      await client.workflowService.deleteWorkflowExecution({
        namespace: client.options.namespace,
        workflowExecution: { workflowId: handle.workflowId },
      });
      return;
    } catch (e) {
      if ((e as { code?: number }).code === GRPC_NOT_FOUND && !/complet/i.test(String((e as Error).message))) return;
      await new Promise((r) => setTimeout(r, 250 * attempt));
    }
  }
}

const DELETE_ATTEMPTS = 4;
const GRPC_NOT_FOUND = 5;
