// `replanner resume <runId>` (O1): continue a paused run where it stopped (after an LLM pause it
// retries the LLM at once, O2; a budget pause ends only by answering its question, O3).
import { Command } from 'commander';
import { act, type CliContext } from './context';
import { PAUSE_EXIT_CODES, pauseOrResume } from './pause';

export function resumeCommand(ctx: CliContext): Command {
  return new Command('resume')
    .description('resume a paused run where it stopped (after an LLM pause: retry the LLM at once)')
    .argument('<runId>', 'the run')
    .option('--json', 'machine-readable output')
    .addHelpText('after', PAUSE_EXIT_CODES)
    .action(act(ctx, (runId: string, o: { json?: boolean }) => pauseOrResume(ctx, runId, 'resume', o)));
}
