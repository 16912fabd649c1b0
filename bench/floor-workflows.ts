// Temporal's floor for a Replanner run: the same child workflows and the same number of activities,
// in the same dependency structure, but every activity a no-op and no signals, queries or state.
// The bench derives the shape from a real Replanner run's histories (bench/shape.ts), so the floor
// follows the product as it changes. Deterministic workflow code: activities via import type only.
import { executeChild, proxyActivities } from '@temporalio/workflow';
import type { FloorActivities } from './floor-activities';

export interface FloorTask {
  id: string;
  deps: string[];
  /** Activities the task child runs, one after the other (worker steps, tool calls, judge). */
  activities: number;
}

export interface FloorExecution {
  tasks: FloorTask[];
  maxParallelTasks: number;
  /** Activities the execution workflow runs after each finished task (replan decisions), beside the scheduler. */
  activitiesPerTask: number;
  /** Execution-level activities left over (run after the last task). */
  activitiesAfter: number;
}

export type FloorStep = { activities: number } | { phase: number } | { execution: FloorExecution };

export interface FloorShape {
  /** The run's top-level steps in order: its own activities, phase children (activity count), the execution child. */
  steps: FloorStep[];
}

const { floorNoop } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

async function sequential(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await floorNoop();
}

export async function FloorRunWorkflow(shape: FloorShape): Promise<void> {
  for (const step of shape.steps) {
    if ('activities' in step) await sequential(step.activities);
    else if ('phase' in step) await executeChild(FloorPhaseWorkflow, { args: [step.phase] });
    else await executeChild(FloorExecutionWorkflow, { args: [step.execution] });
  }
}

export async function FloorPhaseWorkflow(activities: number): Promise<void> {
  await sequential(activities);
}

export async function FloorTaskWorkflow(activities: number): Promise<void> {
  await sequential(activities);
}

/** DAG order with at most maxParallelTasks children at once; a slot frees → the next ready task starts. */
export async function FloorExecutionWorkflow(x: FloorExecution): Promise<void> {
  const done = new Set<string>();
  const started = new Set<string>();
  const running = new Map<string, Promise<string>>();
  const decisions: Promise<void>[] = [];
  for (;;) {
    const ready = x.tasks.filter((t) => !started.has(t.id) && t.deps.every((d) => done.has(d)));
    for (const t of ready.slice(0, Math.max(0, x.maxParallelTasks - running.size))) {
      started.add(t.id);
      running.set(
        t.id,
        executeChild(FloorTaskWorkflow, { args: [t.activities] }).then(() => t.id),
      );
    }
    if (running.size === 0) break;
    const id = await Promise.race(running.values());
    running.delete(id);
    done.add(id);
    decisions.push(sequential(x.activitiesPerTask));
  }
  await Promise.all(decisions);
  await sequential(x.activitiesAfter);
}
