// R5 / C3: configuration of plan-quality refinement (seed 001 "設定項目", seed 003 fail-closed).
// Pure: zod only, so workflows can parse it inside the Temporal sandbox.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';

/**
 * The refinement settings, camelCase as in seed 001. Unknown keys are rejected.
 *
 * `maxRefinementAttempts` is the maximum number of *re-plans* (seed 001: 再計画最大回数):
 * with the default 2 the initial plan and at most two refined plans are judged.
 */
export const RefinementConfigObjectSchema = lazySchema(() =>
  z.strictObject({
    /** R5: maximum number of feedback-based re-plans (seed 001: 再計画最大回数). */
    maxRefinementAttempts: z.number().int().min(0).max(10).default(2),
    /** R5: also re-plan an acceptable plan that came back with suggestions (R2.5). */
    refineSuggestionsOnSuccess: z.boolean().default(false),
    /** R5: at most this many of the re-plans may be suggestion-driven (R2.5). */
    maxSuggestionReplans: z.number().int().min(0).max(5).default(1),
    /** R3/R5: repair a structurally broken plan task by task instead of dropping it whole. */
    enableIndividualFallback: z.boolean().default(true),
    /** R4/R5: a score gain below this many points counts as stagnation. */
    deltaThreshold: z.number().min(0).max(100).default(5),
    /** R4/R5: a relative score gain below this many percent counts as stagnation. */
    deltaThresholdPercent: z.number().min(0).max(100).default(5),
    /** R3/R5: relative task-count change above which (and above the absolute minimum) a plan is broken. */
    taskCountChangeThreshold: z.number().min(0).max(10).default(0.3),
    /** R3/R5: absolute task-count change above which (and above the relative threshold) a plan is broken. */
    taskCountChangeMinAbsolute: z.number().int().min(0).max(100).default(2),
    /**
     * Score (0..100) the quality judge is told to treat as the pass mark (seed 003
     * `planning.qualityThreshold`). R6: it is guidance for the judge only — it never turns an
     * explicit `isAcceptable: false` into acceptance.
     */
    qualityThreshold: z.number().min(0).max(100).default(60),
    /**
     * C3: what a failed quality judgement (LLM error after retries, unparseable reply) means.
     * false (default) = fail closed: the plan is rejected. true = the old fail-open behaviour.
     */
    failOpen: z.boolean().default(false),
  }),
);

/** Legacy key (seed 001 後方互換性): used only when `maxRefinementAttempts` is absent. */
export const LEGACY_MAX_QUALITY_RETRIES_KEY = 'maxQualityRetries';

function mapLegacyKeys(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const record = raw as Record<string, unknown>;
  if (!(LEGACY_MAX_QUALITY_RETRIES_KEY in record)) return raw;
  const { [LEGACY_MAX_QUALITY_RETRIES_KEY]: legacy, ...rest } = record;
  // Both set → maxRefinementAttempts wins (seed 001: 両方設定時は maxRefinementAttempts を優先).
  return rest.maxRefinementAttempts === undefined ? { ...rest, maxRefinementAttempts: legacy } : rest;
}

/**
 * R5: the refinement config as read from a config file section. Accepts `undefined` (all
 * defaults) and the legacy `maxQualityRetries` key; rejects any other unknown key.
 * Usable as a field of a larger schema: `refinement: RefinementConfigSchema`.
 */
export const RefinementConfigSchema = lazySchema(() => z.preprocess(mapLegacyKeys, RefinementConfigObjectSchema));

export type RefinementConfig = z.output<typeof RefinementConfigObjectSchema>;

export const DEFAULT_REFINEMENT_CONFIG: Readonly<RefinementConfig> = Object.freeze(RefinementConfigObjectSchema.parse({}));
