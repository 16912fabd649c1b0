// The task judge's verdict and what it means for the task (J2): done, another worker iteration,
// re-decomposition, or blocked.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { itemToText } from '../text';

/**
 * The judge's reply. Missing flags default to false, a missing list to []. `confidence` (0..1,
 * how sure the judge is that the task's current plan leads to the goal) must be given; null when
 * the judge cannot say. It becomes the task's mood.
 */
export const JudgeResultSchema = lazySchema(() =>
  z.object({
    success: z.boolean({ error: 'must be true or false' }),
    shouldContinue: z.preprocess((v) => v ?? false, z.boolean({ error: 'must be true or false' })),
    shouldReplan: z.preprocess((v) => v ?? false, z.boolean({ error: 'must be true or false' })),
    reason: z.preprocess((v) => v ?? '', z.string({ error: 'must be text' })),
    missingRequirements: z.preprocess(
      (v) => v ?? [],
      z
        .array(z.union([z.string(), z.number(), z.record(z.string(), z.unknown())]), { error: 'must be a list' })
        .transform((items) => items.map(itemToText)),
    ),
    confidence: z.number({ error: 'must be a number 0..1 or null' }).min(0).max(1).nullable(),
  }),
);
export type JudgeResult = z.output<typeof JudgeResultSchema>;

export type JudgeOutcome = 'DONE' | 'NEEDS_CONTINUATION' | 'REPLAN' | 'BLOCKED';

/**
 * The verdict's meaning, first match wins:
 *   success → DONE; shouldContinue → NEEDS_CONTINUATION; shouldReplan → REPLAN; else BLOCKED.
 * When the judge sets both shouldContinue and shouldReplan, continuation wins: another worker
 * iteration is cheaper than re-planning the task.
 */
export function judgeOutcome(result: Pick<JudgeResult, 'success' | 'shouldContinue' | 'shouldReplan'>): JudgeOutcome {
  if (result.success) return 'DONE';
  if (result.shouldContinue) return 'NEEDS_CONTINUATION';
  if (result.shouldReplan) return 'REPLAN';
  return 'BLOCKED';
}
