// Replan counters and their limits (X5): each kind of replan has its own limit, and all replans
// together have one too. Counters live in workflow state (they survive pause/resume, crashes and
// continueAsNew), so they are plain JSON and updated immutably.
import type { ReplannerConfig } from '../config';
import { PHASES, type Phase } from '../types';
import { REPLAN_TYPES, type ReplanType } from './decision';

export interface ReplanCounters {
  /** Replans executed in this run (all types, clarification requests included). */
  total: number;
  /** Per counted replan type (see ResolvedReplan.countedAs). */
  byType: Record<ReplanType, number>;
  /** Per phase in which the decision was made (kept with the decision records). */
  byPhase: Record<Phase, number>;
  /** Per trigger key (policy.triggerKey) — for loop detection. */
  byTrigger: Record<string, number>;
}

export function emptyCounters(): ReplanCounters {
  return {
    total: 0,
    byType: Object.fromEntries(REPLAN_TYPES.map((t) => [t, 0])) as Record<ReplanType, number>,
    byPhase: Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>,
    byTrigger: {},
  };
}

/** The config key (under `replanning.`) that bounds a replan type; null = only the global limit. */
export const LIMIT_KEY: Readonly<Record<ReplanType, string | null>> = {
  clarification_request: 'goal_understanding.max_clarification_requests',
  // Goal revisions have no limit of their own, only the global one.
  goal_revision: null,
  task_redecomposition: 'task_decomposition.max_redecomposition_attempts',
  action_regeneration: 'action_sequence.max_regeneration_attempts',
  retry: 'execution.max_action_retries',
  partial_replan: 'execution.max_partial_replans',
  // A full replan is charged to the type of the level it runs at (policy.resolveReplan); its own
  // entry only matters when asked directly and follows its default level (4, re-decomposition).
  full_replan: 'task_decomposition.max_redecomposition_attempts',
  plan_revision: 'reflection.max_plan_revisions',
};

/** How many replans of this type a run may execute; null = bounded by the global limit only. */
export function limitFor(type: ReplanType, config: ReplannerConfig): number | null {
  const r = config.replanning;
  switch (type) {
    case 'clarification_request':
      return r.goal_understanding.max_clarification_requests;
    case 'goal_revision':
      return null;
    case 'task_redecomposition':
    case 'full_replan':
      return r.task_decomposition.max_redecomposition_attempts;
    case 'action_regeneration':
      return r.action_sequence.max_regeneration_attempts;
    case 'retry':
      return r.execution.max_action_retries;
    case 'partial_replan':
      return r.execution.max_partial_replans;
    case 'plan_revision':
      return r.reflection.max_plan_revisions;
  }
}

/**
 * V8: the plan changes a run carried out: every counted replan but the clarifications (a question to
 * the user changes no plan; the limits still count it). `status`, `decisions` and the ReplanCount
 * search attribute show this number.
 */
export function planChangesMade(c: { total: number; byType?: Partial<Record<string, number>> }): number {
  return Math.max(0, c.total - (c.byType?.clarification_request ?? 0));
}

export function globalLimit(config: ReplannerConfig): number {
  return config.replanning.global.max_total_replans;
}

/** Counts one executed replan (immutable). `type` is the counted type (ResolvedReplan.countedAs). */
export function recordReplan(counters: ReplanCounters, type: ReplanType, triggerKey: string, phase?: Phase): ReplanCounters {
  return {
    total: counters.total + 1,
    byType: { ...counters.byType, [type]: (counters.byType[type] ?? 0) + 1 },
    byPhase: phase ? { ...counters.byPhase, [phase]: (counters.byPhase[phase] ?? 0) + 1 } : { ...counters.byPhase },
    byTrigger: { ...counters.byTrigger, [triggerKey]: (counters.byTrigger[triggerKey] ?? 0) + 1 },
  };
}
