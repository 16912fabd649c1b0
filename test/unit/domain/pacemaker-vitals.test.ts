import { NEUTRAL_MOOD, VITALS_WINDOW, detectProgress, measureVitals, repetitionRatio, type VitalsSignals } from '../../../src/domain/pacemaker';

const fresh: VitalsSignals = { judgeConfidences: [], recentActions: [], recentErrors: [], attemptsUsed: 0, maxAttempts: 10 };

describe('measureVitals (P2: vitals from real signals)', () => {
  it('P2 fresh task: neutral mood 0.7, full focus, full stamina', () => {
    expect(measureVitals(fresh)).toEqual({ mood: NEUTRAL_MOOD, focus: 1, stamina: 1 });
    expect(NEUTRAL_MOOD).toBe(0.7);
  });

  it('P2 mood = mean of judge and decision confidences', () => {
    expect(measureVitals({ ...fresh, judgeConfidences: [0.9, 0.5] }).mood).toBeCloseTo(0.7, 12);
    expect(measureVitals({ ...fresh, judgeConfidences: [0.9], decisionConfidences: [0.3] }).mood).toBeCloseTo(0.6, 12);
    expect(measureVitals({ ...fresh, judgeConfidences: [], decisionConfidences: [0.2] }).mood).toBeCloseTo(0.2, 12);
  });

  it('P2 mood ignores non-finite confidences and clamps to 0..1', () => {
    expect(measureVitals({ ...fresh, judgeConfidences: [Number.NaN, 1.5, -1] }).mood).toBeCloseTo(0.5, 12);
    expect(measureVitals({ ...fresh, judgeConfidences: [Number.NaN] }).mood).toBe(NEUTRAL_MOOD);
  });

  it('P2 focus = 1 − repetition ratio of identical actions', () => {
    expect(measureVitals({ ...fresh, recentActions: ['read a', 'edit a', 'test'] }).focus).toBe(1);
    expect(measureVitals({ ...fresh, recentActions: ['read a', 'read a', 'read a', 'edit b'] }).focus).toBeCloseTo(0.5, 12);
  });

  it('P2 focus also drops on repeated identical errors (the worse of the two counts)', () => {
    const v = measureVitals({ ...fresh, recentActions: ['a', 'b', 'c', 'd'], recentErrors: ['TS2304 x', 'TS2304 x', 'TS2304 x'] });
    expect(v.focus).toBeCloseTo(1 / 3, 12);
  });

  it('P2 focus looks only at the recent window', () => {
    const old = ['same', 'same', 'same', 'same'];
    const recent = Array.from({ length: VITALS_WINDOW }, (_, i) => `step ${i}`);
    expect(measureVitals({ ...fresh, recentActions: [...old, ...recent] }).focus).toBe(1);
  });

  it('P2 stamina = 1 − attemptsUsed/maxAttempts, clamped', () => {
    expect(measureVitals({ ...fresh, attemptsUsed: 3, maxAttempts: 10 }).stamina).toBeCloseTo(0.7, 12);
    expect(measureVitals({ ...fresh, attemptsUsed: 10, maxAttempts: 10 }).stamina).toBe(0);
    expect(measureVitals({ ...fresh, attemptsUsed: 14, maxAttempts: 10 }).stamina).toBe(0);
    expect(measureVitals({ ...fresh, attemptsUsed: 0, maxAttempts: 0 }).stamina).toBe(1);
    expect(measureVitals({ ...fresh, attemptsUsed: 2, maxAttempts: 0 }).stamina).toBe(0);
  });

  it('P2 repetitionRatio counts entries that repeat an earlier one', () => {
    expect(repetitionRatio([])).toBe(0);
    expect(repetitionRatio(['a'])).toBe(0);
    expect(repetitionRatio(['a', 'a'])).toBe(0.5);
    expect(repetitionRatio(['a', 'b', 'a', 'b'])).toBe(0.5);
  });
});

describe('detectProgress (P7 no_progress)', () => {
  it('P7 the same missing requirements twice (in any order) or the same tool calls twice is no progress', () => {
    const first = detectProgress({}, ['b', 'a'], ['write_file(x)']);
    expect(first.progressed).toBe(true);
    expect(detectProgress(first.marks, ['a', 'b'], ['read_file(y)']).progressed).toBe(false);
    expect(detectProgress(first.marks, ['c'], ['write_file(x)']).progressed).toBe(false);
    expect(detectProgress(first.marks, ['c'], ['read_file(y)']).progressed).toBe(true);
  });

  it('P7 nothing missing and no tool calls never count as a repeat', () => {
    const empty = detectProgress({}, [], []);
    expect(detectProgress(empty.marks, [], []).progressed).toBe(true);
  });
});
