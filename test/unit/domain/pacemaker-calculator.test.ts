import { TASK_PROFILES } from '../../../src/domain/types';
import {
  BASE_LOOPS,
  DEFAULT_PACEMAKER_CONFIG,
  PacemakerConfigSchema,
  calculateMaxLoops,
  clampLoops,
  complexityFactor,
  computeComplexity,
  vitalsFactor,
  vitalsScore,
  type ComplexityInput,
  type Vitals,
} from '../../../src/domain/pacemaker';

const config = DEFAULT_PACEMAKER_CONFIG;
const flat = (v: number): Vitals => ({ mood: v, focus: v, stamina: v });
const simple: ComplexityInput = { files: 0, historyTurns: 0, toolRuns: 0, toolErrors: 0 };
const maxComplex: ComplexityInput = { files: 8, historyTurns: 15, toolRuns: 3, toolErrors: 1 };
/** calculateMaxLoops for `profile` with every vital at `level`, the default config. */
const loopsFor = (profile: string, level: number, complexity: ComplexityInput) =>
  calculateMaxLoops({ profile, vitals: flat(level), complexity, config });

describe('calculateMaxLoops (P1 clamp)', () => {
  it('P1 max_loops = floor(base × vitalsFactor × complexityFactor)', () => {
    // CODE_ANALYSIS 12 × 1.0 × (1 + 0.4·0.5) = 14.4 → 14
    const r = loopsFor('CODE_ANALYSIS', 0.6, { files: 4, historyTurns: 15, toolRuns: 0, toolErrors: 0 });
    expect(r.complexity).toBeCloseTo(0.5, 10);
    expect(r.max_loops).toBe(14);
  });

  it('P1 clamps to the minimum 3', () => {
    // SIMPLE_QUESTION 5 × 0.7 × 1.0 = 3.5 → 3, the lowest the table can give
    expect(loopsFor('SIMPLE_QUESTION', 0.1, simple).max_loops).toBe(3);
    expect(clampLoops(2)).toBe(3);
    expect(clampLoops(0)).toBe(3);
    expect(clampLoops(3)).toBe(3);
  });

  it('P1 clamps to the maximum 20', () => {
    // COMPLEX_REASONING 18 × 1.2 × 1.4 = 30.24 → 20
    const r = loopsFor('COMPLEX_REASONING', 0.9, maxComplex);
    expect(r.max_loops).toBe(20);
    expect(r.reasoning).toMatch(/clamped to 20/);
    expect(clampLoops(20)).toBe(20);
    expect(clampLoops(21)).toBe(20);
  });

  it('P1 an exact product gives its integer (10 × 1.2 × 1.25 = 15)', () => {
    // CREATIVE_WRITING 10, vitals factor 1.2, complexity (7/8 + 1 + 0)/3 = 0.625 → factor 1.25
    const r = loopsFor('CREATIVE_WRITING', 0.9, { files: 7, historyTurns: 15, toolRuns: 0, toolErrors: 0 });
    expect(r.complexity_factor).toBeCloseTo(1.25, 12);
    expect(r.max_loops).toBe(15);
  });
});

describe('vitals factor (P2)', () => {
  it.each([
    ['P2 score just below 0.4 → 0.7', 0.39, 0.7],
    ['P2 score exactly 0.4 → 1.0', 0.4, 1.0],
    ['P2 score 0.6 → 1.0', 0.6, 1.0],
    ['P2 score exactly 0.8 → 1.0', 0.8, 1.0],
    ['P2 score just above 0.8 → 1.2', 0.81, 1.2],
  ] as const)('%s', (_n, score, factor) => {
    expect(vitalsFactor(score)).toBe(factor);
  });

  it('P2 vitals score = 0.4·mood + 0.4·focus + 0.2·stamina', () => {
    expect(vitalsScore({ mood: 1, focus: 0, stamina: 0 })).toBeCloseTo(0.4, 12);
    expect(vitalsScore({ mood: 0, focus: 1, stamina: 0 })).toBeCloseTo(0.4, 12);
    expect(vitalsScore({ mood: 0, focus: 0, stamina: 1 })).toBeCloseTo(0.2, 12);
    expect(vitalsScore({ mood: 0.75, focus: 0.8, stamina: 0.65 })).toBeCloseTo(0.75, 12);
  });

  it.each([
    // FILE_OPERATION 8, complexity 0 → 8 × factor
    ['P2 vitals all 0.39 (score < 0.4) → factor 0.7 → 5 loops', 0.39, 0.7, 5],
    ['P2 vitals all 0.4 (score exactly 0.4) → factor 1.0 → 8 loops', 0.4, 1.0, 8],
    ['P2 vitals all 0.8 (score exactly 0.8, despite floating point) → factor 1.0 → 8 loops', 0.8, 1.0, 8],
    ['P2 vitals all 0.81 (score > 0.8) → factor 1.2 → 9 loops', 0.81, 1.2, 9],
  ] as const)('%s', (_n, v, factor, loops) => {
    const r = loopsFor('FILE_OPERATION', v, simple);
    expect(r.vitals_factor).toBe(factor);
    expect(r.max_loops).toBe(loops);
  });

  it('P2 no vitals measured → neutral factor 1.0', () => {
    const r = calculateMaxLoops({ profile: 'FILE_OPERATION', complexity: simple, config });
    expect(r.vitals_factor).toBe(1);
    expect(r.max_loops).toBe(8);
  });
});

describe('complexity (P3)', () => {
  it.each([
    ['P3 files 8 saturate the file term', { files: 8, historyTurns: 0, toolRuns: 0, toolErrors: 0 }, 1 / 3],
    ['P3 files 16 are capped at 1', { files: 16, historyTurns: 0, toolRuns: 0, toolErrors: 0 }, 1 / 3],
    ['P3 files 4 give half the file term', { files: 4, historyTurns: 0, toolRuns: 0, toolErrors: 0 }, 0.5 / 3],
    ['P3 history 15 turns saturate the history term', { files: 0, historyTurns: 15, toolRuns: 0, toolErrors: 0 }, 1 / 3],
    ['P3 history 30 turns are capped at 1', { files: 0, historyTurns: 30, toolRuns: 0, toolErrors: 0 }, 1 / 3],
    ['P3 error rate 1/3 saturates the error term', { files: 0, historyTurns: 0, toolRuns: 3, toolErrors: 1 }, 1 / 3],
    ['P3 error rate 1/6 gives half the error term', { files: 0, historyTurns: 0, toolRuns: 6, toolErrors: 1 }, 0.5 / 3],
    ['P3 error rate 1 is capped at 1', { files: 0, historyTurns: 0, toolRuns: 2, toolErrors: 2 }, 1 / 3],
    ['P3 no tool runs → error term 0', { files: 0, historyTurns: 0, toolRuns: 0, toolErrors: 5 }, 0],
    ['P3 all saturated → 1', maxComplex, 1],
  ] as const)('%s', (_n, input, expected) => {
    expect(computeComplexity(input)).toBeCloseTo(expected, 12);
  });

  it('P3 complexityFactor = 1 + 0.4·complexity (1.0 … 1.4)', () => {
    expect(complexityFactor(0)).toBe(1);
    expect(complexityFactor(1)).toBeCloseTo(1.4, 12);
    expect(loopsFor('MULTI_STEP_TASK', 0.6, maxComplex).complexity_factor).toBeCloseTo(1.4, 12);
  });

  it('P3 no complexity measured → seed default 0.3 (factor 1.12)', () => {
    const r = calculateMaxLoops({ profile: 'CREATIVE_WRITING', vitals: flat(0.6), config });
    expect(r.complexity).toBe(0.3);
    expect(r.complexity_factor).toBeCloseTo(1.12, 12);
    expect(r.max_loops).toBe(11);
  });
});

describe('base loops (P4)', () => {
  const expected: Record<string, number> = {
    SIMPLE_QUESTION: 5,
    CODE_ANALYSIS: 12,
    FILE_OPERATION: 8,
    COMPLEX_REASONING: 18,
    MULTI_STEP_TASK: 15,
    GENERAL_CHAT: 6,
    CREATIVE_WRITING: 10,
    DEBUGGING: 14,
    RESEARCH: 16,
    UNKNOWN: 8,
  };

  it.each(Object.entries(expected))('P4 %s has base %i', (profile, base) => {
    const r = loopsFor(profile, 0.6, simple);
    expect(r.base_loops).toBe(base);
    expect(r.max_loops).toBe(base);
    expect(r.profile).toBe(profile);
  });

  it('P4 the table covers every TaskProfile', () => {
    expect(Object.keys(BASE_LOOPS).sort()).toEqual([...TASK_PROFILES].sort());
  });

  it('P4 an unknown profile has base 8', () => {
    const r = calculateMaxLoops({ profile: 'ASTROLOGY', vitals: flat(0.6), complexity: simple, config });
    expect(r.base_loops).toBe(8);
    expect(r.max_loops).toBe(8);
    expect(r.reasoning).toMatch(/unknown profile/);
  });
});

describe('fallback (P5)', () => {
  it('P5 NaN vitals → configured default_max_loops', () => {
    const r = calculateMaxLoops({ profile: 'CODE_ANALYSIS', vitals: { mood: Number.NaN, focus: 1, stamina: 1 }, complexity: simple, config });
    expect(r).toMatchObject({ max_loops: 15, fallback: true, vitals_score: null, complexity: null });
    expect(r.reasoning).toMatch(/fallback to the configured limit of 15/);
  });

  it('P5 uses the configured value, not only 15', () => {
    const custom = PacemakerConfigSchema.parse({ default_max_loops: 9 });
    expect(calculateMaxLoops({ profile: 'DEBUGGING', vitals: { mood: 2, focus: 1, stamina: 1 }, config: custom }).max_loops).toBe(9);
  });

  it('P5 a throwing input falls back', () => {
    const vitals = { focus: 1, stamina: 1 } as Vitals;
    Object.defineProperty(vitals, 'mood', {
      get: () => {
        throw new Error('sensor broke');
      },
    });
    const r = calculateMaxLoops({ profile: 'RESEARCH', vitals, config });
    expect(r).toMatchObject({ max_loops: 15, fallback: true });
    expect(r.reasoning).toMatch(/sensor broke/);
  });

  it('P5 invalid complexity input falls back', () => {
    expect(calculateMaxLoops({ profile: 'RESEARCH', complexity: { files: -1, historyTurns: 0, toolRuns: 0, toolErrors: 0 }, config }).fallback).toBe(
      true,
    );
    expect(
      calculateMaxLoops({ profile: 'RESEARCH', complexity: { files: Number.POSITIVE_INFINITY, historyTurns: 0, toolRuns: 0, toolErrors: 0 }, config })
        .fallback,
    ).toBe(true);
  });

  it('P5 final fallback 15 when the configured value is unusable', () => {
    const broken = { enabled: true, default_max_loops: Number.NaN };
    expect(calculateMaxLoops({ profile: 'RESEARCH', vitals: flat(Number.NaN), config: broken }).max_loops).toBe(15);
  });

  it('P5 a successful computation is not marked as fallback', () => {
    expect(calculateMaxLoops({ profile: 'RESEARCH', config }).fallback).toBeUndefined();
  });

  it('P5 disabled pacemaker → the configured fixed limit', () => {
    const off = PacemakerConfigSchema.parse({ enabled: false, default_max_loops: 10 });
    expect(calculateMaxLoops({ profile: 'RESEARCH', vitals: flat(0.9), config: off })).toMatchObject({ max_loops: 10, disabled: true });
  });
});

describe('result and reasoning (P6)', () => {
  it('P6 carries max_loops, base_loops, factors and a readable reasoning', () => {
    const r = calculateMaxLoops({
      profile: 'CODE_ANALYSIS',
      vitals: { mood: 0.75, focus: 0.8, stamina: 0.65 },
      complexity: { files: 8, historyTurns: 12, toolRuns: 0, toolErrors: 0 },
      config,
    });
    expect(r).toMatchObject({ base_loops: 12, vitals_factor: 1, profile: 'CODE_ANALYSIS' });
    expect(r.vitals_score).toBeCloseTo(0.75, 10);
    expect(r.complexity).toBeCloseTo(0.6, 10);
    expect(r.complexity_factor).toBeCloseTo(1.24, 10);
    expect(r.max_loops).toBe(14); // 12 × 1.0 × 1.24 = 14.88
    expect(r.reasoning).toContain('Task: CODE_ANALYSIS, base limit 12 loops');
    expect(r.reasoning).toContain('mood 0.75, focus 0.80, stamina 0.65');
    expect(r.reasoning).toContain('Complexity: 0.60 (medium) → factor 1.24');
    expect(r.reasoning).toContain('12 × 1.0 × 1.24 = 14.88 → 14');
    expect(r.reasoning).toContain('complexity raised the limit by 24%');
    expect(r.reasoning).toContain('Final limit: 14 loops (range 3-20)');
  });

  it('P6 explains a vitals cut', () => {
    const r = calculateMaxLoops({ profile: 'DEBUGGING', vitals: { mood: 0.2, focus: 0.3, stamina: 0.4 }, complexity: simple, config });
    expect(r.reasoning).toMatch(/low confidence in the plan, thinking is inconsistent, worn down by attempts/);
    expect(r.reasoning).toMatch(/vitals cut the limit by 30%/);
  });

  it('P6 the result is plain JSON data (safe for workflow state)', () => {
    const r = calculateMaxLoops({ profile: 'RESEARCH', vitals: flat(Number.NaN), config });
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });
});
