// `replanner diff <runId> [taskId]`: the files each task changed, from the worker's transcripts
// (a git diff where the workspace is a repository).
import type { Command } from 'commander';
import { renderDiffs, runDiffs } from '../diff';
import { branchCommits, renderBranchCommits, taskCommitPatch } from '../diff-branch';
import { getStatus } from '../run-inspect';
import { EXIT, onRun, UsageError, runCommandNamed, type CliContext } from './context';

export function diffCommand(ctx: CliContext): Command {
  return runCommandNamed('diff', 'the files each task changed (+added −removed lines; a git diff where the workspace is a repository)')
    .argument('[taskId]', 'only this task')
    .action(
      onRun(ctx, async (backend, runId, taskId: string | undefined, o: { json?: boolean }) => {
        const s = await getStatus(backend.client, runId);
        // G1: a run with a branch of its own: its commits are what it changed.
        if (s.git) {
          const commits = branchCommits(s.workspace, s.git);
          const patch = taskId !== undefined ? taskCommitPatch(s.workspace, s.git, taskId) : undefined;
          if (taskId !== undefined && patch === undefined) throw new UsageError(`run ${runId} has no commit for task "${taskId}"`);
          if (o.json) ctx.json({ runId, workspace: s.workspace, git: s.git, commits: taskId ? commits.filter((c) => c.taskId === taskId) : commits });
          else ctx.print(patch ?? renderBranchCommits(runId, s.git, commits));
          return EXIT.OK;
        }
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
