// What the planner is told when its task graph goes back to it: a graph that is not
// valid, and the plan-quality judge's issues and suggestions. (The plan-size note is the domain's
// planSizeFeedback, src/domain/plan-size.ts.)
import type { QualityJudgeResult, RefinementDecision } from '../../domain/refinement';

/** Joins the parts of a planner's feedback, skipping empty ones. */
export function joinFeedback(...parts: (string | undefined)[]): string {
  return parts.filter(Boolean).join('\n\n');
}

/** The planner's task graph was not valid (a cycle, an unknown dependency, …). */
export function graphRepairFeedback(problems: readonly string[]): string {
  return `Your previous task graph was invalid: ${problems.join('; ')}. Return a valid graph.`;
}

/** The planner's feedback for a re-plan: the judge's issues and suggestions. */
export function refinementFeedback(phaseFeedback: string | undefined, decision: RefinementDecision, result: QualityJudgeResult): string {
  const issues = decision.issues ?? result.issues;
  const suggestions = decision.suggestions ?? result.suggestions;
  const score = result.overallScore === undefined ? '' : ` (score ${result.overallScore}/100)`;
  return [
    phaseFeedback ?? '',
    decision.kind === 'suggestions'
      ? `The plan quality judge accepted your plan${score} but suggested improvements. Revise the plan to apply them.`
      : `The plan quality judge found your plan not good enough${score}. Revise the plan to fix these issues.`,
    issues.length ? `QUALITY ISSUES:\n${issues.map((i) => `- ${i}`).join('\n')}` : '',
    suggestions.length ? `SUGGESTIONS:\n${suggestions.map((x) => `- ${x}`).join('\n')}` : '',
    'Keep the ids of tasks that stay the same, keep the task count close to the previous plan, and keep every dependency pointing at a task of the plan.',
  ]
    .filter(Boolean)
    .join('\n\n');
}
