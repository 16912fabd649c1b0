// The stuck detector's thresholds (config `pacemaker.stuck`), in the spirit of OpenHands' stuck
// detector: the same action with the same error 3 times, the same action with the same result 4
// times, two actions alternating over 6 steps, repeated messages with no action. Each counts tool
// calls (or, for messages, replies) in a row, across the worker's steps and iterations of one task.
import type { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { count, flag, section } from './fields';

export const StuckConfigSchema = lazySchema(() =>
  section({
    /** Off: the worker's steps are not watched (an iteration ends at its answer or its step limit only). */
    enabled: flag(true),
    /** The same call (arguments normalised) failing with the same answer this many times in a row. */
    same_failure: count(3, 2, 50),
    /** The same call returning the same output this many times in a row. */
    same_result: count(4, 2, 50),
    /** Two calls alternating (A B A B …, each with its same output) over this many calls. */
    alternation: count(6, 4, 50),
    /** This many failing calls in a row, whatever their arguments. */
    failing_calls: count(5, 2, 50),
    /** This many replies in a row with no tool call that say nothing new (each repeats the first). */
    repeated_messages: count(3, 2, 50),
    /** This many steps in a row that changed no file and learned nothing new (every call a repeat). */
    idle_steps: count(8, 2, 200),
    /** When the judge says the task is not done after a stuck iteration, offer the "no progress" consultation. */
    consult: flag(true),
  }),
);

export type StuckConfig = z.output<typeof StuckConfigSchema>;

export const DEFAULT_STUCK_CONFIG: Readonly<StuckConfig> = Object.freeze(StuckConfigSchema.parse({}));
