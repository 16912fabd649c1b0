// The words around the run's questions to the user: the confirmation it asks, and
// the notes and feedback its answers (or their absence) become. The notes go into later
// replan-decision prompts ("The User Said"); the feedback goes to the phase a replan reruns.
import type { Question } from '../../domain/replan/questions';

/** The assumption a confirmation question states: no answer keeps the plan. */
export const KEEP_PLAN_ASSUMPTION = 'the current plan is kept';

/** The question a low-confidence replan asks. */
export function confirmationQuestion(proposal: string): string {
  return `${proposal} (answer yes or no)`;
}

/** A clarification: the question and its answer, or the assumptions it falls back to. */
export function clarificationAnswers(questions: readonly Question[], assumed: readonly string[]): string[] {
  return questions.map((q) =>
    q.status === 'answered' ? `Q: ${q.text}\nA: ${q.answer}` : `Q: ${q.text}\nA: (no answer; assume ${assumed.join('; ')})`,
  );
}

/** The answers as notes for later prompts, one line each. */
export function answerNotes(answers: readonly string[]): string[] {
  return answers.map((x) => x.replace('\n', ' '));
}

/** What the phase a clarification reruns is told. */
export function userAnsweredFeedback(answers: readonly string[]): string {
  return `THE USER ANSWERED:\n${answers.join('\n')}`;
}

/** Nobody answered the clarification: the note for later prompts… */
export function unansweredNote(questionIds: readonly string[], assumed: readonly string[]): string {
  return `Assumed (no answer to ${questionIds.join(', ')}): ${assumed.join('; ')}`;
}

/** …and the message for the decision's record and the log. */
export function unansweredMessage(timeoutMinutes: number, assumed: readonly string[]): string {
  return `No answer within ${timeoutMinutes} min; continuing on these assumptions: ${assumed.join('; ')}`;
}

/** What the user said when a wanted replan could not run. */
export function escalationAnswerNote(answer: string | undefined): string {
  return `User instruction after a replan could not run: ${answer}`;
}

/** Nobody answered the escalation: the run goes on with these assumptions. */
export function escalationAssumedNote(assumed: readonly string[]): string {
  return `Assumed (no answer): ${assumed.join('; ')}`;
}
