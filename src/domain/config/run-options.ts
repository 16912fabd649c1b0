// The run options of a RunWorkflow input. Anyone who can reach Temporal can start a run with any
// payload, so the workflow checks them too: known keys only, every number bounded (S2, S3).
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { BOUNDS } from './fields';
import { ConfigError, describeIssue, type ConfigIssue } from './issues';

const bounded = (min: number, max: number, int = true) => {
  const n = z.number({ error: `must be a number between ${min} and ${max}` });
  return (int ? n.int({ error: `must be a whole number between ${min} and ${max}` }) : n)
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .optional();
};
const DAY_MS = BOUNDS.machineTimeoutSeconds * 1000;
const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Temporal duration (ms number, or "90 s" / "3 minutes" / "1h") in ms; undefined when unreadable. */
export function durationMs(v: number | string): number | undefined {
  if (typeof v === 'number') return v;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\s*$/i.exec(v);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const key = unit.startsWith('ms') || unit.startsWith('milli') ? 'ms' : unit[0]!;
  return Number(m[1]) * DURATION_UNITS_MS[key]!;
}

export const RunOptionsInputSchema = lazySchema(() =>
  z.strictObject(
    {
      maxParallelTasks: bounded(1, BOUNDS.parallelTasks),
      workerMaxSteps: bounded(1, 200),
      workerHeartbeatTimeoutMs: bounded(1000, 600_000),
      commandTimeoutMs: bounded(1, DAY_MS),
      llmMaxAttempts: bounded(1, 20),
      llmRetryInitialMs: bounded(1, 60_000),
      llmCallTimeout: z
        .union([z.number(), z.string()], { error: 'must be a duration (ms, or text like "3 minutes")' })
        .refine(
          (v) => {
            const ms = durationMs(v);
            return ms !== undefined && ms >= 1 && ms <= DAY_MS;
          },
          { error: 'must be a duration between 1 ms and 24 hours' },
        )
        .optional(),
      maxGraphRepairs: bounded(0, 10),
      continueAsNewAfterEvents: bounded(1, 40_000),
      notifyFlushMs: bounded(0, 10 * 60_000),
      trackerPollMs: bounded(100, 120_000),
    },
    { error: 'must be a mapping (key: value)' },
  ),
);

/** Checks a run's options (RunInput.options); throws ConfigError naming `options.<key>`. */
export function checkRunOptions(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  const r = RunOptionsInputSchema.safeParse(raw, { reportInput: true });
  if (r.success) return;
  throw new ConfigError(
    r.error.issues.flatMap((i): ConfigIssue[] =>
      i.code === 'unrecognized_keys'
        ? i.keys.map((k) => ({ path: `options.${k}`, message: 'unknown key' }))
        : describeIssue(i, false).map((d) => ({ ...d, path: d.path ? `options.${d.path}` : 'options' })),
    ),
  );
}
