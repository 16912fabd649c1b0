// `replanner decisions <runId>` (X9): the replan decision log, the counters and every question.
import { Command } from 'commander';
import { renderDecisions } from '../render';
import { getDecisions } from '../run-inspect';
import { act, EXIT, type CliContext } from './context';

export function decisionsCommand(ctx: CliContext): Command {
  return new Command('decisions')
    .description('the replan decision log, the counters and every question asked')
    .argument('<runId>', 'the run')
    .option('--json', 'machine-readable output')
    .action(
      act(ctx, async (runId: string, o: { json?: boolean }) => {
        const backend = await ctx.connect();
        const view = await getDecisions(backend.client, runId);
        if (o.json) ctx.json(view);
        else ctx.print(renderDecisions(runId, view));
        return EXIT.OK;
      }),
    );
}
