import { DEFAULT_REFINEMENT_CONFIG, assessImprovement } from '../../../src/domain/refinement';

const defaults = DEFAULT_REFINEMENT_CONFIG; // deltaThreshold 5, deltaThresholdPercent 5
const relativeOnly = { deltaThreshold: 0, deltaThresholdPercent: 5 };
const absoluteOnly = { deltaThreshold: 5, deltaThresholdPercent: 0 };

describe('assessImprovement stagnant (R4)', () => {
  it.each([
    ['R4 absolute: +4 points is stagnation', 60, 64, defaults, true],
    ['R4 absolute boundary: exactly +5 points is not stagnation', 60, 65, defaults, false],
    ['R4 absolute: +6 points is progress', 60, 66, defaults, false],
    ['R4 no change is stagnation', 70, 70, defaults, true],
    ['R4 a drop is stagnation', 70, 60, defaults, true],
    ['R4 a drop is stagnation even with both thresholds 0', 70, 69, { deltaThreshold: 0, deltaThresholdPercent: 0 }, true],
    ['R4 relative: +4.5% is stagnation', 40, 41.8, relativeOnly, true],
    ['R4 relative boundary: exactly +5% is not stagnation', 40, 42, relativeOnly, false],
    ['R4 relative: +6% is progress', 50, 53, relativeOnly, false],
    ['R4 OR: relative below 5% stagnates although the absolute gain is enough', 200, 209, { deltaThreshold: 5, deltaThresholdPercent: 5 }, true],
    ['R4 OR: absolute below 5 stagnates although the relative gain is enough', 20, 24, defaults, true],
    ['R4 prev 0: only the absolute criterion applies (0 → 10 is progress)', 0, 10, defaults, false],
    ['R4 prev 0: only the absolute criterion applies (0 → 3 is stagnation)', 0, 3, defaults, true],
    ['R4 prev 0 with the absolute criterion off: any gain is progress', 0, 1, relativeOnly, false],
    ['R4 absolute only: +5 is progress', 99, 104, absoluteOnly, false],
  ] as const)('%s', (_name, prev, curr, config, expected) => {
    expect(assessImprovement(prev, curr, config).stagnant).toBe(expected);
  });

  it('R4 assessment explains the numbers', () => {
    const a = assessImprovement(60, 64, defaults);
    expect(a).toMatchObject({ improvement: 4, stagnant: true });
    expect(a.relativeImprovementPercent).toBeCloseTo(6.67, 2);
    expect(a.reason).toMatch(/improvement 4 < deltaThreshold 5/);
    expect(assessImprovement(0, 10, defaults).relativeImprovementPercent).toBeNull();
    expect(assessImprovement(40, 41.8, relativeOnly).reason).toMatch(/relative improvement 4.5% < deltaThresholdPercent 5%/);
  });
});
