// Structure validation of a re-planned task list (R3) and the fallback when it is broken: per task,
// or the previous plan kept. Dependency and cycle checks reuse src/domain/graph.ts.
import { describeGraphProblem, validateTaskGraph, type GraphProblem } from '../graph';
import type { TaskSpec } from '../types';
import type { RefinementConfig } from './config';

/** The part of a task the structure checks look at; TaskSpec and TaskRecord both fit. */
export type StructuredTask = Pick<TaskSpec, 'id' | 'dependencies'>;

export type StructureProblem =
  | { kind: 'empty_plan' }
  | { kind: 'task_count_change'; previousCount: number; nextCount: number; absoluteChange: number; relativeChange: number }
  | GraphProblem;

export type StructureValidation = { ok: true } | { ok: false; problems: string[]; details: StructureProblem[] };

type StructureConfig = Pick<RefinementConfig, 'taskCountChangeThreshold' | 'taskCountChangeMinAbsolute'>;

/**
 * Is the new plan structurally sound compared with the previous one? Broken when
 * - the task count changed by more than taskCountChangeThreshold (30%, relative to the
 *   previous count) AND by more than taskCountChangeMinAbsolute (2) tasks — both strict,
 *   so 10 → 13 (30%, 3) and 5 → 7 (40%, 2) are fine, 10 → 14 is broken;
 * - a task depends on a task that does not exist (or on itself), or an id is duplicated;
 * - the dependencies form a cycle;
 * - the new plan has no tasks at all.
 */
export function validateStructure(
  previous: readonly StructuredTask[],
  next: readonly StructuredTask[],
  config: StructureConfig,
): StructureValidation {
  const details: StructureProblem[] = [];
  if (next.length === 0) details.push({ kind: 'empty_plan' });
  const countProblem = taskCountChange(previous.length, next.length, config);
  if (countProblem) details.push(countProblem);
  details.push(...validateTaskGraph([...next]));
  if (details.length === 0) return { ok: true };
  return { ok: false, problems: details.map(describeStructureProblem), details };
}

function taskCountChange(
  previousCount: number,
  nextCount: number,
  config: StructureConfig,
): Extract<StructureProblem, { kind: 'task_count_change' }> | undefined {
  const absoluteChange = Math.abs(nextCount - previousCount);
  if (absoluteChange === 0) return undefined;
  const relativeChange = previousCount > 0 ? absoluteChange / previousCount : Number.POSITIVE_INFINITY;
  if (relativeChange > config.taskCountChangeThreshold && absoluteChange > config.taskCountChangeMinAbsolute) {
    return { kind: 'task_count_change', previousCount, nextCount, absoluteChange, relativeChange };
  }
  return undefined;
}

export function describeStructureProblem(p: StructureProblem): string {
  switch (p.kind) {
    case 'empty_plan':
      return 'the new plan has no tasks';
    case 'task_count_change': {
      const pct = Number.isFinite(p.relativeChange) ? `${Math.round(p.relativeChange * 100)}%` : 'from zero';
      return `task count changed from ${p.previousCount} to ${p.nextCount} (${p.absoluteChange} tasks, ${pct})`;
    }
    default:
      return describeGraphProblem(p);
  }
}

export type FallbackUsed = 'new_plan' | 'individual_fallback' | 'previous_plan';

export interface FallbackResult<T extends StructuredTask> {
  /** Which plan the caller should continue with. */
  used: FallbackUsed;
  tasks: T[];
  reason: string;
  /** Problems of the new plan as it came from the planner (empty when it was valid). */
  problems: string[];
  /** individual_fallback: tasks whose new version was broken and were put back to their previous version. */
  revertedTaskIds: string[];
  /** individual_fallback: dependencies removed because nothing could repair them otherwise. */
  droppedDependencies: { taskId: string; dependency: string }[];
  /** individual_fallback: later duplicates of an id that were dropped (the first one is kept). */
  droppedDuplicateIds: string[];
}

/**
 * Choose the plan to continue with after a re-plan.
 *
 * - New plan valid → `new_plan`.
 * - Broken and `enableIndividualFallback` off → `previous_plan`.
 * - Broken by the task count (or empty) → `previous_plan`: a per-task repair cannot undo a
 *   wholesale change of the task set, so the previous task set is kept.
 * - Otherwise per-task fallback, repeated until the graph is
 *   valid: every task whose new version is broken (unknown/self dependency, part of a
 *   cycle) goes back to its previous version (same id) when there is one; a task with no
 *   previous version (or already reverted) loses the offending dependencies instead (for a
 *   cycle: the edge that closes it); later duplicates of an id are dropped. The repaired
 *   plan is re-validated; if it is still broken → `previous_plan`.
 *
 * Deterministic: the same inputs always give the same result.
 */
export function applyIndividualFallback<T extends StructuredTask>(
  previous: readonly T[],
  next: readonly T[],
  config: Pick<RefinementConfig, 'enableIndividualFallback' | 'taskCountChangeThreshold' | 'taskCountChangeMinAbsolute'>,
): FallbackResult<T> {
  const base = {
    revertedTaskIds: [] as string[],
    droppedDependencies: [] as { taskId: string; dependency: string }[],
    droppedDuplicateIds: [] as string[],
  };
  const validation = validateStructure(previous, next, config);
  if (validation.ok) {
    return { used: 'new_plan', tasks: [...next], reason: 'new plan is structurally valid', problems: [], ...base };
  }
  const problems = validation.problems;
  const keepPrevious = (why: string): FallbackResult<T> => ({
    used: 'previous_plan',
    tasks: [...previous],
    reason: `new plan is structurally broken (${problems.join('; ')}); ${why}`,
    problems,
    ...base,
  });
  if (!config.enableIndividualFallback) return keepPrevious('individual fallback disabled, previous plan kept');
  if (validation.details.some((d) => d.kind === 'task_count_change' || d.kind === 'empty_plan')) {
    return keepPrevious('the task set changed too much for a per-task repair, previous plan kept');
  }

  const previousById = new Map<string, T>();
  for (const t of previous) if (!previousById.has(t.id)) previousById.set(t.id, t);

  // Drop later duplicates (keep the first occurrence).
  const seen = new Set<string>();
  let tasks: T[] = [];
  for (const t of next) {
    if (seen.has(t.id)) base.droppedDuplicateIds.push(t.id);
    else {
      seen.add(t.id);
      tasks.push(t);
    }
  }

  const reverted = new Set<string>();
  const revert = (id: string): boolean => {
    const prev = previousById.get(id);
    if (!prev || reverted.has(id)) return false;
    reverted.add(id);
    base.revertedTaskIds.push(id);
    tasks = tasks.map((t) => (t.id === id ? prev : t));
    return true;
  };
  const dropDependency = (taskId: string, dependency: string): void => {
    base.droppedDependencies.push({ taskId, dependency });
    tasks = tasks.map((t) => (t.id === taskId ? { ...t, dependencies: t.dependencies.filter((d) => d !== dependency) } : t));
  };

  // Each round reverts a task or removes an edge, so it ends; the bound is a safety net.
  const maxRounds = tasks.length + tasks.reduce((n, t) => n + t.dependencies.length, 0) + previous.reduce((n, t) => n + t.dependencies.length, 0) + 2;
  for (let round = 0; round < maxRounds; round++) {
    const graphProblems = validateTaskGraph(tasks);
    if (graphProblems.length === 0) break;
    const first = graphProblems[0]!;
    if (first.kind === 'unknown_dependency' || first.kind === 'self_dependency') {
      const dep = first.kind === 'unknown_dependency' ? first.dependency : first.taskId;
      if (!revert(first.taskId)) dropDependency(first.taskId, dep);
    } else if (first.kind === 'cycle') {
      const members = first.cycle.slice(0, -1);
      const revertedAny = members.map((id) => revert(id)).some(Boolean);
      if (!revertedAny) {
        // cycle = [a, b, …, a], each depending on the next: drop the edge that closes it.
        const from = first.cycle[first.cycle.length - 2]!;
        const to = first.cycle[first.cycle.length - 1]!;
        dropDependency(from, to);
      }
    } else {
      break; // duplicates were removed above; nothing else to repair
    }
  }

  const final = validateStructure(previous, tasks, config);
  if (!final.ok) {
    return keepPrevious(`per-task repair did not produce a valid plan (${final.problems.join('; ')}), previous plan kept`);
  }
  const actions: string[] = [];
  if (base.revertedTaskIds.length) actions.push(`kept the previous version of ${base.revertedTaskIds.join(', ')}`);
  if (base.droppedDependencies.length)
    actions.push(`dropped dependencies ${base.droppedDependencies.map((d) => `${d.taskId}→${d.dependency}`).join(', ')}`);
  if (base.droppedDuplicateIds.length) actions.push(`dropped duplicate ids ${base.droppedDuplicateIds.join(', ')}`);
  return {
    used: 'individual_fallback',
    tasks,
    reason: `new plan is structurally broken (${problems.join('; ')}); per-task fallback: ${actions.join('; ')}`,
    problems,
    ...base,
  };
}
