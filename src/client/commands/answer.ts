// `replanner answer <runId> <questionId> "<text>"`: answer a question of the run.
import type { Command } from 'commander';
import { AlreadyEnded } from '../errors';
import { answeredLine } from '../question-asker';
import { answerQuestion } from '../run-updates';
import { act, ensureRunWorker, EXIT, rejectedIsUsage, UsageError, runCommandNamed, type CliContext } from './context';
import { replannerCommand } from '../../domain/printed-commands';

export function answerCommand(ctx: CliContext): Command {
  return (
    runCommandNamed(
      'answer',
      'answer a question of the run (clarification; confirmation: yes|no; escalation; budget: "raise <tokens>" | "raise $<usd>" | stop)',
      '0 answered · 1 the run already ended · 2 the answer was rejected (unknown question, no longer pending, not yes/no) · 3 no such run',
    )
      .usage('<runId> <questionId> "<text>" [--json]')
      .argument('<questionId>', 'the question, as `status` shows it (q1, q2, …)')
      // Unquoted answer words are joined, so `answer r q1 use JSON` works too.
      .argument('<text...>', 'the answer')
      .action(
        act(ctx, async (runId: string, questionId: string, words: string[], o: { json?: boolean }) => {
          const text = words.join(' ').trim();
          if (!text)
            throw new UsageError(
              `answer needs a run id, a question id and the answer: ${replannerCommand('answer', '<runId> <questionId> "<text>"')}`,
            );
          const backend = await ctx.connect();
          await ensureRunWorker(ctx, backend, runId, { required: true });
          let ack;
          try {
            ack = await rejectedIsUsage(answerQuestion(backend.client, runId, questionId, text));
          } catch (e) {
            if (!(e instanceof AlreadyEnded)) throw e;
            if (o.json) ctx.json({ runId, answered: false, reason: e.message });
            else ctx.say(`replanner: ${e.message}`);
            return EXIT.RUN_NOT_DONE;
          }
          if (o.json) ctx.json(ack);
          else ctx.print(answeredLine(ack));
          return EXIT.OK;
        }),
      )
  );
}
