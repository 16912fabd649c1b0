// Escalation: a replan the LLM wants that cannot run (a limit or a loop refused it) or that ran and
// failed. The steps come from src/domain/replan/escalation.ts: ask the LLM for alternatives (once
// per trigger), then the user, then go on with assumptions or stop, as replanning.on_replan_failure says.
import { ApplicationFailure, log } from '@temporalio/workflow';
import { escalate, escalationOpening, type EscalationTrigger, type ReplanDecision, type ReplanType } from '../../domain/replan';
import type { ReplanContext } from '../../domain/replan/prompt-context';
import { addNotes, continueOnAssumptions, markAlternativesAsked } from '../../domain/run/decisions';
import type { Phase } from '../../domain/types';
import { alternativesPrompt } from '../../llm/prompts/escalation';
import { escalationAnswerNote, escalationAssumedNote } from '../../llm/prompts/questions';
import type { ReplanningDeps } from './replanning-entity';
import { askReplanDecision, type DecisionReply } from './replanning-llm';
import { askUser } from './replanning-questions';

/** A replan that cannot run (a limit refused it) or failed, as the escalation walks it through. */
export interface EscalationCase {
  phase: Phase;
  context: ReplanContext;
  decision: ReplanDecision;
  trigger: EscalationTrigger;
  /** The override message or the failure detail. */
  detail: string;
  replanType: ReplanType | undefined;
  /** The LLM is asked for alternatives once per trigger key. */
  triggerKey: string;
  replanId: string;
  /** 0: the first decision; 1 and more: an alternative the LLM proposed. */
  depth: number;
}

/** How an escalation ends: with the LLM's alternative (to be decided like any decision), or done. */
type EscalationEnd = { kind: 'alternative'; reply: DecisionReply } | { kind: 'done' };

/** Walks one escalation; throws ReplanAborted when nobody answered and the config says abort. */
export async function escalateReplan(deps: ReplanningDeps, e: EscalationCase): Promise<EscalationEnd> {
  const { entity } = deps;
  const input = {
    trigger: e.trigger,
    phase: e.phase,
    decision: e.decision,
    detail: e.detail,
    config: deps.config,
    ...(e.replanType ? { replanType: e.replanType } : {}),
  };
  const opening = escalationOpening({
    trigger: e.trigger,
    isAlternative: e.depth > 0,
    askedBefore: entity.state.alternativesAsked.includes(e.triggerKey),
  });
  let step = escalate({ ...input, ...opening });
  if (step.action === 'ask_llm_alternatives') {
    entity.apply((st) => markAlternativesAsked(st, e.triggerKey));
    return { kind: 'alternative', reply: await askReplanDecision(deps, e.phase, e.context, alternativesPrompt(input)) };
  }
  if (step.action === 'notify_user_and_wait') {
    const [answer] = await askUser(entity, {
      kind: 'escalation',
      phase: e.phase,
      replanId: e.replanId,
      texts: [step.message],
      assumptions: step.assumptions,
      timeoutMinutes: step.waitMinutes,
    });
    if (answer?.status === 'answered') {
      entity.apply((st) => addNotes(st, [escalationAnswerNote(answer.answer)]));
      return { kind: 'done' };
    }
    step = escalate({ ...input, stage: 'no_user_response' });
  }
  if (step.action === 'abort') throw ApplicationFailure.nonRetryable(step.message, 'ReplanAborted');
  if (step.action === 'continue_with_assumptions') {
    const assumed = step.assumptions;
    entity.apply((st) => continueOnAssumptions(st, escalationAssumedNote(assumed), assumed));
    log.info(step.message);
  }
  return { kind: 'done' };
}
