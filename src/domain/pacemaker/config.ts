// The pacemaker's configuration (P1–P7): the loop limit's range and fallback, when it consults
// the user and what happens when nobody answers (snake_case keys, as the config file writes
// them). Pure: zod only.
import { z } from 'zod';
import { StuckConfigSchema } from '../config/stuck';
import { lazySchema } from '../lazy-schema';

/** The hard range of a computed limit. */
export const MIN_LOOPS = 3;
export const MAX_LOOPS = 20;
/** The last-resort limit when even the configured default is unusable. */
export const FINAL_FALLBACK_MAX_LOOPS = 15;

/** When an intervention (consultation with the user) is triggered. */
export const PacemakerInterventionConfigSchema = lazySchema(() =>
  z.strictObject({
    /** "no progress / repeating work": this many consecutive iterations without progress. */
    no_progress_iterations: z.number().int().min(1).max(100).default(3),
    /** "lost confidence": mood below this (mood under 0.5 reads as confidence in the plan going down). */
    low_mood_threshold: z.number().min(0).max(1).default(0.5),
    /** "confused thinking": focus below this (focus under 0.5 reads as consistency of thought going down). */
    low_focus_threshold: z.number().min(0).max(1).default(0.5),
    /**
     * After a consultation, the soft triggers (no progress, mood, focus) stay quiet for this
     * many iterations so the user's answer gets a chance to work. Reaching the limit
     * ("too many attempts") always triggers.
     */
    cooldown_iterations: z.number().int().min(0).max(100).default(2),
    /** The first soft trigger may fire only from this iteration on (vitals need a few samples). */
    min_iteration: z.number().int().min(1).max(100).default(2),
  }),
);

export const PacemakerConfigSchema = lazySchema(() =>
  z.strictObject({
    /** Off: the limit is default_max_loops and there are no consultations (the task stops at the limit). */
    enabled: z.boolean().default(true),
    /** Limit used when the dynamic computation fails (and when disabled). */
    default_max_loops: z.number().int().min(1).max(100).default(FINAL_FALLBACK_MAX_LOOPS),
    /** How long a consultation waits for the user (durably, in the workflow). */
    consultation_timeout_minutes: z
      .number()
      .min(0)
      .max(7 * 24 * 60)
      .default(30),
    /**
     * What happens when nobody answers in time. 'stop' (default, fail-safe: the agent is
     * stuck, so burning more LLM calls unattended is the worse outcome); 'continue' with
     * the current limit; 'raise_limit' = continue_raised.
     */
    on_consultation_timeout: z.enum(['continue', 'stop', 'raise_limit']).default('stop'),
    /** continue_raised: how many loops "continue" adds to the current limit. */
    raise_limit_by: z.number().int().min(1).max(50).default(5),
    interventions: PacemakerInterventionConfigSchema.default(() => PacemakerInterventionConfigSchema.parse({})),
    /** The stuck detector inside the worker's tool loop (src/domain/config/stuck.ts). */
    stuck: StuckConfigSchema,
  }),
);

export type PacemakerConfig = z.output<typeof PacemakerConfigSchema>;
export type PacemakerConfigInput = z.input<typeof PacemakerConfigSchema>;

export const DEFAULT_PACEMAKER_CONFIG: Readonly<PacemakerConfig> = Object.freeze(PacemakerConfigSchema.parse({}));
