// Pacemaker settings for workflow tests that must see one particular intervention pattern (P7).
import type { InterventionKind, PacemakerConfigInput } from '../../src/domain/pacemaker';

/**
 * Pacemaker settings that make exactly one pattern fire (thresholds of the others out of reach),
 * with the judge's confidence that drives it (P2: it becomes mood).
 */
export const TRIGGER: Record<InterventionKind, { profile: string; confidence: number | null; pacemaker: Partial<PacemakerConfigInput> }> = {
  // The judge misses the same thing twice: no progress at loop 2.
  no_progress: {
    profile: 'FILE_OPERATION',
    confidence: null,
    pacemaker: { interventions: { min_iteration: 1, no_progress_iterations: 1, low_focus_threshold: 0, low_mood_threshold: 0 } },
  },
  // The judge is 10% sure: mood 0.1 at loop 1.
  lost_confidence: {
    profile: 'FILE_OPERATION',
    confidence: 0.1,
    pacemaker: { interventions: { min_iteration: 1, no_progress_iterations: 100, low_focus_threshold: 0 } },
  },
  // The worker writes the same file every loop: focus 0.5 < 0.6 at loop 2.
  confused_thinking: {
    profile: 'FILE_OPERATION',
    confidence: null,
    pacemaker: { interventions: { min_iteration: 1, no_progress_iterations: 100, low_mood_threshold: 0, low_focus_threshold: 0.6 } },
  },
  // No soft trigger at all; the limit (SIMPLE_QUESTION, low vitals: 3 loops) is reached.
  too_many_attempts: {
    profile: 'SIMPLE_QUESTION',
    confidence: 0,
    pacemaker: { interventions: { min_iteration: 100 } },
  },
};

/** The judge's verdict on a task that still misses a working parser, as sure as `confidence` (P2). */
export function stalledParserVerdict(confidence: number | null): Record<string, unknown> {
  return {
    success: false,
    shouldContinue: true,
    shouldReplan: false,
    reason: 'still not done',
    missingRequirements: ['a working parser'],
    confidence,
  };
}
