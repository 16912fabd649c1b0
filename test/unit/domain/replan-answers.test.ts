// X7 / X8 / X14: what the run does with the user's answers (src/domain/replan/answers.ts), and X13:
// an unparseable reply is "no replan" (decisionOutcome).
import { DEFAULT_CONFIG, parseConfig } from '../../../src/domain/config';
import { answerWaitMinutes, clarificationVerdict, confirmationVerdict, DEFAULT_ASSUMPTION, questionWaitMs } from '../../../src/domain/replan/answers';
import { emptyCounters, recordReplan } from '../../../src/domain/replan/limits';
import { decisionOutcome } from '../../../src/domain/replan/policy';
import type { Question, QuestionStatus } from '../../../src/domain/replan/questions';
import { wantedReplan } from '../../support/decisions';

const question = (status: QuestionStatus, answer?: string, id = 'q1'): Question => ({
  id,
  kind: 'confirmation',
  phase: 'execution',
  replanId: 'replan-1',
  text: 'go?',
  assumptions: [],
  timeoutMinutes: null,
  askedAt: '2026-01-01T00:00:00.000Z',
  status,
  ...(answer === undefined ? {} : { answer }),
});

/** A partial replan after execution, confidence 0.4: below min_confidence_threshold, so it asks. */
const lowConfidence = wantedReplan('partial_replan', 0.4, 'the build needs another approach', ['the build fails']);

describe('X7 / X14 how long the run waits for an answer', () => {
  it.each([
    [null, undefined],
    [30, 1_800_000],
    [0.5, 30_000],
    [0, 1],
    [0.000001, 1],
  ])('X14 a timeout of %p minutes waits %p ms', (minutes, ms) => {
    expect(questionWaitMs(minutes)).toBe(ms);
  });

  it.each([
    [{}, 30],
    [{ auto_assume_timeout_minutes: 5 }, 5],
    [{ auto_assume_on_no_response: false }, null],
  ])('X7 X8 goal_understanding %j: a confirmation or an escalation waits %p minutes', (goalUnderstanding, minutes) => {
    expect(answerWaitMinutes(parseConfig({ replanning: { goal_understanding: goalUnderstanding } }))).toBe(minutes);
  });
});

describe('X7 a low-confidence replan runs only on a yes', () => {
  const policy = { phase: 'execution' as const, decision: lowConfidence, counters: emptyCounters(), config: DEFAULT_CONFIG };

  it.each([
    ['no answer', 'no_confirmation', undefined],
    ['timed out', 'no_confirmation', question('timed_out')],
    ['"no"', 'user_declined', question('answered', 'no')],
    ['an unreadable answer', 'user_declined', question('answered', 'perhaps')],
  ])('X7 %s skips the replan (%s)', (_, overrideReason, answer) => {
    expect(confirmationVerdict(answer, policy)).toEqual({ action: 'skip', overrideReason });
  });

  it('X7 "yes" runs it, as confirmed by the user', () => {
    const verdict = confirmationVerdict(question('answered', 'yes'), policy);
    expect(verdict).toMatchObject({ action: 'replan', outcome: { action: 'replan', band: 'user_confirmed', type: 'partial_replan' } });
  });

  it('X7 X5 "yes" to a replan whose limit was reached while the run waited skips it, saying why', () => {
    const full = recordReplan(recordReplan(emptyCounters(), 'partial_replan', 'a'), 'partial_replan', 'b');
    expect(confirmationVerdict(question('answered', 'yes'), { ...policy, counters: full })).toEqual({
      action: 'skip',
      overrideReason: 'confirmed but override',
    });
  });
});

describe('X14 a clarification answered or left to the assumptions', () => {
  it.each([
    ['one of two answered', 'replan', [question('answered', 'PostgreSQL'), question('timed_out', undefined, 'q2')], ['SQLite'], ['SQLite']],
    ['none answered', 'assume', [question('timed_out'), question('timed_out', undefined, 'q2')], ['SQLite'], ['SQLite']],
    ['none answered, no assumption stated', 'assume', [question('timed_out')], [], [DEFAULT_ASSUMPTION]],
    ['answered, no assumption stated', 'replan', [question('answered', 'yes')], [], [DEFAULT_ASSUMPTION]],
  ])('X14 %s → %s', (_, action, questions, assumptions, assumed) => {
    expect(clarificationVerdict(questions, assumptions)).toEqual({ action, assumed });
  });
});

describe('X13 an unparseable reply', () => {
  it('X13 is "no replan" with the reason, whatever the decision says', () => {
    const input = {
      phase: 'execution' as const,
      decision: { ...lowConfidence, confidence: 0.95 },
      counters: emptyCounters(),
      config: DEFAULT_CONFIG,
    };
    expect(decisionOutcome({ ...input, parseError: 'the reply is not JSON' })).toEqual({
      action: 'none',
      reason: 'unparseable reply: the reply is not JSON',
    });
    expect(decisionOutcome(input)).toMatchObject({ action: 'replan', band: 'immediate' });
  });
});
