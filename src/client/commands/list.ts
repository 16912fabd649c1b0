// `replanner list`: recent runs.
import { Command } from 'commander';
import { countProblem } from '../../domain/run-input';
import { phaseName } from '../../domain/words/phases';
import { listRuns, type RunListing } from '../runs';
import { act, EXIT, UsageError, type CliContext } from './context';
import { replannerCommand } from '../../domain/printed-commands';

/** One run: id, status, phase, start, instruction; a waiting or paused run's next line says what it waits for and how to answer. */
function listLine(r: RunListing): string {
  const line = `${r.runId}\t${r.status ?? r.temporalStatus}\t${phaseName(r.phase)}\t${r.startTime}\t${r.instruction ?? ''}`;
  return r.waiting ? `${line}\n\t↳ ${r.waiting}` : line;
}

export function listCommand(ctx: CliContext): Command {
  return new Command('list')
    .description('recent runs: id, status, phase, start time, instruction')
    .option('--limit <n>', 'how many runs to list (1-1000)', '20')
    .option('--waiting', 'only runs waiting for your answer (ReplannerStatus = "WAITING")')
    .option('--json', 'machine-readable output')
    .action(
      act(ctx, async (o: { limit: string; json?: boolean; waiting?: boolean }) => {
        const limitProblem = countProblem('--limit', o.limit, 1, 1000);
        if (limitProblem) throw new UsageError(limitProblem);
        const backend = await ctx.connect();
        const runs = await listRuns(backend.client, Number(o.limit), { waiting: o.waiting });
        if (o.json) ctx.json(runs);
        else if (!runs.length)
          ctx.print(
            o.waiting
              ? 'No run is waiting for an answer.'
              : `No runs yet. Start one: ${replannerCommand('run', '"<instruction>"', '--workspace DIR')}`,
          );
        else for (const r of runs) ctx.print(listLine(r));
        return EXIT.OK;
      }),
    );
}
