// Questions the run asks the user, and what makes an answer acceptable. Pure: the
// Update validator of answerClarification calls answerProblem synchronously.
import type { Phase } from '../types';

/**
 * clarification: the LLM asks · confirmation: a low-confidence replan waits for yes/no ·
 * escalation: a wanted replan cannot run; the user says how to go on ·
 * budget: the run's budget is used up; raise it or stop (checked by budgetAnswerProblem).
 */
export type QuestionKind = 'clarification' | 'confirmation' | 'escalation' | 'budget';
/** closed: the run ended while it was still open (cancelled, failed, terminated, …): nobody can answer it now. */
export type QuestionStatus = 'pending' | 'answered' | 'timed_out' | 'closed';

export interface Question {
  /** `q1`, `q2`, … unique within the run (carried across continue-as-new). */
  id: string;
  kind: QuestionKind;
  phase: Phase;
  /** The decision-log record that asked it. */
  replanId: string;
  text: string;
  /** What the run goes on with when nobody answers. */
  assumptions: string[];
  /** Minutes until the run goes on without an answer; null: it waits until answered. */
  timeoutMinutes: number | null;
  /** Workflow time, ISO. */
  askedAt: string;
  status: QuestionStatus;
  answer?: string;
  answeredAt?: string;
  /** Who answered, where it is known (e.g. "@alice on GitHub"); absent: the CLI, the Web UI or the API. */
  answeredBy?: string;
  /** Why a closed question can no longer be answered ("the run was cancelled"). */
  closedWhy?: string;
}

export interface QuestionAnswer {
  questionId: string;
  /** Free text; for a confirmation: yes or no. */
  answer: string;
}

export const MAX_ANSWER_CHARS = 8000;

const YES = new Set(['y', 'yes', 'ok', 'okay', 'confirm', 'confirmed', 'approve', 'true', 'はい', 'ok!']);
const NO = new Set(['n', 'no', 'decline', 'declined', 'reject', 'false', 'いいえ', 'cancel']);

/** A confirmation answer: yes → true, no → false, anything else → undefined. */
export function parseYesNo(answer: string): boolean | undefined {
  const a = answer
    .trim()
    .toLowerCase()
    .replace(/[.!。]+$/u, '');
  if (YES.has(a)) return true;
  if (NO.has(a)) return false;
  return undefined;
}

/** Why an answer cannot be accepted, or undefined when it can. */
export function answerProblem(questions: readonly Question[], input: unknown): string | undefined {
  const a = input as Partial<QuestionAnswer> | null | undefined;
  if (!a || typeof a.questionId !== 'string' || a.questionId.trim() === '') return 'questionId is required';
  const pending = questions.filter((q) => q.status === 'pending').map((q) => q.id);
  const q = questions.find((x) => x.id === a.questionId);
  if (!q) {
    return `unknown question "${a.questionId}" (${pending.length ? `pending: ${pending.join(', ')}` : 'no question is pending'})`;
  }
  if (q.status !== 'pending') {
    const why =
      q.status === 'answered'
        ? `it was already answered: "${q.answer ?? ''}"`
        : q.status === 'closed'
          ? `closed: ${q.closedWhy ?? 'the run ended'}`
          : 'nobody answered in time and the run went on with its assumptions';
    return `question ${q.id} is no longer pending: ${why}`;
  }
  if (typeof a.answer !== 'string' || a.answer.trim() === '') return `the answer to ${q.id} is empty`;
  if (a.answer.length > MAX_ANSWER_CHARS) return `the answer to ${q.id} is longer than ${MAX_ANSWER_CHARS} characters`;
  if (q.kind === 'confirmation' && parseYesNo(a.answer) === undefined) {
    return `question ${q.id} asks for a confirmation: answer yes or no (got "${a.answer.trim().slice(0, 40)}")`;
  }
  return undefined;
}
