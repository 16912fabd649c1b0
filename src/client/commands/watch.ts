// `replanner watch <runId>`: every event of the run once, in order, until it ends, then its final status.
import { Command } from 'commander';
import { follow, whileWatching } from '../follow';
import { renderStatus } from '../render';
import { act, ensureRunWorker, EXIT, type CliContext } from './context';

interface WatchOptions {
  ask?: boolean;
  verbose?: boolean;
  json?: boolean;
}

export function watchCommand(ctx: CliContext): Command {
  return new Command('watch')
    .description(
      "every event of the run until it ends, once and in order (phases, tasks, decisions about the plan, questions, tasks asking how to go on, notifications, pauses, the worker's tool calls), then its final status",
    )
    .argument('<runId>', 'the run')
    .option('--ask', 'ask pending questions on the terminal and send the answers (the default on a terminal without --json)')
    .option('-v, --verbose', 'also decisions that keep the plan ("plan kept") and notification deliveries')
    .option('--json', 'one JSON object per line ({seq, time, kind, ...}; worker steps: kind worker_step; last: kind final)')
    .addHelpText(
      'after',
      '\nExit codes: 0 the run ended DONE · 1 it ended otherwise · 3 it cannot be read (no such run, no worker and nothing recorded) · 130 Ctrl-C (the run goes on)',
    )
    .action(
      act(ctx, async (runId: string, o: WatchOptions) => {
        const backend = await ctx.connect();
        await ensureRunWorker(ctx, backend, runId);
        const asker = ctx.askQuestions(backend.client, runId, o);
        // Every event of the run once, in order (--json: one JSON object per line), then the final status.
        // A worker lost while watching is noticed, and started again as above.
        const worker = { start: () => ensureRunWorker(ctx, backend, runId), say: ctx.say };
        const final = await whileWatching(
          runId,
          ctx.say,
          () => follow(backend.client, runId, ctx.print, { verbose: o.verbose, json: o.json, asker, worker }),
          ctx.out,
        );
        await asker?.close();
        if (o.json) ctx.print(JSON.stringify({ kind: 'final', time: new Date().toISOString(), status: final }));
        else ctx.print(renderStatus(final));
        return final.status === 'DONE' ? EXIT.OK : EXIT.RUN_NOT_DONE;
      }),
    );
}
