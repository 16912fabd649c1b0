// P1 / P7: how a consultation ends (answer or timeout), which effects end the task, and the limit
// floor a consultation leaves for later recomputations.
import {
  DEFAULT_PACEMAKER_CONFIG,
  NEUTRAL_VITALS,
  consultationEnd,
  endConsultation,
  initialPacemakerState,
  limitAboveFloor,
  limitFloorAfter,
  validateConsultationAnswer,
  type ConsultationOutcome,
} from '../../../src/domain/pacemaker';

const atLimit = { ...initialPacemakerState(3, NEUTRAL_VITALS), iteration: 3 };

describe('endConsultation (P7: the answer if one came, else the timeout)', () => {
  it('P7 an answer applies its effect', () => {
    const v = validateConsultationAnswer({ id: 't-c1', kind: 'too_many_attempts' }, { choice: 'accept' });
    if (!v.ok) throw new Error(v.error);
    const r = endConsultation(atLimit, 'too_many_attempts', v.answer, DEFAULT_PACEMAKER_CONFIG);
    expect(r.outcome.effect).toBe('accept');
    expect(r.state.interventions.at(-1)?.timedOut).toBeUndefined();
  });

  it.each([
    ['stop', 'stop'],
    ['raise_limit', 'continue_raised'],
    ['continue', 'stop'],
  ] as const)('P7 no answer with on_consultation_timeout %s at the limit → %s', (mode, effect) => {
    const r = endConsultation(atLimit, 'too_many_attempts', undefined, { ...DEFAULT_PACEMAKER_CONFIG, on_consultation_timeout: mode });
    expect(r.outcome.effect).toBe(effect);
    expect(r.state.interventions.at(-1)?.timedOut).toBe(true);
  });
});

describe('consultationEnd (P7: which effects end the task)', () => {
  it.each<[ConsultationOutcome, boolean, ReturnType<typeof consultationEnd>]>([
    [{ effect: 'stop', reason: 'user chose to stop' }, true, { state: 'BLOCKED', reason: 'stopped by the user (user chose to stop)' }],
    [{ effect: 'stop', reason: 'no answer within 30 min' }, false, { state: 'BLOCKED', reason: 'no answer within 30 min' }],
    [{ effect: 'accept', reason: 'accepted' }, true, { state: 'DONE', reason: 'accepted' }],
    [{ effect: 'redecompose', reason: 'smaller' }, true, { state: 'REPLAN', reason: 'smaller' }],
    [{ effect: 'simplify', reason: 'simpler' }, true, { state: 'REPLAN', reason: 'simpler' }],
    [{ effect: 'guidance', guidance: 'look at x', maxLoops: 5 }, true, undefined],
    [{ effect: 'continue_raised', maxLoops: 8, raisedBy: 3 }, false, undefined],
    [{ effect: 'continue', maxLoops: 5 }, false, undefined],
  ])('P7 %j (answered %s) → %j', (outcome, answered, end) => {
    expect(consultationEnd(outcome, answered)).toEqual(end);
  });
});

describe('limitFloorAfter and limitAboveFloor (P1/P7: a consulted limit is not recomputed away)', () => {
  it.each<[number, ConsultationOutcome, number]>([
    [0, { effect: 'continue_raised', maxLoops: 8, raisedBy: 3 }, 8],
    [9, { effect: 'continue_raised', maxLoops: 8, raisedBy: 3 }, 9],
    [0, { effect: 'guidance', guidance: 'g', maxLoops: 5 }, 5],
    [4, { effect: 'stop', reason: 'r' }, 4],
    [4, { effect: 'redecompose', reason: 'r' }, 4],
  ])('P7 floor %d after %j → %d', (floor, outcome, next) => {
    expect(limitFloorAfter(floor, outcome)).toBe(next);
  });

  it.each([
    [5, 0, 5],
    [5, 8, 8],
    [9, 8, 9],
  ])('P1 recomputed %d with floor %d → %d', (computed, floor, limit) => {
    expect(limitAboveFloor(computed, floor)).toBe(limit);
  });
});
