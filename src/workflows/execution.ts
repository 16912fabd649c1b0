// ExecutionWorkflow (phase 4): runs the task graph as TaskWorkflow children in DAG order, at most
// maxParallelTasks at once, and reports every state change to its run so `status` stays live.
import {
  CancellationScope,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
} from '@temporalio/workflow';
import { blockedByDependency, readyTasks } from '../domain/graph';
import { TaskState, type TaskRecord } from '../domain/types';
import type { RunRef } from '../activities';
import type { ActionPlan } from '../llm/schemas';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../llm/usage';
import { rootMessage } from './failures';
import { taskProgressSignal } from './messages';
import type { RunOptions } from './options';
import { TaskWorkflow, type TaskOutcome } from './task';

export interface ExecutionInput {
  run: RunRef;
  options: RunOptions;
  tasks: TaskRecord[];
  actions: ActionPlan;
  /** Workflow id of the RunWorkflow to report progress to. */
  runWorkflowId: string;
}

export interface ExecutionResult {
  tasks: TaskRecord[];
  usage: TokenUsage;
}

export function taskWorkflowId(runWorkflowId: string, taskId: string): string {
  return `${runWorkflowId}.task-${taskId}`;
}

export async function ExecutionWorkflow(input: ExecutionInput): Promise<ExecutionResult> {
  let tasks = input.tasks.map((t) => ({ ...t }));
  let usage = ZERO_USAGE;
  const running = new Map<string, Promise<{ id: string; outcome?: TaskOutcome; error?: unknown }>>();
  const parent = getExternalWorkflowHandle(input.runWorkflowId);
  const report = () =>
    // Reporting must not be interrupted by a cancellation, or the run would show stale states.
    CancellationScope.nonCancellable(() => parent.signal(taskProgressSignal, { tasks, usage }));
  const setTask = (id: string, patch: Partial<TaskRecord>) => {
    tasks = tasks.map((t) => (t.id === id ? { ...t, ...patch } : t));
  };

  try {
    for (;;) {
      const free = input.options.maxParallelTasks - running.size;
      const startable = readyTasks(tasks).filter((t) => !running.has(t.id)).slice(0, Math.max(0, free));
      for (const t of startable) {
        setTask(t.id, { state: TaskState.RUNNING });
        running.set(
          t.id,
          executeChild(TaskWorkflow, {
            workflowId: taskWorkflowId(input.runWorkflowId, t.id),
            args: [{ run: input.run, task: t, steps: input.actions[t.id] ?? [], options: input.options, runWorkflowId: input.runWorkflowId }],
            staticSummary: `task ${t.id}: ${t.title}`,
          }).then(
            (outcome) => ({ id: t.id, outcome }),
            (error) => ({ id: t.id, error }),
          ),
        );
      }
      if (startable.length) await report();
      if (running.size === 0) break;

      const done = await Promise.race(running.values());
      running.delete(done.id);
      if (done.error !== undefined) {
        if (isCancellation(done.error)) throw done.error;
        setTask(done.id, { state: TaskState.BLOCKED, summary: `task failed: ${rootMessage(done.error)}` });
      } else if (done.outcome) {
        const o = done.outcome;
        usage = addUsage(usage, o.usage);
        // Re-decomposition (J6) is handled by the replanning layer; without it a REPLAN is a block.
        setTask(done.id, {
          state: o.state === 'DONE' ? TaskState.DONE : TaskState.BLOCKED,
          summary: o.state === 'REPLAN' ? `needs re-decomposition: ${o.reason}` : o.reason,
        });
      }
      await report();
    }
    // Tasks that can never start: a dependency is BLOCKED.
    const stuck = blockedByDependency(tasks);
    for (const s of stuck) setTask(s.taskId, { state: TaskState.BLOCKED, summary: `blocked by ${s.blockedBy}` });
    if (stuck.length) await report();
    return { tasks, usage };
  } catch (err) {
    if (isCancellation(err)) {
      for (const t of tasks) {
        if (t.state === TaskState.RUNNING || t.state === TaskState.READY || t.state === TaskState.NEEDS_CONTINUATION) {
          setTask(t.id, { state: TaskState.CANCELLED });
        }
      }
      // Wait for the children to finish cancelling (their activities stop first).
      await CancellationScope.nonCancellable(() => Promise.all(running.values()));
      await report();
    }
    throw err;
  }
}

