// V2: `watch` and `run --wait` follow a run's event log until it ends, feeding each status to the
// terminal question asker; Ctrl-C stops the following, not the run.
import type { Client } from '@temporalio/client';
import type { RunStatus } from '../workflows/messages';
import type { QuestionAsker } from './question-asker';
import { eventPrinter, watchEvents } from './watch';
import { replannerCommand } from '../domain/printed-commands';

/** Follows the run's events until it ends (--json: one JSON object per line) and returns its final status. */
export function follow(
  client: Client,
  runId: string,
  write: (s: string) => void,
  o: { verbose?: boolean; json?: boolean; asker?: QuestionAsker },
): Promise<RunStatus> {
  const p = eventPrinter(write, { runId, verbose: Boolean(o.verbose), json: Boolean(o.json) });
  return watchEvents(
    client,
    runId,
    {
      ...p,
      onStatus: (s) => {
        p.onStatus(s);
        o.asker?.offer(s);
      },
    },
    { onUnavailable: (why) => p.fallBack(why) },
  );
}

/**
 * Ctrl-C while watching stops the watching, not the run: say so, and how to reattach or cancel
 * (exit 130, the shell's code for an interrupt).
 */
export async function whileWatching<T>(runId: string, say: (s: string) => void, watch: () => Promise<T>): Promise<T> {
  const onInterrupt = () => {
    say(`\nStopped watching; run ${runId} goes on. Reattach: ${replannerCommand('watch', runId)} · cancel it: ${replannerCommand('cancel', runId)}`);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    return await watch();
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
}
