// The phase's task list. Every change bumps its version and each task remembers the version it
// last changed in, so the run reads only what changed since it last looked (the run's history
// grows with the changes, not with the plan's size times its changes).
import { changedTasks } from '../../domain/graph';
import { remainingForPrompt } from '../../domain/replan';
import { TaskState, type TaskRecord } from '../../domain/types';

/** A task not yet at its end. */
export const OPEN: readonly TaskState[] = [TaskState.READY, TaskState.RUNNING, TaskState.NEEDS_CONTINUATION];

export interface TaskBoard {
  readonly tasks: TaskRecord[];
  readonly version: number;
  /** The whole list after a change (a re-decomposition). */
  commit(next: TaskRecord[]): void;
  set(id: string, patch: Partial<TaskRecord>): void;
  get(id: string): TaskRecord;
  /** The tasks changed after version `since`. */
  changedSince(since: number): TaskRecord[];
  /** The actions of this plan (not replaced by a re-decomposition), and the open ones for the prompt. */
  active(): TaskRecord[];
  remaining(): string[];
}

export function taskBoard(initial: TaskRecord[]): TaskBoard {
  let tasks = initial.map((t) => ({ ...t }));
  let version = 0;
  const changedIn = new Map<string, number>();
  const commit = (next: TaskRecord[]) => {
    const changed = changedTasks(tasks, next);
    tasks = next;
    if (!changed.length) return;
    version += 1;
    for (const t of changed) changedIn.set(t.id, version);
  };
  const active = () => tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
  return {
    get tasks() {
      return tasks;
    },
    get version() {
      return version;
    },
    commit,
    set: (id, patch) => commit(tasks.map((t) => (t.id === id ? { ...t, ...patch } : t))),
    get: (id) => tasks.find((t) => t.id === id)!,
    changedSince: (since) => tasks.filter((t) => (changedIn.get(t.id) ?? 0) > since),
    active,
    remaining: () =>
      remainingForPrompt(
        active()
          .filter((t) => OPEN.includes(t.state))
          .map((t) => `${t.id}: ${t.title}`),
      ),
  };
}
