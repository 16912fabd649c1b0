// An activity's context for tests that call activities directly (no worker): Temporal's own
// MockActivityEnvironment, with a logger that keeps every line (the activity's failures included,
// inspected whole with their causes) instead of printing it, so a test can read what a worker's log
// would hold, e.g. that no token is in it.
import { inspect } from 'node:util';
import type { ApplicationFailure, LogLevel, LogMetadata } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';

export function recordingActivityEnv(): { env: MockActivityEnvironment; logged: string[]; run: <R>(work: () => Promise<R>) => Promise<R> } {
  const logged: string[] = [];
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => void logged.push(`${level} ${message} ${inspect(meta, { depth: 8 })}`);
  const logger = {
    log,
    trace: (m: string, meta?: LogMetadata) => log('TRACE', m, meta),
    debug: (m: string, meta?: LogMetadata) => log('DEBUG', m, meta),
    info: (m: string, meta?: LogMetadata) => log('INFO', m, meta),
    warn: (m: string, meta?: LogMetadata) => log('WARN', m, meta),
    error: (m: string, meta?: LogMetadata) => log('ERROR', m, meta),
  };
  const env = new MockActivityEnvironment(undefined, { logger });
  /** Runs `work` (an activity called with its input) in the activity's context. */
  const run = <R>(work: () => Promise<R>): Promise<R> => env.run<[], R, () => Promise<R>>(work);
  return { env, logged, run };
}

/** The failure an activity call ended with (a test of a failure fails when the call succeeds). */
export const failureOf = (p: Promise<unknown>): Promise<ApplicationFailure> =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as ApplicationFailure,
  );
