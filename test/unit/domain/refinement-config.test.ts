import { z } from 'zod';
import { parseConfig } from '../../../src/domain/config';
import { DEFAULT_REFINEMENT_CONFIG, RefinementConfigSchema } from '../../../src/domain/refinement';

/** The refinement section through the one config parser. */
const normalizeRefinementConfig = (raw: unknown) => parseConfig({ refinement: raw }).refinement;

describe('RefinementConfig (R5, C3)', () => {
  it('R5 defaults', () => {
    expect(DEFAULT_REFINEMENT_CONFIG).toEqual({
      maxRefinementAttempts: 2,
      refineSuggestionsOnSuccess: false,
      maxSuggestionReplans: 1,
      enableIndividualFallback: true,
      deltaThreshold: 5,
      deltaThresholdPercent: 5,
      taskCountChangeThreshold: 0.3,
      taskCountChangeMinAbsolute: 2,
      qualityThreshold: 60,
      failOpen: false,
    });
  });

  it('R5 an absent section gives the defaults', () => {
    expect(normalizeRefinementConfig(undefined)).toEqual(DEFAULT_REFINEMENT_CONFIG);
    expect(normalizeRefinementConfig({})).toEqual(DEFAULT_REFINEMENT_CONFIG);
  });

  it('C3 fails closed by default (failOpen false)', () => {
    expect(normalizeRefinementConfig({}).failOpen).toBe(false);
    expect(normalizeRefinementConfig({ failOpen: true }).failOpen).toBe(true);
  });

  it('R5 legacy maxQualityRetries is read when maxRefinementAttempts is absent', () => {
    const c = normalizeRefinementConfig({ maxQualityRetries: 4 });
    expect(c.maxRefinementAttempts).toBe(4);
    expect(c).not.toHaveProperty('maxQualityRetries');
  });

  it('R5 maxRefinementAttempts wins when both keys are set', () => {
    expect(normalizeRefinementConfig({ maxQualityRetries: 4, maxRefinementAttempts: 1 }).maxRefinementAttempts).toBe(1);
  });

  it('R5 the legacy key is validated like the new one', () => {
    expect(() => normalizeRefinementConfig({ maxQualityRetries: -1 })).toThrow();
  });

  it('R5 unknown keys are rejected (strict)', () => {
    expect(() => normalizeRefinementConfig({ maxRefinementAttempt: 3 })).toThrow(/unrecognized|maxRefinementAttempt/i);
  });

  it('R5 invalid values are rejected', () => {
    expect(() => normalizeRefinementConfig({ maxRefinementAttempts: 1.5 })).toThrow();
    expect(() => normalizeRefinementConfig({ deltaThreshold: -1 })).toThrow();
    expect(() => normalizeRefinementConfig({ qualityThreshold: 101 })).toThrow();
    expect(() => normalizeRefinementConfig('yes')).toThrow();
  });

  it('R5 works as a field of a larger config schema, absent or legacy', () => {
    const Parent = z.object({ refinement: RefinementConfigSchema });
    expect(Parent.parse({}).refinement).toEqual(DEFAULT_REFINEMENT_CONFIG);
    expect(Parent.parse({ refinement: { maxQualityRetries: 3 } }).refinement.maxRefinementAttempts).toBe(3);
  });

  it('R5 the default object cannot be mutated by accident', () => {
    expect(Object.isFrozen(DEFAULT_REFINEMENT_CONFIG)).toBe(true);
  });
});
