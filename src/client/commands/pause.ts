// `replanner pause <runId> ["reason"]`: nothing new starts while paused (`resume` ends it).
import type { Command } from 'commander';
import { MAX_PAUSE_REASON_CHARS } from '../../domain/run/pause';
import type { PauseAck } from '../../workflows/messages';
import { RunEnded } from '../errors';
import { pauseRun, resumeRun } from '../run-updates';
import { act, ensureRunWorker, EXIT, UsageError, runCommandNamed, type CliContext } from './context';
import { replannerCommand } from '../../domain/printed-commands';

export const PAUSE_EXIT_CODES = '0 ok (also when nothing changed) · 1 the run already ended · 3 no such run, or no worker for it';

export function pauseCommand(ctx: CliContext): Command {
  return (
    runCommandNamed(
      'pause',
      'pause a run at its next safe point: no new phase, task, worker step or LLM call starts; calls in flight finish and are kept',
      PAUSE_EXIT_CODES,
    )
      // Unquoted reason words are joined, so `pause r waiting for review` works too.
      .argument('[reason...]', `why (shown by status; at most ${MAX_PAUSE_REASON_CHARS} characters)`)
      .action(
        act(ctx, async (runId: string, words: string[], o: { json?: boolean }) => {
          const reason = words.join(' ').trim();
          if (reason.length > MAX_PAUSE_REASON_CHARS) throw new UsageError(`the reason is longer than ${MAX_PAUSE_REASON_CHARS} characters`);
          return pauseOrResume(ctx, runId, 'pause', o, reason || undefined);
        }),
      )
  );
}

/** Sends the pause or resume Update to a running run (its worker started when it is gone) and says what changed. */
export async function pauseOrResume(
  ctx: CliContext,
  runId: string,
  cmd: 'pause' | 'resume',
  o: { json?: boolean },
  reason?: string,
): Promise<number> {
  const backend = await ctx.connect();
  // resume (after a 401, for instance) restarts the auto-started worker when the key differs.
  await ensureRunWorker(ctx, backend, runId, { restart: cmd === 'resume', required: true });
  try {
    const ack = cmd === 'pause' ? await pauseRun(backend.client, runId, reason) : await resumeRun(backend.client, runId);
    if (o.json) ctx.json(ack);
    else ctx.print(pauseLine(runId, cmd, ack));
    return EXIT.OK;
  } catch (e) {
    if (!(e instanceof RunEnded)) throw e;
    if (o.json) ctx.json({ runId, error: 'run already ended', status: e.status });
    ctx.say(`replanner: ${e.message}; nothing to ${cmd}`);
    return EXIT.RUN_NOT_DONE;
  }
}

/** What `pause` / `resume` say. */
function pauseLine(runId: string, cmd: 'pause' | 'resume', ack: PauseAck): string {
  // A budget pause ends only by answering its question.
  if (cmd === 'resume' && ack.status === 'PAUSED' && ack.pause?.kind === 'budget') {
    return `Run ${runId} is still paused by its budget (${ack.pause.reason ?? ''}); resume does not raise it: ${replannerCommand('answer', runId, '<questionId>', '"raise <tokens>"')} (or stop).`;
  }
  if (cmd === 'resume') return ack.changed ? `Run ${runId} resumed.` : `Run ${runId} is not paused (${ack.status}); nothing to resume.`;
  const why = ack.pause?.reason ? ` (${ack.pause.reason})` : '';
  return ack.changed
    ? `Run ${runId} paused${why}: calls in flight finish, nothing new starts. Resume: ${replannerCommand('resume', runId)}`
    : `Run ${runId} was already paused since ${ack.pause?.since ?? '?'}${why}.`;
}
