// X7 / X14: which answers to the run's questions are accepted (the answerClarification validator).
import { answerProblem, parseYesNo, type Question } from '../../../src/domain/replan/questions';

const q = (id: string, patch: Partial<Question> = {}): Question => ({
  id,
  kind: 'clarification',
  phase: 'goal_understanding',
  replanId: 'replan-1',
  text: `question ${id}`,
  assumptions: [],
  timeoutMinutes: 30,
  askedAt: '2026-01-01T00:00:00.000Z',
  status: 'pending',
  ...patch,
});

describe('X14 answerProblem', () => {
  const qs = [q('q1'), q('q2', { status: 'answered', answer: 'CSV' }), q('q3', { status: 'timed_out' }), q('q4', { kind: 'confirmation' })];
  it.each([
    [{ questionId: 'q1', answer: 'CSV' }, undefined],
    [{ questionId: 'q4', answer: 'Yes.' }, undefined],
    [{ questionId: 'q4', answer: 'いいえ' }, undefined],
    [{ questionId: 'q9', answer: 'x' }, 'unknown question "q9" (pending: q1, q4)'],
    [{ questionId: 'q1', answer: '  ' }, 'the answer to q1 is empty'],
    [{ questionId: 'q1' }, 'the answer to q1 is empty'],
    [{ answer: 'x' }, 'questionId is required'],
    [null, 'questionId is required'],
    [{ questionId: 'q2', answer: 'TSV' }, 'question q2 is no longer pending: it was already answered: "CSV"'],
    [{ questionId: 'q3', answer: 'TSV' }, 'question q3 is no longer pending: nobody answered in time and the run went on with its assumptions'],
    [{ questionId: 'q4', answer: 'perhaps' }, 'question q4 asks for a confirmation: answer yes or no (got "perhaps")'],
    [{ questionId: 'q1', answer: 'x'.repeat(8001) }, 'the answer to q1 is longer than 8000 characters'],
  ])('%j → %s', (input, expected) => {
    expect(answerProblem(qs, input)).toBe(expected);
  });

  it('no question pending says so', () => {
    expect(answerProblem([], { questionId: 'q1', answer: 'x' })).toBe('unknown question "q1" (no question is pending)');
  });
});

describe('X7 parseYesNo', () => {
  it.each([
    ['yes', true],
    [' Y ', true],
    ['OK!', true],
    ['はい', true],
    ['no', false],
    ['Decline.', false],
    ['maybe', undefined],
    ['', undefined],
  ])('%j → %s', (a, expected) => expect(parseYesNo(a)).toBe(expected));
});
