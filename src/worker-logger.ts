// The worker's log: the SDK's default logger without the one warning that is by design here.
// Workspace affinity runs activity-only SDK workers (the host queue and its presence queue, see
// src/worker.ts), and the SDK warns "No workflows registered" for each at every start.
import { DefaultLogger, type Logger, type LogLevel, type LogMetadata } from '@temporalio/worker';

const EXPECTED = /^No workflows registered, not polling for workflow tasks/;

export function workerLogger(level: LogLevel): Logger {
  const inner = new DefaultLogger(level);
  const log = (l: LogLevel, message: string, meta?: LogMetadata) => {
    if (!EXPECTED.test(message)) inner.log(l, message, meta);
  };
  return {
    log,
    trace: (m, meta) => log('TRACE', m, meta),
    debug: (m, meta) => log('DEBUG', m, meta),
    info: (m, meta) => log('INFO', m, meta),
    warn: (m, meta) => log('WARN', m, meta),
    error: (m, meta) => log('ERROR', m, meta),
  };
}
