// The small client library behind the CLI: start runs and list them. Reading a run is in
// run-inspect.ts, acting on one (answer, pause, resume, cancel) in run-updates.ts.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ReplannerConfig } from '../domain/config';
import type { RunOptions } from '../workflows/options';
// The run's workflow by name and type only: its code is the worker's, not the CLI's to load.
import type { RunWorkflow } from '../workflows/run';
import type { RunInput } from '../workflows/run/start';
import { PHASE_KEY, STATUS_KEY } from '../workflows/search-attributes';
import { runStartOptions } from '../workflows/run-start';
import { runWorkflowId } from '../workflows/run-id';
import { workspaceHostOf } from './workspace-host';
import { BackendError } from './backend';
import { searchAttributeFix } from './search-attribute-setup';
import { MEMO_STATUS } from '../domain/run/views';
import { isClosedExecution, shownStatus } from '../domain/run/closed';

export interface StartParams {
  /** The instruction, or with `instructionFile` its head. */
  instruction: string;
  /** The instruction stored beside the run (run-start-guards storeInstruction). */
  instructionFile?: string;
  workspace: string;
  /** The queue of the run's LLM endpoint and model: `routeOf(process.env).taskQueue` (src/route.ts). */
  taskQueue: string;
  runId?: string;
  options?: Partial<RunOptions>;
  /** The parsed config (loadConfig); the workflow gets it as RunInput.config. Absent: defaults. */
  config?: ReplannerConfig;
  /**
   * Start the run as the holder of its workspace (src/client/workspace-lock.ts): Temporal refuses
   * a second running run on the same workspace (WorkspaceBusy names it). The CLI always does.
   */
  holdWorkspace?: boolean;
  /**
   * Workspace affinity: the host whose worker owns the workspace. Absent: found from the pollers of
   * `taskQueue` (their identities name host and roots) or this shell's REPLANNER_HOST /
   * REPLANNER_WORKSPACE_ROOTS; a workspace no worker owns is NoWorkspaceHost, naming the fix.
   */
  host?: string;
}

/**
 * Starts a run: workflow id `run-<runId>`, the memo (instruction, workspace) and search attributes
 * (ReplannerPhase, ReplannerStatus) `list` and `status` read, on `taskQueue`. With `holdWorkspace`,
 * WorkspaceBusy when another run holds the workspace and RunIdTaken when the id runs elsewhere;
 * without, WorkflowExecutionAlreadyStartedError when the id runs.
 */
export async function startRun(client: Client, p: StartParams): Promise<{ runId: string; handle: WorkflowHandle<typeof RunWorkflow> }> {
  const runId = p.runId ?? randomUUID().slice(0, 8);
  const workspace = path.resolve(p.workspace);
  const host = p.host ?? (await workspaceHostOf(client, p.taskQueue, workspace));
  const input: RunInput = { runId, instruction: p.instruction, workspace, host, options: p.options };
  if (p.config !== undefined) input.config = p.config;
  if (p.instructionFile !== undefined) input.instructionFile = p.instructionFile;
  try {
    if (p.holdWorkspace) {
      // Loaded when a run starts: `list` and `status` read runs without the workspace lock's code.
      const { startRunHoldingWorkspace } = await import('./workspace-lock');
      await startRunHoldingWorkspace(client, p.taskQueue, input);
      return { runId, handle: client.workflow.getHandle<typeof RunWorkflow>(runWorkflowId(runId)) };
    }
    const handle = await client.workflow.start<typeof RunWorkflow>('RunWorkflow', {
      taskQueue: p.taskQueue,
      args: [input],
      ...runStartOptions(input),
    });
    return { runId, handle };
  } catch (e) {
    throw missingSearchAttributeError(e) ?? e;
  }
}

/** A start the server refused for a search attribute it lacks, as an error naming the command that adds it. */
function missingSearchAttributeError(e: unknown): BackendError | undefined {
  const text = `${(e as Error)?.message ?? ''} ${(e as { cause?: Error })?.cause?.message ?? ''}`;
  const m = /no mapping defined for search attribute (\w+)/.exec(text);
  if (!m) return undefined;
  const name = m[1]!;
  return new BackendError(
    `the Temporal server has no search attribute ${name}, which Replanner's runs set; register it: ${searchAttributeFix(name)}`,
  );
}

export { workflowIdOf } from '../workflows/run-id';

/**
 * The run options a config implies: `execution.maxParallelTasks` and
 * `execution.commandTimeoutSeconds`. The whole config was already checked by parseConfig (the one
 * parser); refinement and pacemaker travel in RunInput.config, which the workflow parses again.
 */
export function runOptionsFromConfig(config: ReplannerConfig): Partial<RunOptions> {
  return {
    maxParallelTasks: config.execution.maxParallelTasks,
    commandTimeoutMs: Math.round(config.execution.commandTimeoutSeconds * 1000),
  };
}

export interface RunListing {
  runId: string;
  workflowId: string;
  /** Temporal's status of the run's execution (RUNNING, COMPLETED, TERMINATED, …). */
  temporalStatus: string;
  /** What the run shows: from its execution's status first, then what it says of itself. */
  status?: string;
  phase?: string;
  startTime: string;
  instruction?: string;
  /** What a WAITING run waits for and how to answer; why a PAUSED run is paused and how to resume (from its memo). */
  waiting?: string;
}

/**
 * The visibility query of runs waiting for a person's answer (`temporal workflow list -q …` takes it
 * too). Only open ones: a run terminated while it waited keeps its last ReplannerStatus.
 */
export const WAITING_RUNS_QUERY = `WorkflowType = 'RunWorkflow' AND ReplannerStatus = 'WAITING' AND ExecutionStatus = 'Running'`;

/**
 * Recent runs, newest first; `waiting`: only those waiting for an answer. Each shows the status
 * of its execution first (a closed run is never WAITING, RUNNING or PAUSED), and once: the earlier
 * executions of a run that continued as new are the same run.
 */
export async function listRuns(client: Client, limit = 20, opts: { waiting?: boolean } = {}): Promise<RunListing[]> {
  const out: RunListing[] = [];
  const seen = new Set<string>();
  for await (const wf of client.workflow.list({ query: opts.waiting ? WAITING_RUNS_QUERY : `WorkflowType = 'RunWorkflow'` })) {
    if (seen.has(wf.workflowId)) continue;
    seen.add(wf.workflowId);
    const recorded = wf.memo?.[MEMO_STATUS] as { waiting?: unknown; status?: unknown } | undefined;
    const status = shownStatus({
      execution: wf.status.name,
      searchStatus: wf.typedSearchAttributes.get(STATUS_KEY),
      recordedStatus: typeof recorded?.status === 'string' ? recorded.status : undefined,
    });
    // What the visibility store says may lag behind the execution: a run that ended does not wait.
    if (opts.waiting && status !== 'WAITING') continue;
    const open = !isClosedExecution(wf.status.name);
    out.push({
      runId: wf.workflowId.replace(/^run-/, ''),
      workflowId: wf.workflowId,
      temporalStatus: wf.status.name,
      status,
      phase: open ? wf.typedSearchAttributes.get(PHASE_KEY) : 'finished',
      startTime: wf.startTime.toISOString(),
      instruction: (wf.memo?.instruction as string | undefined)?.slice(0, 100),
      ...(open && typeof recorded?.waiting === 'string' && recorded.waiting ? { waiting: recorded.waiting } : {}),
    });
    if (out.length >= limit) break;
  }
  return out;
}
