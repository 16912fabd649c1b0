// `replanner doctor`: can a run started from this shell succeed? (The checks are in ../doctor.ts.)
import { Command } from 'commander';
import { DOCTOR_NOTES, renderDoctor, runDoctor } from '../doctor';
import { act, EXIT, type CliContext } from './context';

export function doctorCommand(ctx: CliContext): Command {
  return new Command('doctor')
    .description('check that a run started from this shell can succeed')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `\n${DOCTOR_NOTES}`)
    .action(
      act(ctx, async (o: { json?: boolean }) => {
        const report = await runDoctor();
        if (o.json) ctx.json(report);
        else ctx.print(renderDoctor(report));
        return report.ok ? EXIT.OK : EXIT.RUN_NOT_DONE;
      }),
    );
}
