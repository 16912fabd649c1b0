// The replanning layer asks the user and waits durably: a confirmation of a
// low-confidence replan, or the LLM's clarification questions, with the assumptions the run goes
// on with when nobody answers in time.
import { condition, log } from '@temporalio/workflow';
import type { ReplannerConfig } from '../../domain/config';
import {
  answerWaitMinutes,
  clarificationVerdict,
  confirmationVerdict,
  questionWaitMs,
  type PolicyOutcome,
  type Question,
  type ReplanDecision,
} from '../../domain/replan';
import { addNotes, completeReplan, continueOnAssumptions, markExecuted } from '../../domain/run/decisions';
import { planSummary } from '../../domain/run/plan';
import { allAnswered, askQuestions, timeOutQuestions, type NewQuestions } from '../../domain/run/questions';
import type { Phase } from '../../domain/types';
import {
  answerNotes,
  clarificationAnswers,
  confirmationQuestion,
  KEEP_PLAN_ASSUMPTION,
  unansweredMessage,
  unansweredNote,
  userAnsweredFeedback,
} from '../../llm/prompts/questions';
import type { ReplanningEntity } from './replanning-entity';

/** Asks the user and waits durably for all answers or the timeout; unanswered ones time out. */
export async function askUser(entity: ReplanningEntity, questions: Omit<NewQuestions, 'askedAt'>): Promise<Question[]> {
  let ids: string[] = [];
  entity.apply((st) => {
    const r = askQuestions(st, { ...questions, askedAt: new Date().toISOString() });
    ids = r.ids;
    return r.state;
  });
  // Answers arrive through the run's answerClarification handlers, which change the state.
  const answered = () => allAnswered(entity.state, ids);
  const waitMs = questionWaitMs(questions.timeoutMinutes);
  if (waitMs === undefined) await condition(answered);
  else await condition(answered, waitMs);
  entity.apply((st) => timeOutQuestions(st, ids));
  return entity.state.questions.filter((q) => ids.includes(q.id));
}

/**
 * Asks the LLM's clarification questions. Returns what the rerun phase is told about the
 * answers, or undefined when nobody answered and the run goes on with the assumptions (recorded).
 */
export async function clarify(
  entity: ReplanningEntity,
  c: { phase: Phase; replanId: string; outcome: Extract<PolicyOutcome, { action: 'clarify' }> },
): Promise<string | undefined> {
  const o = c.outcome;
  const questions = await askUser(entity, {
    kind: 'clarification',
    phase: c.phase,
    replanId: c.replanId,
    texts: o.questions,
    assumptions: o.assumptions,
    timeoutMinutes: o.autoAssume ? o.timeoutMinutes : null,
  });
  const { action, assumed } = clarificationVerdict(questions, o.assumptions);
  if (action === 'assume') {
    const message = unansweredMessage(o.timeoutMinutes, assumed);
    const ids = questions.map((q) => q.id);
    entity.apply((st) => continueOnAssumptions(st, unansweredNote(ids, assumed), assumed));
    entity.apply((st) =>
      completeReplan(st, c.replanId, { result: 'success', overrideReason: 'no_response_assumed', planAfter: planSummary(st, message) }),
    );
    log.info(message);
    return undefined;
  }
  const answers = clarificationAnswers(questions, assumed);
  entity.apply((st) => addNotes(st, answerNotes(answers)));
  return userAnsweredFeedback(answers);
}

/**
 * Asks the user to confirm a low-confidence replan. Returns the replan to run (its record now
 * executed, pending until its phase finishes), or undefined when it is skipped (recorded).
 */
export async function confirm(
  entity: ReplanningEntity,
  c: { phase: Phase; replanId: string; decision: ReplanDecision; outcome: Extract<PolicyOutcome, { action: 'confirm' }> },
  config: ReplannerConfig,
): Promise<Extract<PolicyOutcome, { action: 'replan' }> | undefined> {
  const [answer] = await askUser(entity, {
    kind: 'confirmation',
    phase: c.phase,
    replanId: c.replanId,
    texts: [confirmationQuestion(c.outcome.message)],
    assumptions: [KEEP_PLAN_ASSUMPTION],
    timeoutMinutes: answerWaitMinutes(config),
  });
  const verdict = confirmationVerdict(answer, { phase: c.phase, decision: c.decision, counters: entity.state.counters, config });
  if (verdict.action === 'skip') {
    entity.apply((st) => completeReplan(st, c.replanId, { result: 'skipped', executed: false, overrideReason: verdict.overrideReason }));
    return undefined;
  }
  entity.apply((st) => markExecuted(st, c.replanId));
  return verdict.outcome;
}
