// V1 P9: what the run's own status cannot say yet about its running tasks. The run counts a task's
// tokens when the task ends, so during a long task its total lags; and a stuck note (P9) reaches the
// run only with the task's consultation or its end. `status` asks each running task itself (its
// taskStatus query: a read, nothing is recorded) and shows both beside the run's figures.
import type { Client } from '@temporalio/client';
import { stuckStatusLine } from '../domain/stuck';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../domain/usage';
import type { RunStatus } from '../workflows/messages';
import { taskStatusWithin } from './query-wait';

export interface RunningTask {
  taskId: string;
  iteration: number;
  /** The tokens this task has spent so far (not yet in the run's total). */
  usage: TokenUsage;
  /** P9: the stuck detector's line, when it fired in this task. */
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
