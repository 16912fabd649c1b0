// The plan-quality refinement loop's record and its choice of plan after a re-plan. The record
// lives in RunState and the phase's result, so it is compact: issues and reasons are clipped.
import { planSizeFeedback, planSizeProblem } from '../plan-size';
import { clip } from '../text';
import type { TaskSpec } from '../types';
import type { RefinementConfig } from './config';
import type { RefinementAction, RefinementDecision } from './decision';
import type { QualityJudgeResult } from './quality';
import { applyIndividualFallback } from './structure';

/** One judged plan of the refinement loop (compact: issues are clipped). */
export interface PlanQualityAttempt {
  /** 1 = the initial plan. */
  attempt: number;
  acceptable: boolean;
  score?: number;
  issues: string[];
  /** The refinement decision and its reason, for people ("quality not OK (score 55, 2 issue(s)) → replan"). */
  decision: RefinementAction;
  reason: string;
  /** The judge itself failed; the judgement is judgeFailureResult. */
  judgeFailed?: boolean;
  /** What became of the re-plan this decision asked for (new plan / per-task fallback / previous plan kept). */
  structure?: string;
}

export interface PlanQuality {
  outcome: 'accepted' | 'rejected';
  attempts: PlanQualityAttempt[];
  /** Suggestions of the accepted plan, recorded. */
  suggestions: string[];
}

/** The record of one judged plan: its first 8 issues, and whether the judge itself failed. */
export function judgedAttempt(
  attempt: number,
  judged: { result: QualityJudgeResult; judgeFailed: boolean },
  decision: RefinementDecision,
): PlanQualityAttempt {
  const { result } = judged;
  const record: PlanQualityAttempt = {
    attempt,
    acceptable: result.isAcceptable,
    issues: result.issues.slice(0, 8).map((i) => clip(i, 300)),
    decision: decision.action,
    reason: decision.reason,
  };
  if (result.overallScore !== undefined) record.score = result.overallScore;
  if (judged.judgeFailed) record.judgeFailed = true;
  return record;
}

/** The suggestions recorded with an accepted plan (at most 10). */
export function acceptedSuggestions(decision: RefinementDecision): string[] {
  return (decision.suggestions ?? []).slice(0, 10).map((x) => clip(x, 300));
}

/**
 * The plan the loop goes on with after a re-plan, what became of the re-plan, and what the next
 * re-plan is told about its size (plans are capped).
 */
export interface RefinedPlan {
  tasks: TaskSpec[];
  structure: string;
  /** Set when the re-plan was refused for its size. */
  sizeNote?: string;
}

/**
 * A re-plan that failed, or one over planning.maxTasks, keeps the previous plan (the next
 * re-plan is told the limit); any other goes through the structure check with its per-task fallback.
 */
export function refinedPlan(p: {
  previous: TaskSpec[];
  replanned: { tasks: TaskSpec[] } | { error: string };
  maxTasks: number;
  config: Pick<RefinementConfig, 'enableIndividualFallback' | 'taskCountChangeThreshold' | 'taskCountChangeMinAbsolute'>;
}): RefinedPlan {
  const { previous } = p;
  if ('error' in p.replanned) return { tasks: previous, structure: `re-plan failed (${clip(p.replanned.error, 200)}); previous plan kept` };
  const next = p.replanned.tasks;
  const tooLarge = planSizeProblem(next.length, p.maxTasks);
  if (tooLarge) {
    return { tasks: previous, structure: `re-plan refused (${tooLarge}); previous plan kept`, sizeNote: planSizeFeedback(tooLarge, p.maxTasks) };
  }
  const chosen = applyIndividualFallback(previous, next, p.config);
  return { tasks: chosen.tasks, structure: `${chosen.used}: ${clip(chosen.reason, 400)}` };
}
