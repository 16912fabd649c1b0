// `replanner list`: recent runs.
import { Command } from 'commander';
import { countProblem } from '../../domain/run-input';
import { listRuns } from '../runs';
import { act, EXIT, UsageError, type CliContext } from './context';

export function listCommand(ctx: CliContext): Command {
  return new Command('list')
    .description('recent runs: id, status, phase, start time, instruction')
    .option('--limit <n>', 'how many runs to list (1-1000)', '20')
    .option('--json', 'machine-readable output')
    .action(
      act(ctx, async (o: { limit: string; json?: boolean }) => {
        const limitProblem = countProblem('--limit', o.limit, 1, 1000);
        if (limitProblem) throw new UsageError(limitProblem);
        const backend = await ctx.connect();
        const runs = await listRuns(backend.client, Number(o.limit));
        if (o.json) ctx.json(runs);
        else if (!runs.length) ctx.print('No runs yet. Start one: replanner run "<instruction>" --workspace DIR');
        else for (const r of runs) ctx.print(`${r.runId}\t${r.status ?? r.temporalStatus}\t${r.phase ?? ''}\t${r.startTime}\t${r.instruction ?? ''}`);
        return EXIT.OK;
      }),
    );
}
