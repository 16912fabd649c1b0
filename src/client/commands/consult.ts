// `replanner consult <runId> <taskId> <choice> ["text"]`: answer a task that asks how to go on.
import type { Command } from 'commander';
import { answerConsultation } from '../run-updates';
import { act, ensureRunWorker, EXIT, rejectedIsUsage, runCommandNamed, type CliContext } from './context';

export function consultCommand(ctx: CliContext): Command {
  return (
    runCommandNamed(
      'consult',
      'answer a task that asks how to go on (status and watch show its numbered choices)',
      '0 answered · 2 rejected (nothing pending, a choice not offered, no text where needed) · 3 no such run or task',
    )
      .usage('<runId> <taskId> <choice> ["text"] [--json]')
      .argument('<taskId>', 'the task whose worker asks')
      .argument('<choice>', 'the number 1-4 of the choice')
      // Unquoted guidance words are joined, so `consult r t guidance use lib/x.ts` works too.
      .argument('[text...]', "your guidance or what to look at, for the choices that need it (it goes into the task's next worker request)")
      .action(
        act(ctx, async (runId: string, taskId: string, choice: string, words: string[], o: { json?: boolean }) => {
          const guidance = words.join(' ') || undefined;
          const backend = await ctx.connect();
          await ensureRunWorker(ctx, backend, runId, { required: true });
          const ack = await rejectedIsUsage(answerConsultation(backend.client, runId, taskId, { choice, guidance }));
          if (o.json) ctx.json(ack);
          else ctx.print(`Answered task ${ack.taskId} (${ack.consultationId}): ${ack.choice}`);
          return EXIT.OK;
        }),
      )
  );
}
