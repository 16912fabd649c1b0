// Scripting the replan-decision LLM per phase: the demo and tests say what the LLM decides
// after which phase; anything not scripted is "no replan".
import type { Phase } from '../domain/types';
import type { ScriptedModel } from './server';
import type { RecordedRequest, Reply } from './types';
import { NO_REPLAN_DECISION } from './scenario';

const INTRO: [Phase, string][] = [
  ['goal_understanding', 'completed the goal understanding phase'],
  ['task_decomposition', 'completed the task decomposition phase'],
  ['action_sequence', 'completed the action sequence generation phase'],
  ['execution', 'You have executed an action'],
  ['reflection', 'completed the execution of planned actions'],
];

/** The phase a replan_decision request is about. */
export function decisionPhaseOf(req: RecordedRequest): Phase | undefined {
  return INTRO.find(([, text]) => req.text.includes(text))?.[0];
}

/** The request asks for alternatives to a refused replan. */
export function isAlternativesRequest(req: RecordedRequest): boolean {
  return req.text.includes('Your Previous Proposal Was Refused');
}

export interface DecisionSpec {
  confidence: number;
  type?: string | null;
  issue?: string;
  replan?: boolean;
  level?: number;
  target?: Phase;
  questions?: string[];
  assumptions?: string[];
}

/** A replan decision reply. */
export function decision(d: DecisionSpec): Record<string, unknown> {
  const replan = d.replan ?? true;
  return {
    replan_needed: replan,
    confidence: d.confidence,
    reasoning: replan ? `replan because ${d.issue ?? 'of an issue'}` : 'no replan needed',
    replan_type: replan ? (d.type ?? null) : null,
    ...(d.level ? { replan_level: d.level } : {}),
    ...(d.target ? { target_phase: d.target } : {}),
    issues_found: d.issue ? [d.issue] : [],
    recommended_actions: [],
    clarification_needed: !!d.questions?.length,
    clarification_questions: d.questions ?? [],
    ...(d.assumptions ? { assumptions_to_make: d.assumptions } : {}),
  };
}

type PhaseScript = (Record<string, unknown> | ((req: RecordedRequest, n: number) => Record<string, unknown>))[];

/**
 * Scripts replan_decision: per phase, the n-th request of that phase (1-based, alternatives
 * requests included) gets the n-th entry; a function entry repeats for every later request.
 * `alternatives` answers the requests for alternatives to a replan that could not run (default: no replan).
 */
export function scriptDecisions(
  fake: ScriptedModel,
  script: Partial<Record<Phase, PhaseScript>>,
  alternatives: Record<string, unknown> = NO_REPLAN_DECISION,
): void {
  const seen = new Map<Phase, number>();
  fake.always('replan_decision', (req): Reply => {
    if (isAlternativesRequest(req)) return { json: alternatives };
    const phase = decisionPhaseOf(req);
    if (!phase) return { status: 400, message: 'scripted decisions: replan_decision request for an unknown phase' };
    const n = (seen.get(phase) ?? 0) + 1;
    seen.set(phase, n);
    const list = script[phase] ?? [];
    const last = list[list.length - 1];
    const entry = list[n - 1] ?? (typeof last === 'function' ? last : undefined);
    if (!entry) return { json: NO_REPLAN_DECISION };
    return { json: typeof entry === 'function' ? entry(req, n) : entry };
  });
}
