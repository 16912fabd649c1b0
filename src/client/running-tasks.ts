// What the run's own status cannot say yet about its running tasks. The run counts a task's
// tokens when the task ends, so during a long task its total lags; and a stuck note reaches the
// run only with the task's consultation or its end. `status` asks each running task itself (its
// taskStatus query: a read, nothing is recorded) and shows both beside the run's figures.
// And whether each task has started, and lost its worker, as Temporal says of the task's own
// workflow (a describe: a read that needs no worker), so a started task never shows READY again.
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { tasksAsSeen, type LastFailure, type TaskWorkflowSeen } from '../domain/run/task-liveness';
import { phaseWorkflowIdOf, taskWorkflowIdOf } from '../domain/run/waiting';
import { stuckStatusLine } from '../domain/stuck';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../domain/usage';
import type { RunStatus } from '../workflows/messages';
import { taskStatusWithin } from './query-wait';

export interface RunningTask {
  taskId: string;
  iteration: number;
  /** The tokens this task has spent so far (not yet in the run's total). */
  usage: TokenUsage;
  /** The stuck detector's line, when it fired in this task. */
  stuck?: string;
}

/** A task that does not answer within this is left out (its worker is busy or gone): `status` must stay quick. */
const TASK_QUERY_WAIT_MS = 2000;

/** The running tasks of `s` as they answer now (best effort: one that cannot answer is left out). */
export async function runningTasks(client: Client, runWorkflowId: string, s: RunStatus): Promise<RunningTask[]> {
  const round = s.phaseRuns.execution ?? 1;
  const running = s.tasks.filter((t) => t.state === 'RUNNING');
  const answers = await Promise.all(running.map((t) => taskStatusWithin(client, runWorkflowId, t.id, round, TASK_QUERY_WAIT_MS)));
  return answers.flatMap((a, i) =>
    a ? [{ taskId: running[i]!.id, iteration: a.iteration, usage: a.usage, ...(a.stuck ? { stuck: stuckStatusLine(a.stuck) } : {}) }] : [],
  );
}

/** The run's status with its running tasks' stuck notes on their records (as an ended task carries its own). */
export function withRunningTasks(s: RunStatus, running: readonly RunningTask[]): RunStatus {
  const stuck = new Map(running.flatMap((r) => (r.stuck ? [[r.taskId, r.stuck] as const] : [])));
  if (!stuck.size) return s;
  return { ...s, tasks: s.tasks.map((t) => (stuck.has(t.id) ? { ...t, stuck: stuck.get(t.id)! } : t)) };
}

/** The tokens the running tasks have spent so far, all together. */
export function runningUsage(running: readonly RunningTask[]): TokenUsage {
  return running.reduce((u, r) => addUsage(u, r.usage), ZERO_USAGE);
}

const OPEN_TASK_STATES: readonly string[] = ['READY', 'RUNNING', 'NEEDS_CONTINUATION'];
/** How many READY tasks `status` looks up besides the open ones (each is one describe). */
const MAX_READY_LOOKS = 8;

/**
 * The run's status with its tasks as their own workflows are (src/domain/run/task-liveness):
 * read from the execution phase's running children and their pending activities (best effort: what
 * cannot be described is shown as recorded). `served`: a live worker polls the run's queue.
 */
export async function withTasksAsSeen(client: Client, runWorkflowId: string, s: RunStatus, served: boolean): Promise<RunStatus> {
  if (s.phase !== 'execution' || !s.tasks.some((t) => OPEN_TASK_STATES.includes(t.state))) return s;
  const seen = await tasksSeen(client, runWorkflowId, s).catch(() => new Map<string, TaskWorkflowSeen>());
  return seen.size || !served ? { ...s, tasks: tasksAsSeen(s.tasks, seen, served) } : s;
}

/** The open task workflows of the run's execution phase, by task id. */
async function tasksSeen(client: Client, runWorkflowId: string, s: RunStatus): Promise<Map<string, TaskWorkflowSeen>> {
  const round = s.phaseRuns.execution ?? 1;
  const execution = await client.workflow.getHandle(phaseWorkflowIdOf(runWorkflowId, 'execution', round)).describe();
  const seen = new Map<string, TaskWorkflowSeen>();
  if (execution.status.name !== 'RUNNING') return seen;
  const open = new Set((execution.raw.pendingChildren ?? []).map((c) => c.workflowId ?? ''));
  // Also the READY tasks that may have run and ended before the run was told (their dependencies
  // no longer READY), a few at most: a started task is never shown READY again.
  const mayHaveRun = (t: RunStatus['tasks'][number]) =>
    t.state === 'READY' && t.dependencies.every((d) => s.tasks.find((x) => x.id === d)?.state !== 'READY');
  const ready = s.tasks.filter((t) => !open.has(taskWorkflowIdOf(runWorkflowId, t.id, round)) && mayHaveRun(t)).slice(0, MAX_READY_LOOKS);
  const tasks = [...s.tasks.filter((t) => open.has(taskWorkflowIdOf(runWorkflowId, t.id, round))), ...ready];
  const described = await Promise.all(
    tasks.map((t) =>
      client.workflow
        .getHandle(taskWorkflowIdOf(runWorkflowId, t.id, round))
        .describe()
        .catch(() => undefined),
    ),
  );
  described.forEach((d, i) => {
    if (!d) return;
    const activities = (d.raw.pendingActivities ?? []).map((a) => ({ attempt: a.attempt ?? 1, ...lastFailureOf(a.lastFailure) }));
    seen.set(tasks[i]!.id, { open: d.status.name === 'RUNNING', activities });
  });
  return seen;
}

const TimeoutType = temporal.api.enums.v1.TimeoutType;

/** Why an activity's last try failed: its worker stopped beating or answering, or something else. */
function lastFailureOf(f: temporal.api.failure.v1.IFailure | null | undefined): { lastFailure?: LastFailure } {
  if (!f) return {};
  const timeout = f.timeoutFailureInfo?.timeoutType;
  if (timeout === TimeoutType.TIMEOUT_TYPE_HEARTBEAT) return { lastFailure: 'heartbeat_timeout' };
  if (timeout === TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE) return { lastFailure: 'start_to_close_timeout' };
  return { lastFailure: 'other' };
}
