// Task graph checks (unknown dependencies, cycles) and DAG scheduling: a task starts once the tasks
// it depends on are done. Pure: used by workflows before and during execution.
import { TaskState, type TaskRecord, type TaskSpec } from './types';

export type GraphProblem =
  | { kind: 'duplicate_id'; taskId: string }
  | { kind: 'unknown_dependency'; taskId: string; dependency: string }
  | { kind: 'self_dependency'; taskId: string }
  | { kind: 'cycle'; cycle: string[] };

/** Every problem that would make the graph unschedulable; empty means it can run. */
export function validateTaskGraph(tasks: Pick<TaskSpec, 'id' | 'dependencies'>[]): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const ids = new Set<string>();
  for (const t of tasks) {
    if (ids.has(t.id)) problems.push({ kind: 'duplicate_id', taskId: t.id });
    ids.add(t.id);
  }
  for (const t of tasks) {
    for (const d of t.dependencies) {
      if (d === t.id) problems.push({ kind: 'self_dependency', taskId: t.id });
      else if (!ids.has(d)) problems.push({ kind: 'unknown_dependency', taskId: t.id, dependency: d });
    }
  }
  const cycle = findCycle(
    tasks.filter((t) => ids.has(t.id)),
    ids,
  );
  if (cycle) problems.push({ kind: 'cycle', cycle });
  return problems;
}

/** Returns one dependency cycle (ids in order, first repeated at the end) or undefined. */
export function findCycle(tasks: Pick<TaskSpec, 'id' | 'dependencies'>[], known?: Set<string>): string[] | undefined {
  const deps = new Map(tasks.map((t) => [t.id, t.dependencies.filter((d) => d !== t.id && (!known || known.has(d)))]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const s = state.get(id);
    if (s === 'done') return undefined;
    if (s === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const d of deps.get(id) ?? []) {
      const c = visit(d);
      if (c) return c;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const t of tasks) {
    const c = visit(t.id);
    if (c) return c;
  }
  return undefined;
}

export function describeGraphProblem(p: GraphProblem): string {
  switch (p.kind) {
    case 'duplicate_id':
      return `task id "${p.taskId}" is used more than once`;
    case 'unknown_dependency':
      return `task "${p.taskId}" depends on "${p.dependency}", which does not exist`;
    case 'self_dependency':
      return `task "${p.taskId}" depends on itself`;
    case 'cycle':
      return `dependency cycle: ${p.cycle.join(' -> ')}`;
  }
}

/** A planner's task graph, judged: it can run; send it back with its problems; or refuse it. */
export type TaskGraphVerdict =
  { kind: 'valid' } | { kind: 'ask_again'; problems: string[] } | { kind: 'refuse'; problems: string[]; invalidGraphs: number };

/**
 * An invalid task graph goes back to the planner at most `maxRepairs` times (RunOptions
 * maxGraphRepairs); `repairs`: how many times it already went back in this phase.
 */
export function taskGraphVerdict(tasks: Pick<TaskSpec, 'id' | 'dependencies'>[], repairs: number, maxRepairs: number): TaskGraphVerdict {
  const problems = validateTaskGraph(tasks).map(describeGraphProblem);
  if (problems.length === 0) return { kind: 'valid' };
  return repairs >= maxRepairs ? { kind: 'refuse', problems, invalidGraphs: repairs + 1 } : { kind: 'ask_again', problems };
}

/** Tasks whose dependencies are all DONE and that have not started yet. */
export function readyTasks(tasks: TaskRecord[]): TaskRecord[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return tasks.filter((t) => t.state === TaskState.READY && t.dependencies.every((d) => byId.get(d)?.state === TaskState.DONE));
}

/**
 * The tasks the scheduler starts now: ready, not already running, at most the free slots
 * (maxParallelTasks − running); none once a decision wants a replan (`stopped`).
 */
export function tasksToStart(tasks: TaskRecord[], running: ReadonlySet<string>, maxParallel: number, stopped: boolean): TaskRecord[] {
  if (stopped) return [];
  const free = Math.max(0, maxParallel - running.size);
  return readyTasks(tasks)
    .filter((t) => !running.has(t.id))
    .slice(0, free);
}

/**
 * The execution phase hands over to a fresh round (the run starts the next execution phase
 * for the tasks still READY) once its history reaches the run's continue-as-new threshold or the
 * server suggests it: its history then stays bounded whatever the plan's size.
 */
export function executionHistoryFull(historyLength: number, suggested: boolean, limit: number): boolean {
  return suggested || historyLength >= limit;
}

/**
 * What a progress report tells the run: the records of `after` that are new or changed since
 * `before` (state, summary, dependencies rewired by a re-decomposition), in `after`'s order; empty:
 * nothing to report. A report carries only these, so its size does not grow with the plan. Usage
 * alone does not count: it rides along with the next change and the phase's result.
 */
export function changedTasks(before: readonly TaskRecord[], after: readonly TaskRecord[]): TaskRecord[] {
  if (before === after) return [];
  const was = new Map(before.map((t) => [t.id, t]));
  // Records are replaced, never mutated: an unchanged one is usually the same object.
  return after.filter((t) => {
    const b = was.get(t.id);
    return b !== t && (b === undefined || JSON.stringify(b) !== JSON.stringify(t));
  });
}

/**
 * Tasks that can never start because a dependency (transitively) is BLOCKED or CANCELLED,
 * with the id of the task that blocks them.
 */
export function blockedByDependency(tasks: TaskRecord[]): { taskId: string; blockedBy: string }[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const out: { taskId: string; blockedBy: string }[] = [];
  const rootBlocker = (id: string, seen: Set<string>): string | undefined => {
    const t = byId.get(id);
    if (!t || seen.has(id)) return undefined;
    seen.add(id);
    if (t.state === TaskState.BLOCKED || t.state === TaskState.CANCELLED) return id;
    for (const d of t.dependencies) {
      const b = rootBlocker(d, seen);
      if (b) return b;
    }
    return undefined;
  };
  for (const t of tasks) {
    if (t.state !== TaskState.READY) continue;
    for (const d of t.dependencies) {
      const b = rootBlocker(d, new Set());
      if (b) {
        out.push({ taskId: t.id, blockedBy: b });
        break;
      }
    }
  }
  return out;
}
