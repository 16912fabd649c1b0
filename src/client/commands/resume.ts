// `replanner resume <runId>`: continue a paused run where it stopped (after an LLM pause it
// retries the LLM at once; a budget pause ends only by answering its question).
import type { Command } from 'commander';
import { act, runCommandNamed, type CliContext } from './context';
import { PAUSE_EXIT_CODES, pauseOrResume } from './pause';

export function resumeCommand(ctx: CliContext): Command {
  return runCommandNamed('resume', 'resume a paused run where it stopped (after an LLM pause: retry the LLM at once)', PAUSE_EXIT_CODES).action(
    act(ctx, (runId: string, o: { json?: boolean }) => pauseOrResume(ctx, runId, 'resume', o)),
  );
}
