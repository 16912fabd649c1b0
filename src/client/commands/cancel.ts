// `replanner cancel <runId>`: cancel a run, its task workflows and their running commands.
import { Command } from 'commander';
import { AlreadyEnded } from '../errors';
import { cancelRun } from '../run-updates';
import { act, ensureRunWorker, EXIT, type CliContext } from './context';

export function cancelCommand(ctx: CliContext): Command {
  return new Command('cancel')
    .description('cancel a run and its tasks')
    .argument('<runId>', 'the run')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExit codes: 0 cancellation requested · 1 the run already ended · 3 no such run')
    .action(
      act(ctx, async (runId: string, o: { json?: boolean }) => {
        const backend = await ctx.connect();
        await ensureRunWorker(ctx, backend, runId);
        try {
          await cancelRun(backend.client, runId);
        } catch (e) {
          if (!(e instanceof AlreadyEnded)) throw e;
          if (o.json) ctx.json({ runId, cancelRequested: false, reason: e.message });
          else ctx.say(`replanner: ${e.message}`);
          return EXIT.RUN_NOT_DONE;
        }
        if (o.json) ctx.json({ runId, cancelRequested: true });
        else ctx.print(`Cancellation requested for run ${runId}; its running tasks are being stopped.`);
        return EXIT.OK;
      }),
    );
}
