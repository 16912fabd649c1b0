// makeRefinementDecision (R2): what to do with a judged plan, accept it, replan it with the
// judge's feedback or reject it, by rules checked in a fixed order.
import type { RefinementConfig } from './config';
import { isQualityOk, type QualityJudgeResult } from './quality';
import { assessImprovement } from './stagnation';

export type RefinementAction = 'accept' | 'replan' | 'reject';
export type RefinementReplanKind = 'quality' | 'suggestions';
/** The rule that decided (1..6, in the order below). */
export type RefinementRule = 1 | 2 | 3 | 4 | 5 | 6;

export interface RefinementDecisionInput {
  /**
   * 1-based number of the plan being judged: 1 = the initial plan, 2 = the plan after the
   * first re-plan, … So `attempt − 1` re-plans have been done. A value below 1 (or not
   * finite) is read as 1.
   */
  attempt: number;
  result: QualityJudgeResult;
  /** Score of the previously judged plan; absent on the first attempt or when it had none. */
  previousScore?: number;
  /** Re-plans so far that were driven by suggestions of an acceptable plan. */
  suggestionReplansUsed: number;
  config: RefinementConfig;
}

export interface RefinementDecision {
  action: RefinementAction;
  /** Readable, for people (no spec codes: the row is `rule`), e.g. "quality not OK (score 55, 2 issue(s)) → replan". */
  reason: string;
  rule: RefinementRule;
  /**
   * accept: the judge's suggestions, to be recorded with the plan. replan: the suggestions to feed
   * back into the planner. Absent when there are none.
   */
  suggestions?: string[];
  /** replan / reject: the judge's issues (feedback for the planner, or why the run fails). */
  issues?: string[];
  /** Only on replan: driven by failed quality, or by suggestions of an acceptable plan. */
  kind?: RefinementReplanKind;
  /** Set when stagnation was checked (a previous and a current score both exist). */
  stagnant?: boolean;
}

/**
 * Decide accept | replan | reject for a judged plan. Priority order, first match wins:
 *
 * 1. max attempts reached (attempt − 1 ≥ maxRefinementAttempts re-plans done) → accept if OK, else reject
 * 2. score missing (also on the first attempt) → accept if OK, else reject
 * 3. stagnation (too small a gain, only when there is a previous score) → accept if OK, else replan
 *    (attempts remain, since row 1 did not match: while attempts are left, keep improving)
 * 4. quality not OK → replan
 * 5. OK + suggestions + refineSuggestionsOnSuccess + suggestion re-plans left → replan (kind suggestions)
 * 6. OK → accept
 *
 * "OK" is isQualityOk: isAcceptable only, never the score.
 */
export function makeRefinementDecision(input: RefinementDecisionInput): RefinementDecision {
  const { result, config } = input;
  const attempt = Number.isFinite(input.attempt) && input.attempt >= 1 ? Math.floor(input.attempt) : 1;
  const replansDone = attempt - 1;
  const ok = isQualityOk(result);
  const score = result.overallScore;
  const scoreText = score === undefined ? 'no score' : `score ${score}`;
  const verdict = ok ? 'quality OK' : 'quality not OK';
  const suggestions = nonEmpty(result.suggestions);
  const issues = nonEmpty(result.issues);

  const finish = (rule: RefinementRule, why: string, extra: Partial<RefinementDecision> = {}): RefinementDecision => {
    const action: RefinementAction = ok ? 'accept' : 'reject';
    const d: RefinementDecision = { action, rule, reason: `${why}, ${verdict} (${scoreText}) → ${action}`, ...extra };
    if (ok && suggestions) d.suggestions = suggestions;
    if (!ok && issues) d.issues = issues;
    return d;
  };
  const replan = (rule: RefinementRule, kind: RefinementReplanKind, why: string, extra: Partial<RefinementDecision> = {}): RefinementDecision => {
    const d: RefinementDecision = { action: 'replan', rule, kind, reason: `${why} → replan`, ...extra };
    if (suggestions) d.suggestions = suggestions;
    if (kind === 'quality' && issues) d.issues = issues;
    return d;
  };

  // 1. max attempts reached
  if (replansDone >= config.maxRefinementAttempts) {
    return finish(1, `maximum refinement attempts reached (${replansDone}/${config.maxRefinementAttempts} re-plans done)`);
  }
  // 2. score missing
  if (score === undefined) {
    return finish(2, 'quality score missing, improvement cannot be verified');
  }
  // 3. stagnation (only with a previous score)
  let stagnant: boolean | undefined;
  if (input.previousScore !== undefined) {
    const assessment = assessImprovement(input.previousScore, score, config);
    stagnant = assessment.stagnant;
    if (assessment.stagnant) {
      if (ok) return finish(3, `improvement stagnated (${assessment.reason})`, { stagnant });
      const left = config.maxRefinementAttempts - replansDone;
      return replan(3, 'quality', `improvement stagnated (${assessment.reason}) but quality not OK and ${left} re-plan(s) left`, { stagnant });
    }
  }
  const withStagnant = stagnant === undefined ? {} : { stagnant };
  // 4. quality not OK
  if (!ok) {
    return replan(4, 'quality', `quality not OK (${scoreText}, ${result.issues.length} issue(s))`, withStagnant);
  }
  // 5. OK + suggestions + refineSuggestionsOnSuccess + suggestion re-plans left
  if (suggestions && config.refineSuggestionsOnSuccess && input.suggestionReplansUsed < config.maxSuggestionReplans) {
    return replan(
      5,
      'suggestions',
      `quality OK (${scoreText}) with ${suggestions.length} suggestion(s), refineSuggestionsOnSuccess on, suggestion re-plans ${input.suggestionReplansUsed}/${config.maxSuggestionReplans} used`,
      withStagnant,
    );
  }
  // 6. OK
  return finish(6, 'plan accepted', withStagnant);
}

function nonEmpty(list: readonly string[] | undefined): string[] | undefined {
  return list && list.length > 0 ? [...list] : undefined;
}
