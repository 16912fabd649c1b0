// The scripted model (`replanner/scripted-model`): an OpenAI-compatible HTTP server whose replies are
// scripted per request purpose, with whole-run scenarios and replan decisions. `npm run demo` and
// examples/client.ts run Replanner on it offline; the tests build their fake LLM on it.
export { ScriptedModel } from './server';
export type { RecordedRequest, Reply, Responder, ScriptedModelOptions } from './types';
export { NO_REPLAN_DECISION, plannedTask, scriptScenario, type Scenario, type ScenarioTask } from './scenario';
export { decision, scriptDecisions, type DecisionSpec } from './decisions';
