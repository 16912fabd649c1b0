// Re-decomposing a task its judge said to replan (J5–J8): the planner splits it into smaller tasks
// that replace it, a bounded number of times per chain. Pure: the planner call happens in an
// activity; this module decides whether it may happen and applies its result to the task list.
import type { ReplannerConfig } from '../config';
import { describeGraphProblem, validateTaskGraph } from '../graph';
import { TaskState, type TaskRecord, type TaskSpec } from '../types';

/** The replanning prompt asks for 3–5 tasks; 1–8 are accepted, 0 is a failed re-decomposition. */
export const REQUESTED_REPLACEMENTS = { min: 3, max: 5 } as const;
export const ACCEPTED_REPLACEMENTS = { min: 1, max: 8 } as const;

export type CanRedecompose =
  { ok: true; iteration: number; nextIteration: number } | { ok: false; reason: 'disabled' | 'max_iterations'; message: string };

/**
 * May this task be re-decomposed? A task's iteration is how many re-decompositions
 * produced it (0 for a planner task). iteration ≥ maxIterations → no (the task is BLOCKED), so a
 * chain allows maxIterations re-decompositions; task_replanning.enabled false → no.
 */
export function canRedecompose(task: Pick<TaskRecord, 'replanningInfo'>, config: Pick<ReplannerConfig, 'task_replanning'>): CanRedecompose {
  const tr = config.task_replanning;
  if (!tr.enabled) {
    return { ok: false, reason: 'disabled', message: 'task re-decomposition is disabled (task_replanning.enabled: false)' };
  }
  const iteration = task.replanningInfo?.iteration ?? 0;
  if (iteration >= tr.maxIterations) {
    return {
      ok: false,
      reason: 'max_iterations',
      message: `task was already re-decomposed ${iteration} time(s); the limit is ${tr.maxIterations} (task_replanning.maxIterations)`,
    };
  }
  return { ok: true, iteration, nextIteration: iteration + 1 };
}

export type RedecompositionResult =
  | {
      ok: true;
      tasks: TaskRecord[];
      /** Ids of the replacement tasks, in the planner's order (possibly renamed). */
      replacementIds: string[];
      /** Planner ids that had to change, in order. */
      renamed: { from: string; to: string }[];
      /** Dependencies that were dropped because they named nothing known. */
      warnings: string[];
    }
  | { ok: false; reason: string };

/**
 * Replaces task `originalId` by `newTasks`.
 * - The original becomes REPLACED_BY_REPLAN with replanningInfo.replacedBy = the new ids.
 * - New tasks are READY with replanningInfo { iteration: original's + 1, maxIterations,
 *   originalTaskId: the first task of the chain, replacedBy: [], replanReason }.
 * - Ids: a planner id that collides with an existing task or repeats inside the set becomes
 *   `<originalId>.<id>` (then `-2`, `-3`… if still taken); an empty id becomes `<originalId>.<n>`.
 * - Dependencies: on another new task (by the planner's id) → kept and renamed; on an existing
 *   task → kept; on the original itself → dropped; unknown → dropped with a warning. New tasks
 *   with no dependency inside the set inherit the original's dependencies.
 * - Rewiring: every task that depended on the original now depends on ALL replacement tasks.
 * - The resulting graph must be valid (no cycle, no unknown dependency).
 * The new tasks are inserted right after the original, so listings read in order.
 */
export function applyRedecomposition(
  tasks: TaskRecord[],
  originalId: string,
  newTasks: TaskSpec[],
  reason: string,
  maxIterations: number,
): RedecompositionResult {
  const original = tasks.find((t) => t.id === originalId);
  if (!original) return { ok: false, reason: `task "${originalId}" does not exist` };
  const closed: TaskState[] = [TaskState.DONE, TaskState.CANCELLED, TaskState.REPLACED_BY_REPLAN];
  if (closed.includes(original.state)) {
    return { ok: false, reason: `task "${originalId}" is ${original.state} and cannot be re-decomposed` };
  }
  if (newTasks.length < ACCEPTED_REPLACEMENTS.min) {
    return { ok: false, reason: 'the planner returned no replacement tasks' };
  }
  if (newTasks.length > ACCEPTED_REPLACEMENTS.max) {
    return {
      ok: false,
      reason: `the planner returned ${newTasks.length} replacement tasks; at most ${ACCEPTED_REPLACEMENTS.max} are accepted (${REQUESTED_REPLACEMENTS.min}–${REQUESTED_REPLACEMENTS.max} were asked for)`,
    };
  }

  // Fresh unique ids.
  const taken = new Set(tasks.map((t) => t.id));
  const idFor = new Map<string, string>(); // planner id → final id (first occurrence wins for deps)
  const finalIds: string[] = [];
  const renamed: { from: string; to: string }[] = [];
  newTasks.forEach((t, i) => {
    const raw = t.id.trim();
    let id = raw === '' ? `${originalId}.${i + 1}` : raw;
    if (taken.has(id)) id = `${originalId}.${raw || i + 1}`;
    const stem = id;
    for (let n = 2; taken.has(id); n++) id = `${stem}-${n}`;
    taken.add(id);
    finalIds.push(id);
    if (id !== t.id) renamed.push({ from: t.id, to: id });
    if (!idFor.has(t.id)) idFor.set(t.id, id);
  });
  const newIdSet = new Set(finalIds);
  const existing = new Set(tasks.map((t) => t.id));

  const warnings: string[] = [];
  const chainRoot = original.replanningInfo?.originalTaskId ?? original.id;
  const iteration = (original.replanningInfo?.iteration ?? 0) + 1;
  const replacements: TaskRecord[] = newTasks.map((t, i) => {
    const id = finalIds[i]!;
    const inside: string[] = [];
    const outside: string[] = [];
    for (const dep of t.dependencies) {
      const mapped = idFor.get(dep);
      if (mapped !== undefined) {
        if (mapped !== id) inside.push(mapped);
      } else if (dep === originalId) {
        // depending on the task being replaced makes no sense: dropped
      } else if (existing.has(dep)) {
        outside.push(dep);
      } else {
        warnings.push(`task "${id}": dependency "${dep}" names no known task and was dropped`);
      }
    }
    const deps = inside.length ? [...inside, ...outside] : [...original.dependencies, ...outside];
    return {
      id,
      title: t.title,
      description: t.description,
      acceptanceCriteria: [...t.acceptanceCriteria],
      dependencies: dedupe(deps),
      scopePaths: [...t.scopePaths],
      profile: t.profile,
      state: TaskState.READY,
      replanningInfo: {
        iteration,
        maxIterations,
        originalTaskId: chainRoot,
        replacedBy: [],
        replanReason: reason,
      },
    };
  });

  const replacedOriginal: TaskRecord = {
    ...original,
    state: TaskState.REPLACED_BY_REPLAN,
    replanningInfo: {
      iteration: original.replanningInfo?.iteration ?? 0,
      maxIterations,
      ...(original.replanningInfo?.originalTaskId !== undefined ? { originalTaskId: original.replanningInfo.originalTaskId } : {}),
      replacedBy: [...finalIds],
      replanReason: reason,
    },
  };

  const out: TaskRecord[] = [];
  for (const t of tasks) {
    if (t.id === originalId) {
      out.push(replacedOriginal, ...replacements);
      continue;
    }
    // Rewiring: dependents of the original wait for all of its replacements.
    if (t.dependencies.includes(originalId)) {
      out.push({ ...t, dependencies: dedupe(t.dependencies.flatMap((d) => (d === originalId ? finalIds : [d]))) });
    } else {
      out.push(t);
    }
  }

  const problems = validateTaskGraph(out);
  const introduced = problems.filter((p) => {
    if (p.kind === 'cycle') return true;
    return newIdSet.has(p.taskId) || p.taskId === originalId;
  });
  if (introduced.length) {
    return { ok: false, reason: `the replacement tasks do not form a valid graph: ${introduced.map(describeGraphProblem).join('; ')}` };
  }
  return { ok: true, tasks: out, replacementIds: finalIds, renamed, warnings };
}

function dedupe(ids: string[]): string[] {
  return [...new Set(ids)];
}
