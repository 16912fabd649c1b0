// What the run does with the user's answers to its questions: how long it waits, a confirmation's
// yes or no, and a clarification answered or left to the assumptions (X14). Pure.
import type { ReplannerConfig } from '../config';
import { evaluateReplanDecision, type PolicyInput, type PolicyOutcome } from './policy';
import { parseYesNo, type Question } from './questions';

/** What the run assumes when nobody answers and the LLM stated no assumption. */
export const DEFAULT_ASSUMPTION = 'the most common interpretation of the instruction';

/**
 * Minutes the run waits for a confirmation or an escalation answer before it goes on
 * without one (goal_understanding.auto_assume_timeout_minutes when auto_assume_on_no_response is
 * on); null: until the user answers.
 */
export function answerWaitMinutes(config: Pick<ReplannerConfig, 'replanning'>): number | null {
  const goalUnderstanding = config.replanning.goal_understanding;
  return goalUnderstanding.auto_assume_on_no_response ? goalUnderstanding.auto_assume_timeout_minutes : null;
}

/** How long the run waits for its questions (at least 1 ms); undefined: until they are answered. */
export function questionWaitMs(timeoutMinutes: number | null): number | undefined {
  return timeoutMinutes === null ? undefined : Math.max(1, Math.round(timeoutMinutes * 60_000));
}

export type ConfirmationVerdict =
  | { action: 'replan'; outcome: Extract<PolicyOutcome, { action: 'replan' }> }
  | {
      action: 'skip';
      /** For the decision's record: why the replan did not run. */
      overrideReason: string;
    };

/**
 * A low-confidence replan runs only on a "yes"; it then goes through the policy again, as
 * confirmed (the counters may have changed while the run waited), and a refusal there skips it.
 */
export function confirmationVerdict(answer: Question | undefined, policy: Omit<PolicyInput, 'userConfirmed'>): ConfirmationVerdict {
  const yes = answer?.status === 'answered' && parseYesNo(answer.answer ?? '') === true;
  if (!yes) return { action: 'skip', overrideReason: answer?.status === 'answered' ? 'user_declined' : 'no_confirmation' };
  const again = evaluateReplanDecision({ ...policy, userConfirmed: true });
  if (again.action !== 'replan') return { action: 'skip', overrideReason: `confirmed but ${again.action}` };
  return { action: 'replan', outcome: again };
}

/**
 * A clarification: with at least one answer the replan runs (unanswered questions fall back to the
 * assumptions); with none the run goes on with the assumptions (the LLM's, or the default).
 */
export function clarificationVerdict(
  questions: readonly Question[],
  assumptions: readonly string[],
): { action: 'replan' | 'assume'; assumed: string[] } {
  const assumed = assumptions.length ? [...assumptions] : [DEFAULT_ASSUMPTION];
  return { action: questions.some((q) => q.status === 'answered') ? 'replan' : 'assume', assumed };
}
