import { JudgeResultSchema, judgeOutcome, type JudgeOutcome } from '../../../src/domain/replan/judge-outcome';

describe('J1 judge result schema', () => {
  it('J1 a full judge reply parses', () => {
    const r = JudgeResultSchema.parse({
      success: false,
      shouldContinue: false,
      shouldReplan: true,
      reason: 'scope too large',
      missingRequirements: ['tests'],
      confidence: 0.4,
    });
    expect(r).toMatchObject({ success: false, shouldReplan: true, missingRequirements: ['tests'], confidence: 0.4 });
  });

  it('J1 missing flags default to false and a missing list to []', () => {
    expect(JudgeResultSchema.parse({ success: true, reason: 'ok', confidence: null })).toMatchObject({
      shouldContinue: false,
      shouldReplan: false,
      missingRequirements: [],
    });
  });

  it.each<[string, unknown]>([
    ['success missing', { reason: 'x' }],
    ['success as a string', { success: 'true' }],
    ['shouldReplan as a number', { success: false, shouldReplan: 1, confidence: null }],
    ['P2 confidence missing', { success: true }],
    ['P2 confidence above 1', { success: true, confidence: 1.5 }],
    ['P2 confidence as text', { success: true, confidence: 'high' }],
  ])('J1 %s is rejected', (_n, v) => {
    expect(JudgeResultSchema.safeParse(v).success).toBe(false);
  });
});

describe('J2 judge outcome', () => {
  it.each<[boolean, boolean, boolean, JudgeOutcome]>([
    [true, false, false, 'DONE'],
    [true, true, true, 'DONE'],
    [false, true, false, 'NEEDS_CONTINUATION'],
    [false, false, true, 'REPLAN'],
    [false, true, true, 'NEEDS_CONTINUATION'],
    [false, false, false, 'BLOCKED'],
  ])('J2 success=%p continue=%p replan=%p → %s', (success, shouldContinue, shouldReplan, outcome) => {
    expect(judgeOutcome({ success, shouldContinue, shouldReplan })).toBe(outcome);
  });
});
