// Configuration of plan-quality refinement (R5): how many times a plan is refined, when a score
// stagnates, when a new plan counts as broken, and whether a failed quality judgement rejects the
// plan (it does unless `failOpen` is set). Pure: zod only, so workflows can parse it inside the
// Temporal sandbox.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';

/**
 * The refinement settings, in camelCase. Unknown keys are rejected.
 *
 * `maxRefinementAttempts` is the maximum number of *re-plans*: with the default 2 the initial plan
 * and at most two refined plans are judged.
 */
export const RefinementConfigObjectSchema = lazySchema(() =>
  z.strictObject({
    /** Maximum number of re-plans made from the judge's feedback. */
    maxRefinementAttempts: z.number().int().min(0).max(10).default(2),
    /** Also re-plan an acceptable plan that came back with suggestions. */
    refineSuggestionsOnSuccess: z.boolean().default(false),
    /** At most this many of the re-plans may be for suggestions alone. */
    maxSuggestionReplans: z.number().int().min(0).max(5).default(1),
    /** Repair a structurally broken plan task by task instead of dropping it whole. */
    enableIndividualFallback: z.boolean().default(true),
    /** A score gain below this many points counts as stagnation. */
    deltaThreshold: z.number().min(0).max(100).default(5),
    /** A relative score gain below this many percent counts as stagnation. */
    deltaThresholdPercent: z.number().min(0).max(100).default(5),
    /** Relative task-count change above which (and above the absolute minimum) a plan is broken. */
    taskCountChangeThreshold: z.number().min(0).max(10).default(0.3),
    /** Absolute task-count change above which (and above the relative threshold) a plan is broken. */
    taskCountChangeMinAbsolute: z.number().int().min(0).max(100).default(2),
    /**
     * Score (0..100) the quality judge is told to treat as the pass mark. It is guidance for the
     * judge only: it never turns an explicit `isAcceptable: false` into acceptance.
     */
    qualityThreshold: z.number().min(0).max(100).default(60),
    /**
     * What a failed quality judgement (LLM error after retries, unparseable reply) means.
     * false (default) = fail closed: the plan is rejected. true = the old fail-open behaviour.
     */
    failOpen: z.boolean().default(false),
  }),
);

/** Legacy key, still read for old config files: used only when `maxRefinementAttempts` is absent. */
export const LEGACY_MAX_QUALITY_RETRIES_KEY = 'maxQualityRetries';

function mapLegacyKeys(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const record = raw as Record<string, unknown>;
  if (!(LEGACY_MAX_QUALITY_RETRIES_KEY in record)) return raw;
  const { [LEGACY_MAX_QUALITY_RETRIES_KEY]: legacy, ...rest } = record;
  // Both set → maxRefinementAttempts wins (the new key takes precedence).
  return rest.maxRefinementAttempts === undefined ? { ...rest, maxRefinementAttempts: legacy } : rest;
}

/**
 * The refinement config as read from a config file section. Accepts `undefined` (all
 * defaults) and the legacy `maxQualityRetries` key; rejects any other unknown key.
 * Usable as a field of a larger schema: `refinement: RefinementConfigSchema`.
 */
export const RefinementConfigSchema = lazySchema(() => z.preprocess(mapLegacyKeys, RefinementConfigObjectSchema));

export type RefinementConfig = z.output<typeof RefinementConfigObjectSchema>;

export const DEFAULT_REFINEMENT_CONFIG: Readonly<RefinementConfig> = Object.freeze(RefinementConfigObjectSchema.parse({}));
