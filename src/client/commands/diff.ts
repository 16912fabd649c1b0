// `replanner diff <runId> [taskId]` (V3): the files each task changed, from the worker's transcripts
// (a git diff where the workspace is a repository).
import { Command } from 'commander';
import { renderDiffs, runDiffs } from '../diff';
import { getStatus } from '../run-inspect';
import { act, EXIT, UsageError, type CliContext } from './context';

export function diffCommand(ctx: CliContext): Command {
  return new Command('diff')
    .description('the files each task changed (+added −removed lines; a git diff where the workspace is a repository)')
    .argument('<runId>', 'the run')
    .argument('[taskId]', 'only this task')
    .option('--json', 'machine-readable output')
    .action(
      act(ctx, async (runId: string, taskId: string | undefined, o: { json?: boolean }) => {
        const backend = await ctx.connect();
        const s = await getStatus(backend.client, runId);
        const diffs = runDiffs(s.workspace, runId, taskId);
        if (taskId !== undefined && diffs.length === 0) {
          const known = runDiffs(s.workspace, runId).map((d) => d.taskId);
          throw new UsageError(`run ${runId} has no task "${taskId}" that worked${known.length ? ` (tasks: ${known.join(', ')})` : ''}`);
        }
        if (o.json) ctx.json({ runId, workspace: s.workspace, tasks: diffs });
        else ctx.print(renderDiffs(runId, diffs));
        return EXIT.OK;
      }),
    );
}
