// The `replanner` command line: the program's wiring. Each command is in commands/ (its arguments,
// options, help and action); this file parses with commander, turns a parse error into one line
// naming it and the command's help, and an error into the exit code of commands/exit-codes.ts.
import { Command, CommanderError } from 'commander';
import type { Client } from '@temporalio/client';
import { connect, serverBackend, type Backend } from './backend';
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
import { scriptedModelCommand } from './commands/scripted-model';
import { statusCommand } from './commands/status';
import { temporalCommand } from './commands/temporal';
import { watchCommand } from './commands/watch';
import { workerCommand } from './commands/worker';
import { helpText } from './help';
import { REPLANNER } from '../domain/printed-commands';
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
  for (const stream of [out, err]) endQuietlyWhenClosed(stream);
  if (!argv.length) {
    say(helpText());
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
    ensureServer: async () => (backend ??= await serverBackend(say)),
    askQuestions: (client: Client, runId: string, o: { ask?: boolean; json?: boolean }) => {
      if (!o.ask && (o.json || !input.isTTY)) return undefined;
      return (asker = new QuestionAsker(client, runId, input, o.json ? err : out));
    },
    exit: (c) => (code = c),
  };
  // The error line on stderr; with --json also as JSON on stdout, for scripts that read only that.
  const failed = (line: string, exitCode: number, type: string): number => {
    say(line);
    if (argv[0] !== 'temporal' && argv.includes('--json')) ctx.json({ error: { message: line.replace(/^replanner: /, ''), type, exitCode } });
    return exitCode;
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
      return failed(parseErrorLine(e.error, e.command), EXIT.USAGE, 'UsageError');
    }
    return failed(errorLine(e, current), exitCodeOf(e), e instanceof Error ? e.constructor.name : 'Error');
  } finally {
    await asker?.close();
    await backend?.close();
  }
}

/**
 * `replanner watch <id> | head`: once the reader has gone, a write fails with EPIPE. That is the
 * reader's choice, not an error: the CLI ends at once, quietly, with exit 0.
 */
function endQuietlyWhenClosed(stream: Output): void {
  const std = stream === process.stdout ? process.stdout : stream === process.stderr ? process.stderr : undefined;
  if (std && !std.listeners('error').includes(closedPipe)) std.on('error', closedPipe);
}

function closedPipe(e: NodeJS.ErrnoException): void {
  if (e.code === 'EPIPE') process.exit(EXIT.OK);
  throw e;
}

/** The program and its commands, writing to the context's streams; parse errors throw ParseError. */
function buildProgram(ctx: CliContext): Command {
  // Positional options: what follows a command is its own (`replanner temporal …` passes it all on).
  // Named as it is typed (each command's help says "Usage: npx replanner run …").
  const program = new Command(REPLANNER).description('a durable, self-replanning LLM agent orchestrator on Temporal').enablePositionalOptions();
  // `replanner --help` is the whole CLI on one page; each command's own help lists its options.
  program.helpInformation = () => `${helpText()}\n`;
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
    scriptedModelCommand,
    temporalCommand,
  ]) {
    program.addCommand(make(ctx));
  }
  configure(program, ctx);
  return program;
}

/** Every command's path (`['worker', 'stop']`), from the program itself: what has a `--help` of its own. */
export function commandPaths(): string[][] {
  const nothing = () => undefined;
  const ctx = {
    print: nothing,
    say: nothing,
    json: nothing,
    out: process.stdout,
    err: process.stderr,
    input: process.stdin,
    exit: nothing,
  } as unknown as CliContext;
  const paths: string[][] = [];
  const walk = (cmd: Command, at: string[]) => {
    for (const sub of cmd.commands) {
      paths.push([...at, sub.name()]);
      walk(sub, [...at, sub.name()]);
    }
  };
  walk(buildProgram(ctx), []);
  return paths;
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
