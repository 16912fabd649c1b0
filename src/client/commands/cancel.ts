// `replanner cancel <runId>`: cancel a run, its task workflows and their running commands.
import type { Command } from 'commander';
import { AlreadyEnded } from '../errors';
import { cancelRun } from '../run-updates';
import { ensureRunWorker, EXIT, onRun, runCommandNamed, type CliContext } from './context';

export function cancelCommand(ctx: CliContext): Command {
  return runCommandNamed('cancel', 'cancel a run and its tasks', '0 cancellation requested · 1 the run already ended · 3 no such run').action(
    onRun(ctx, async (backend, runId, o: { json?: boolean }) => {
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
