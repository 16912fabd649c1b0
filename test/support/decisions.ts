// Replan decisions (X2) for tests: scripting the replan-decision LLM per phase (the product's
// src/scripted-model/decisions.ts), and decisions as the domain reads them.
import { NO_REPLAN, type ReplanDecision, type ReplanType } from '../../src/domain/replan/decision';

export { decision, decisionPhaseOf, isAlternativesRequest, scriptDecisions } from '../../src/scripted-model/decisions';

/** A parsed decision that wants a replan of `type`, with its `reasoning` and the `issues` it found; `over` sets the rest. */
export function wantedReplan(
  type: ReplanType,
  confidence: number,
  reasoning: string,
  issues: string[] = [],
  over: Partial<ReplanDecision> = {},
): ReplanDecision {
  return { ...NO_REPLAN(reasoning), replan_needed: true, confidence, replan_type: type, issues_found: issues, ...over };
}
