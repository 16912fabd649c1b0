// The building blocks of every config field: numbers with their bounds (every number has a sane
// maximum, so no config can ask for unbounded work or waits, S3), flags and strict sections.
import { z } from 'zod';

export const prob = (dflt: number) =>
  z
    .number({ error: 'must be a number between 0 and 1' })
    .min(0, { error: 'must be between 0 and 1' })
    .max(1, { error: 'must be between 0 and 1' })
    .default(dflt);
export const count = (dflt: number, min: number, max: number) =>
  z
    .number({ error: `must be a whole number ≥ ${min}` })
    .int({ error: `must be a whole number ≥ ${min}` })
    .min(min, { error: `must be a whole number ≥ ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(dflt);
export const positive = (dflt: number, max: number) =>
  z
    .number({ error: 'must be a number > 0' })
    .positive({ error: 'must be a number > 0' })
    .max(max, { error: `must be at most ${max}` })
    .default(dflt);
export const nonNegative = (dflt: number, max: number) =>
  z
    .number({ error: 'must be a number ≥ 0' })
    .min(0, { error: 'must be a number ≥ 0' })
    .max(max, { error: `must be at most ${max}` })
    .default(dflt);

/** Maxima: machine waits (commands, LLM calls) at most a day; waits for a human at most 30 days. */
export const BOUNDS = {
  maxTasks: 200,
  replansPerType: 100,
  totalReplans: 1000,
  machineTimeoutSeconds: 24 * 60 * 60,
  humanWaitMinutes: 30 * 24 * 60,
  parallelTasks: 64,
  taskIterations: 100,
  redecompositionIterations: 20,
} as const;
export const perType = (dflt: number) => count(dflt, 0, BOUNDS.replansPerType);
export const flag = (dflt: boolean) => z.boolean({ error: 'must be true or false' }).default(dflt);
export const section = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, { error: 'must be a mapping (key: value)' }).prefault({} as never);
