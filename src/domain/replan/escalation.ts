// Escalation (X8): what happens when a replan the LLM wants cannot run (a limit or loop override)
// or ran and failed. A small state machine the workflow walks through:
//
//   stage 'refused' | 'failed'  → ask_llm_alternatives   (tell the LLM why, in the words of
//                                  src/llm/prompts/escalation.ts; ask once per trigger)
//        the LLM's answer is a new decision: evaluate it with evaluateReplanDecision; a runnable
//        replan or "no replan, continue" ends the escalation; another refusal → 'no_alternative'
//   stage 'no_alternative'      → notify_user_and_wait   (wait for an instruction; bounded by
//                                  goal_understanding.auto_assume_timeout_minutes when
//                                  auto_assume_on_no_response, else unbounded)
//   stage 'no_user_response'    → continue_with_assumptions | abort   (replanning.on_replan_failure)
import type { ReplannerConfig, OnReplanFailure } from '../config';
import type { Phase } from '../types';
import type { ReplanDecision, ReplanType } from './decision';
import { clipCounted } from '../text';
import { answerWaitMinutes } from './answers';
import type { PolicyOutcome } from './policy';
import { replanTypeName } from '../words/decisions';
import { phaseName } from '../words/phases';

export type EscalationTrigger = 'phase_limit' | 'global_limit' | 'loop_detected' | 'replan_failed';
export type EscalationStage = 'refused' | 'failed' | 'no_alternative' | 'no_user_response';

export interface EscalationInput {
  stage: EscalationStage;
  trigger: EscalationTrigger;
  phase: Phase;
  /** The decision that could not be carried out. */
  decision: ReplanDecision;
  /** Its resolved type, when known (PolicyOutcome.type). */
  replanType?: ReplanType;
  /** The override message or the failure detail. */
  detail: string;
  config: ReplannerConfig;
  /** The LLM was already asked for alternatives for this trigger: skip straight to the user. */
  alternativesAsked?: boolean;
}

export type EscalationStep =
  | { action: 'ask_llm_alternatives' }
  | {
      action: 'notify_user_and_wait';
      message: string;
      /** null = wait until the user answers. */
      waitMinutes: number | null;
      onNoResponse: 'continue_with_assumptions' | 'abort';
      assumptions: string[];
    }
  | { action: 'continue_with_assumptions'; assumptions: string[]; message: string }
  | { action: 'abort'; message: string };

const WHY: Readonly<Record<EscalationTrigger, string>> = {
  phase_limit: 'the replan limit for this kind of replan is reached',
  global_limit: 'the run has used all of its replans',
  loop_detected: 'the same replan was already tried for the same problem (loop detected)',
  replan_failed: 'the replan was started but failed',
};

/** Why a replan was not carried out, in words for the user and the LLM. */
export function whyNotCarriedOut(trigger: EscalationTrigger): string {
  return WHY[trigger];
}

/** The trigger of a refusal that escalates (a limit or a loop, when the policy says so), or undefined. */
export function escalationTrigger(o: PolicyOutcome): Exclude<EscalationTrigger, 'replan_failed'> | undefined {
  if (o.action !== 'override' || !o.escalate) return undefined;
  return o.reason === 'phase_limit' || o.reason === 'global_limit' || o.reason === 'loop_detected' ? o.reason : undefined;
}

/**
 * Where an escalation starts. A failed replan starts at 'failed', a refused one at
 * 'refused'; the LLM is asked for alternatives once per trigger key, and never about an
 * alternative it proposed itself (that one goes straight to the user).
 */
export function escalationOpening(e: {
  trigger: EscalationTrigger;
  /** The refused decision is itself an alternative the LLM proposed. */
  isAlternative: boolean;
  /** The LLM was already asked for alternatives for this trigger key. */
  askedBefore: boolean;
}): Pick<EscalationInput, 'stage' | 'alternativesAsked'> {
  return { stage: e.trigger === 'replan_failed' ? 'failed' : 'refused', alternativesAsked: e.isAlternative || e.askedBefore };
}

/** The next escalation step. */
export function escalate(input: EscalationInput): EscalationStep {
  const { stage, config } = input;
  const onFailure: OnReplanFailure = config.replanning.on_replan_failure;
  const assumptions = fallbackAssumptions(input);

  if ((stage === 'refused' || stage === 'failed') && !input.alternativesAsked) {
    return { action: 'ask_llm_alternatives' };
  }
  if (stage === 'refused' || stage === 'failed' || stage === 'no_alternative') {
    const waitMinutes = answerWaitMinutes(config);
    const onNoResponse = onFailure === 'continue' ? 'continue_with_assumptions' : 'abort';
    return {
      action: 'notify_user_and_wait',
      waitMinutes,
      onNoResponse,
      assumptions,
      message: userMessage(input, waitMinutes, onNoResponse, assumptions),
    };
  }
  // no_user_response
  if (onFailure === 'abort') {
    return {
      action: 'abort',
      message: `Run stopped: ${WHY[input.trigger]} (${clipCounted(input.detail, 500)}), no alternative was found and nobody answered (replanning.on_replan_failure: abort).`,
    };
  }
  return {
    action: 'continue_with_assumptions',
    assumptions,
    message: `No answer received; continuing with the current plan on these assumptions:\n${assumptions.map((a) => `- ${a}`).join('\n')}`,
  };
}

function fallbackAssumptions(input: EscalationInput): string[] {
  const stated = (input.decision.assumptions_to_make ?? []).filter((a) => a.trim() !== '');
  if (stated.length) return stated;
  const type = replanTypeName(input.replanType ?? input.decision.replan_type ?? undefined);
  return [`The current plan is kept unchanged; the proposed change (${type}) was not carried out because ${WHY[input.trigger]}.`];
}

function userMessage(
  input: EscalationInput,
  waitMinutes: number | null,
  onNoResponse: 'continue_with_assumptions' | 'abort',
  assumptions: string[],
): string {
  const d = input.decision;
  const lines = [
    '## ⚠️ Replan Could Not Be Carried Out',
    '',
    `**Phase**: ${phaseName(input.phase)}`,
    `**Why**: ${WHY[input.trigger]}`,
    `**Details**: ${clipCounted(input.detail, 1000)}`,
  ];
  if (d.issues_found.length) {
    lines.push('', '**Issues Found**:', ...d.issues_found.slice(0, 10).map((i) => `- ${clipCounted(i, 300)}`));
  }
  lines.push('', 'Please reply with an instruction for how to proceed.');
  const when = waitMinutes === null ? 'Until you answer, the run waits.' : `If there is no response within ${waitMinutes} minutes,`;
  if (waitMinutes === null) lines.push(when);
  else if (onNoResponse === 'abort') lines.push(`${when} the run will be stopped.`);
  else lines.push(`${when} I will continue with the following assumptions:`, ...assumptions.map((a) => `- ${a}`));
  return lines.join('\n');
}
