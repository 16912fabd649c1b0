// `replanner status <runId>`: phase, tasks, replans, questions, usage, and the files each task changed.
import type { Command } from 'commander';
import { filesByTask } from '../diff';
import { renderStatus } from '../render';
import { FINAL, getStatus, workerProblem } from '../run-inspect';
import { llmCallsInFlight } from '../llm-calls';
import { runningTasks, runningUsage, withRunningTasks } from '../running-tasks';
import { workflowIdOf } from '../runs';
import { EXIT, onRun, runCommandNamed, type CliContext } from './context';

export function statusCommand(ctx: CliContext): Command {
  return runCommandNamed(
    'status',
    "the run's phase, tasks, plan changes, questions and usage",
    '0 ok · 3 no such run, or no worker polls its task queue and it recorded nothing yet',
  ).action(
    onRun(ctx, async (backend, runId, o: { json?: boolean }) => {
      const s = await getStatus(backend.client, runId);
      // The files each task changed, where this shell can read the workspace's transcripts.
      const files = filesByTask(s.workspace, runId);
      // The LLM calls in flight (reading the prompt, writing N tokens, a retry after a stall).
      const calls = !FINAL.has(s.status) ? await llmCallsInFlight(backend.client, workflowIdOf(runId)).catch(() => []) : [];
      // The memo answered for a run nobody serves: it says so below, and its tasks cannot be asked.
      const problem = !FINAL.has(s.status) ? await workerProblem(backend.client, runId) : undefined;
      // The running tasks' tokens so far and stuck notes, which the run learns only later.
      const running = !FINAL.has(s.status) && !problem ? await runningTasks(backend.client, workflowIdOf(runId), s) : [];
      const shown = withRunningTasks(s, running);
      if (o.json) {
        const extra = {
          ...(Object.keys(files).length ? { files } : {}),
          ...(calls.length ? { llmCalls: calls } : {}),
          ...(running.length ? { runningTasks: running } : {}),
        };
        ctx.json({ ...shown, ...extra });
      } else ctx.print([renderStatus(shown, files, runningUsage(running)), ...calls.map((c) => `Model call: ${c.line}`)].join('\n'));
      // …and how to start its worker.
      if (problem) ctx.say(`replanner: ${problem}`);
      return EXIT.OK;
    }),
  );
}
