// The plan-quality score stagnates (R4) when it improved too little between two consecutive
// judgements: then the refinement loop stops early.
import type { RefinementConfig } from './config';

export interface ImprovementAssessment {
  /** curr − prev, in score points. */
  improvement: number;
  /**
   * improvement as a percentage of prev. `null` when prev ≤ 0: a relative gain from zero is
   * undefined, so only the absolute criterion applies then (see isStagnant).
   */
  relativeImprovementPercent: number | null;
  stagnant: boolean;
  reason: string;
}

/**
 * Stagnation = improvement < deltaThreshold OR relative improvement < deltaThresholdPercent %.
 * OR, not AND: either weak signal stops the loop early.
 *
 * Boundaries: a gain exactly equal to a threshold is NOT stagnation (strict `<`).
 * A drop (negative improvement) is always stagnation, since both thresholds are ≥ 0.
 * prev ≤ 0: the relative criterion is skipped (no meaningful percentage of zero); the
 * absolute criterion alone decides, so 0 → 10 is progress and 0 → 3 is stagnation.
 * A threshold of 0 switches its criterion off for gains ≥ 0.
 */
export function assessImprovement(
  prev: number,
  curr: number,
  config: Pick<RefinementConfig, 'deltaThreshold' | 'deltaThresholdPercent'>,
): ImprovementAssessment {
  const improvement = curr - prev;
  const relative = prev > 0 ? (improvement * 100) / prev : null;
  const absoluteStagnant = improvement < config.deltaThreshold;
  const relativeStagnant = relative !== null && relative < config.deltaThresholdPercent;
  const stagnant = absoluteStagnant || relativeStagnant;
  const rel = relative === null ? 'n/a (previous score 0)' : `${round2(relative)}%`;
  let reason: string;
  if (absoluteStagnant) {
    reason = `score ${prev} → ${curr}: improvement ${round2(improvement)} < deltaThreshold ${config.deltaThreshold}`;
  } else if (relativeStagnant) {
    reason = `score ${prev} → ${curr}: relative improvement ${rel} < deltaThresholdPercent ${config.deltaThresholdPercent}%`;
  } else {
    reason = `score ${prev} → ${curr}: improvement ${round2(improvement)} (${rel}) meets the thresholds`;
  }
  return { improvement, relativeImprovementPercent: relative, stagnant, reason };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
