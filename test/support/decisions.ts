// Scripting the replan-decision LLM (X1) per phase: the product's (src/scripted-model/decisions.ts).
export { decision, decisionPhaseOf, isAlternativesRequest, scriptDecisions } from '../../src/scripted-model/decisions';
