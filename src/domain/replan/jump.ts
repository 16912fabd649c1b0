// What a replan's jump back to its target phase does to the task list (X3). Pure: the run calls it
// and goes to the jump's target phase, from where it runs forward again.
import { activeTasks } from '../plan-size';
import type { Phase, TaskRecord } from '../types';
import { TaskState } from '../types';
import { clipCounted } from '../text';

export interface JumpEffect {
  target: Phase;
  /** Levels 1–3 keep completed work; 4–5 re-plan from the tasks or the goal up. */
  keepsCompletedWork: boolean;
  /** Level 1 (retry): the one task to run again. */
  taskId?: string;
  /** A reflection plan_revision's `additional_actions`, to become new tasks. */
  additionalActions?: string[];
}

export interface JumpOutcome {
  tasks: TaskRecord[];
  /** Ids of the tasks made from additional actions, in order. */
  added: string[];
  /** Additional actions left out because the plan would exceed planning.maxTasks. */
  dropped: number;
}

/** Task states a jump that keeps completed work runs again: what did not finish. */
const UNFINISHED: TaskState[] = [TaskState.BLOCKED, TaskState.CANCELLED, TaskState.NEEDS_CONTINUATION, TaskState.RUNNING];

const reopen = (t: TaskRecord): TaskRecord => {
  const { summary: _summary, ...rest } = t;
  return { ...rest, state: TaskState.READY };
};

/**
 * The one rule for which tasks a jump reopens and keeps:
 * - level 1 (target execution with a task): that task runs again, nothing else changes;
 * - levels 2–3 (keepsCompletedWork): DONE and REPLACED_BY_REPLAN tasks are kept, every unfinished
 *   task is READY again (it gets new actions), and a plan revision's additional actions become
 *   new READY tasks (see tasksFromActions);
 * - levels 4–5: the target phase makes a new plan; the list is left as it is until then.
 */
export function applyJump(tasks: TaskRecord[], j: JumpEffect, maxTasks: number): JumpOutcome {
  if (j.target === 'execution' && j.taskId !== undefined) {
    return { tasks: tasks.map((t) => (t.id === j.taskId ? reopen(t) : t)), added: [], dropped: 0 };
  }
  if (!j.keepsCompletedWork) return { tasks, added: [], dropped: 0 };
  const kept = tasks.map((t) => (UNFINISHED.includes(t.state) ? reopen(t) : t));
  const actions = j.additionalActions ?? [];
  const room = Math.max(0, maxTasks - activeTasks(kept).length);
  const fresh = tasksFromActions(kept, actions.slice(0, room));
  return { tasks: [...kept, ...fresh], added: fresh.map((t) => t.id), dropped: Math.max(0, actions.length - room) };
}

/**
 * A reflection's additional actions as new tasks. Ids `add-<n>`, unique against `existing`;
 * each depends on the DONE tasks only (they exist and are finished, so the graph stays valid and
 * the task sees the finished work); blank actions are skipped; texts are bounded (any LLM reply
 * may ask for anything).
 */
export function tasksFromActions(existing: TaskRecord[], actions: string[]): TaskRecord[] {
  const taken = new Set(existing.map((t) => t.id));
  const done = existing.filter((t) => t.state === TaskState.DONE).map((t) => t.id);
  const out: TaskRecord[] = [];
  let n = 1;
  for (const raw of actions) {
    const text = raw.trim();
    if (!text) continue;
    while (taken.has(`add-${n}`)) n++;
    const id = `add-${n}`;
    taken.add(id);
    out.push({
      id,
      title: clipCounted(text.split('\n')[0]!, 120),
      description: clipCounted(text, 2000),
      acceptanceCriteria: [clipCounted(text, 500)],
      dependencies: [...done],
      scopePaths: [],
      // The reflection says what to do, not what kind of work it is: the general multi-step profile.
      profile: 'MULTI_STEP_TASK',
      state: TaskState.READY,
    });
  }
  return out;
}
