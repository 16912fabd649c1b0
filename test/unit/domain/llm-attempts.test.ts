import * as attempts from '../../../src/domain/llm-attempts';

const { activityMaximumAttempts, afterOwnFailure, LOST_WORKER_ATTEMPTS, OWN_FAILURES_KEY, ownAttemptsOf, ownFailuresIn, withOwnFailures } = attempts;

describe('O7 a lost worker does not use up a call’s own attempts', () => {
  it('O7 the retry policy allows the own attempts plus the lost workers’ ones, and the activity reads its own back', () => {
    expect(activityMaximumAttempts(4)).toBe(4 + LOST_WORKER_ATTEMPTS);
    expect(ownAttemptsOf(activityMaximumAttempts(4))).toBe(4);
    expect(ownAttemptsOf(activityMaximumAttempts(1))).toBe(1);
  });

  it.each([undefined, 0, 4, LOST_WORKER_ATTEMPTS, 2.5, NaN])('O7 a policy not made so (%p) counts nothing: Temporal’s limit alone', (max) => {
    expect(ownAttemptsOf(max)).toBeUndefined();
  });

  it.each([
    [undefined, 0],
    [null, 0],
    ['3', 0],
    [{ step: 2 }, 0],
    [{ [OWN_FAILURES_KEY]: 2, llm: {} }, 2],
    [{ [OWN_FAILURES_KEY]: -1 }, 0],
    [{ [OWN_FAILURES_KEY]: 1.5 }, 0],
    [{ [OWN_FAILURES_KEY]: '2' }, 0],
  ])('O7 the count earlier attempts left in %p is %p', (details, n) => {
    expect(ownFailuresIn(details)).toBe(n);
  });

  it('O7 beats carry the count beside their own details, and nothing extra while it is 0', () => {
    expect(withOwnFailures(undefined, 0)).toBeUndefined();
    expect(withOwnFailures({ step: 1 }, 0)).toEqual({ step: 1 });
    expect(withOwnFailures(undefined, 2)).toEqual({ [OWN_FAILURES_KEY]: 2 });
    expect(withOwnFailures({ llm: { phase: 'writing' } }, 1)).toEqual({ llm: { phase: 'writing' }, [OWN_FAILURES_KEY]: 1 });
    expect(ownFailuresIn(withOwnFailures({ step: 3 }, 3))).toBe(3);
  });

  it('O7 the failure that uses up the own attempts is the last; without a known number none is', () => {
    expect(afterOwnFailure(0, 3)).toEqual({ failures: 1, last: false });
    expect(afterOwnFailure(1, 3)).toEqual({ failures: 2, last: false });
    expect(afterOwnFailure(2, 3)).toEqual({ failures: 3, last: true });
    expect(afterOwnFailure(0, 1)).toEqual({ failures: 1, last: true });
    expect(afterOwnFailure(7, undefined)).toEqual({ failures: 8, last: false });
  });
});
