// The `replanner` command line: the program's wiring. Each command is in commands/ (its arguments,
// options, help and action); this file parses with commander, turns a parse error into one line
// naming it and the command's help, and an error into the exit code of commands/exit-codes.ts.
import { Command, CommanderError } from 'commander';
import type { Client } from '@temporalio/client';
import { connect, ensureBackend, type Backend } from './backend';
import { answerCommand } from './commands/answer';
import { cancelCommand } from './commands/cancel';
import { consultCommand } from './commands/consult';
import { EXIT, type CliContext, type Input, type Output } from './commands/context';
import { decisionsCommand } from './commands/decisions';
import { diffCommand } from './commands/diff';
import { doctorCommand } from './commands/doctor';
import { errorLine, exitCodeOf, parseErrorLine } from './commands/exit-codes';
import { listCommand } from './commands/list';
import { pauseCommand } from './commands/pause';
import { resumeCommand } from './commands/resume';
import { runCommand } from './commands/run';
import { statusCommand } from './commands/status';
import { watchCommand } from './commands/watch';
import { workerCommand } from './commands/worker';
import { HELP } from './help';
import { QuestionAsker } from './question-asker';

export { EXIT };

/** A parse error of `command` (unknown option, missing argument, …), thrown by commander's exit override. */
class ParseError extends Error {
  constructor(
    readonly error: CommanderError,
    readonly command: Command,
  ) {
    super(error.message, { cause: error });
  }
}

export async function main(
  argv: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
  input: Input = process.stdin,
): Promise<number> {
  const say = (s: string) => err.write(`${s}\n`);
  if (!argv.length) {
    say(HELP);
    return EXIT.USAGE;
  }
  let backend: Backend | undefined;
  let asker: QuestionAsker | undefined;
  let code: number = EXIT.OK;
  const ctx: CliContext = {
    print: (s) => out.write(`${s}\n`),
    say,
    json: (v) => out.write(`${JSON.stringify(v, null, 2)}\n`),
    out,
    err,
    input,
    connect: async () => (backend ??= await connect()),
    ensureBackend: async () => (backend ??= await ensureBackend(say)),
    askQuestions: (client: Client, runId: string, o: { ask?: boolean; json?: boolean }) => {
      if (!o.ask && (o.json || !input.isTTY)) return undefined;
      return (asker = new QuestionAsker(client, runId, input, o.json ? err : out));
    },
    exit: (c) => (code = c),
  };
  const program = buildProgram(ctx);
  let current: Command = program;
  program.hook('preAction', (_program, action) => {
    current = action;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof ParseError) {
      if (e.error.code === 'commander.helpDisplayed' || e.error.code === 'commander.help') return e.error.exitCode ? EXIT.USAGE : EXIT.OK;
      say(parseErrorLine(e.error, e.command));
      return EXIT.USAGE;
    }
    say(errorLine(e, current));
    return exitCodeOf(e);
  } finally {
    await asker?.close();
    await backend?.close();
  }
}

/** The program and its commands, writing to the context's streams; parse errors throw ParseError. */
function buildProgram(ctx: CliContext): Command {
  const program = new Command('replanner').description('a durable, self-replanning LLM agent orchestrator on Temporal');
  // `replanner --help` is the whole CLI on one page; each command's own help lists its options.
  program.helpInformation = () => `${HELP}\n`;
  for (const make of [
    runCommand,
    statusCommand,
    watchCommand,
    answerCommand,
    decisionsCommand,
    diffCommand,
    listCommand,
    cancelCommand,
    pauseCommand,
    resumeCommand,
    consultCommand,
    workerCommand,
    doctorCommand,
  ]) {
    program.addCommand(make(ctx));
  }
  configure(program, ctx);
  return program;
}

/** Every command: output to the context, no process.exit, each command's options its own. */
function configure(cmd: Command, ctx: CliContext): void {
  cmd.configureOutput({ writeOut: (s) => ctx.out.write(s), writeErr: (s) => ctx.err.write(s), outputError: () => undefined }).exitOverride((e) => {
    throw new ParseError(e, cmd);
  });
  if (cmd.commands.length) cmd.enablePositionalOptions();
  for (const sub of cmd.commands) configure(sub, ctx);
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
