// `replanner status <runId>`: phase, tasks, replans, questions, usage, and the files each task changed.
import type { Command } from 'commander';
import { filesByTask } from '../diff';
import { renderStatus } from '../render';
import { FINAL, getStatus, workerProblem } from '../run-inspect';
import { EXIT, onRun, runCommandNamed, type CliContext } from './context';

export function statusCommand(ctx: CliContext): Command {
  return runCommandNamed(
    'status',
    "the run's phase, tasks, replans, questions and usage",
    '0 ok · 3 no such run, or no worker polls its task queue and it recorded nothing yet',
  ).action(
    onRun(ctx, async (backend, runId, o: { json?: boolean }) => {
      const s = await getStatus(backend.client, runId);
      // V3: the files each task changed, where this shell can read the workspace's transcripts.
      const files = filesByTask(s.workspace, runId);
      if (o.json) ctx.json(Object.keys(files).length ? { ...s, files } : s);
      else ctx.print(renderStatus(s, files));
      // The memo answered for a run nobody serves: say so, and how to start its worker.
      if (!FINAL.has(s.status)) {
        const problem = await workerProblem(backend.client, runId);
        if (problem) ctx.say(`replanner: ${problem}`);
      }
      return EXIT.OK;
    }),
  );
}
