// `replanner status <runId>`: phase, tasks, replans, questions, usage, and the files each task changed.
import { Command } from 'commander';
import { filesByTask } from '../diff';
import { renderStatus } from '../render';
import { getStatus, workerProblem } from '../run-inspect';
import { act, EXIT, type CliContext } from './context';

export function statusCommand(ctx: CliContext): Command {
  return new Command('status')
    .description("the run's phase, tasks, replans, questions and usage")
    .argument('<runId>', 'the run (or its workflow id run-<id>)')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExit codes: 0 ok · 3 no such run, or no worker polls its task queue and it recorded nothing yet')
    .action(
      act(ctx, async (runId: string, o: { json?: boolean }) => {
        const backend = await ctx.connect();
        const s = await getStatus(backend.client, runId);
        // V3: the files each task changed, where this shell can read the workspace's transcripts.
        const files = filesByTask(s.workspace, runId);
        if (o.json) ctx.json(Object.keys(files).length ? { ...s, files } : s);
        else ctx.print(renderStatus(s, files));
        // The memo answered for a run nobody serves: say so, and how to start its worker.
        if (s.status === 'RUNNING' || s.status === 'PAUSED') {
          const problem = await workerProblem(backend.client, runId);
          if (problem) ctx.say(`replanner: ${problem}`);
        }
        return EXIT.OK;
      }),
    );
}
