// `replanner decisions <runId>`: every decision about the plan, the plan changes made and every question.
import type { Command } from 'commander';
import { renderDecisions } from '../render';
import { getDecisions } from '../run-inspect';
import { EXIT, onRun, runCommandNamed, type CliContext } from './context';

export function decisionsCommand(ctx: CliContext): Command {
  return runCommandNamed('decisions', 'every decision about the plan, the plan changes made and every question asked').action(
    onRun(ctx, async (backend, runId, o: { json?: boolean }) => {
      const view = await getDecisions(backend.client, runId);
      if (o.json) ctx.json(view);
      else ctx.print(renderDecisions(runId, view));
      return EXIT.OK;
    }),
  );
}
