// V4: one truth for a run's state: Temporal's status of the execution first (src/domain/run/closed.ts).
import {
  closedWhy,
  closeOpenQuestions,
  isClosedExecution,
  isFinalStatus,
  shownStatus,
  withOpenQuestionsClosed,
} from '../../../src/domain/run/closed';
import { cancelRun, failRun } from '../../../src/domain/run/phases';
import { answerProblem, type Question } from '../../../src/domain/replan/questions';
import { initialRunState } from '../../../src/domain/run/state';

const question = (id: string, status: Question['status']): Question => ({
  id,
  kind: 'clarification',
  phase: 'goal_understanding',
  replanId: 'replan-1',
  text: `question ${id}?`,
  assumptions: [],
  timeoutMinutes: 30,
  askedAt: '2026-01-01T00:00:00.000Z',
  status,
});

describe('V4 is this run closed, and what does it show', () => {
  it('V4 closed executions: completed, failed, cancelled, terminated, timed out; continued-as-new and running are not', () => {
    for (const s of ['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT']) expect([s, isClosedExecution(s)]).toEqual([s, true]);
    for (const s of ['RUNNING', 'CONTINUED_AS_NEW']) expect([s, isClosedExecution(s)]).toEqual([s, false]);
    expect(isFinalStatus('WAITING')).toBe(false);
    expect(isFinalStatus('STOPPED')).toBe(true);
  });

  it('V4 a terminated run that waited shows TERMINATED, never WAITING (its search attribute and memo still say WAITING)', () => {
    expect(shownStatus({ execution: 'TERMINATED', searchStatus: 'WAITING', recordedStatus: 'WAITING' })).toBe('TERMINATED');
    expect(shownStatus({ execution: 'TIMED_OUT', searchStatus: 'RUNNING' })).toBe('TIMED_OUT');
  });

  it('V4 a closed run shows the final status it recorded, else what Temporal’s status means; never RUNNING, WAITING or PAUSED', () => {
    expect(shownStatus({ execution: 'FAILED', searchStatus: 'BLOCKED', recordedStatus: 'BLOCKED' })).toBe('BLOCKED');
    expect(shownStatus({ execution: 'FAILED', searchStatus: 'STOPPED' })).toBe('STOPPED');
    expect(shownStatus({ execution: 'CANCELLED', searchStatus: 'PAUSED', recordedStatus: 'PAUSED' })).toBe('CANCELLED');
    expect(shownStatus({ execution: 'COMPLETED', searchStatus: 'RUNNING' })).toBe('DONE');
    expect(shownStatus({ execution: 'FAILED', searchStatus: 'WAITING' })).toBe('FAILED');
  });

  it('V4 an open run shows what it says of itself (RUNNING before it said anything)', () => {
    expect(shownStatus({ execution: 'RUNNING', searchStatus: 'WAITING' })).toBe('WAITING');
    expect(shownStatus({ execution: 'RUNNING' })).toBe('RUNNING');
  });
});

describe('V4 the questions a run left open when it ended', () => {
  it('V4 each open question is closed, with why; answered and timed-out ones stay as they are', () => {
    const qs = [question('q1', 'answered'), question('q2', 'pending'), question('q3', 'timed_out')];
    expect(closeOpenQuestions(qs, closedWhy('CANCELLED')).map((q) => [q.id, q.status, q.closedWhy])).toEqual([
      ['q1', 'answered', undefined],
      ['q2', 'closed', 'the run was cancelled'],
      ['q3', 'timed_out', undefined],
    ]);
    expect(['TERMINATED', 'TIMED_OUT', 'FAILED', 'STOPPED', 'DONE'].map(closedWhy)).toEqual([
      'the run was terminated',
      'the run timed out',
      'the run failed',
      'the run was stopped',
      'the run ended DONE',
    ]);
  });

  it('V4 a view closes its open questions only once the run’s status is final', () => {
    const view = { status: 'WAITING', questions: [question('q1', 'pending')] };
    expect(withOpenQuestionsClosed(view, 'WAITING')).toBe(view);
    expect(withOpenQuestionsClosed(view, 'CANCELLED').questions?.[0]).toMatchObject({ status: 'closed', closedWhy: 'the run was cancelled' });
  });

  it('V4 a run cancelled or failed closes its open questions in its own state; a later answer is refused with why', () => {
    const s = { ...initialRunState({ runId: 'r', instruction: 'x', workspace: '/w' }), questions: [question('q1', 'pending')] };
    const cancelled = cancelRun(s);
    expect(cancelled.questions[0]).toMatchObject({ status: 'closed', closedWhy: 'the run was cancelled' });
    expect(failRun(s, 'boom').questions[0]).toMatchObject({ status: 'closed', closedWhy: 'the run failed' });
    expect(answerProblem(cancelled.questions, { questionId: 'q1', answer: 'JSON' })).toBe(
      'question q1 is no longer pending: closed: the run was cancelled',
    );
  });
});
