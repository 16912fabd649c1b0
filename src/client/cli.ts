// The `replanner` command line: the program's wiring. Each command is in commands/ (its arguments,
// options, help and action); this file parses with commander, turns a parse error into one line
// naming it and the command's help, and an error into the exit code of commands/exit-codes.ts.
import { Command, CommanderError } from 'commander';
import type { Client } from '@temporalio/client';
import type { Backend } from './backend';
import { EXIT, type CliContext, type Input, type Output } from './commands/context';
import { helpText } from './help';
import { REPLANNER } from '../domain/printed-commands';
import type { QuestionAsker } from './question-asker';
import { isVersionFlag, printVersion } from './version';

export { EXIT };

type CommandMaker = (ctx: CliContext) => Command;

/**
 * Every command, in the order of the help, and where it is defined. A command's module (and what it
 * imports: the Temporal client, the worker, the LLM client, …) is loaded only when the command line
 * names it, so `replanner status` starts without the code of `run` or `worker`.
 */
const COMMANDS: Record<string, () => Promise<CommandMaker>> = {
  run: () => import('./commands/run').then((m) => m.runCommand),
  status: () => import('./commands/status').then((m) => m.statusCommand),
  watch: () => import('./commands/watch').then((m) => m.watchCommand),
  answer: () => import('./commands/answer').then((m) => m.answerCommand),
  decisions: () => import('./commands/decisions').then((m) => m.decisionsCommand),
  diff: () => import('./commands/diff').then((m) => m.diffCommand),
  list: () => import('./commands/list').then((m) => m.listCommand),
  cancel: () => import('./commands/cancel').then((m) => m.cancelCommand),
  pause: () => import('./commands/pause').then((m) => m.pauseCommand),
  resume: () => import('./commands/resume').then((m) => m.resumeCommand),
  consult: () => import('./commands/consult').then((m) => m.consultCommand),
  worker: () => import('./commands/worker').then((m) => m.workerCommand),
  doctor: () => import('./commands/doctor').then((m) => m.doctorCommand),
  'scripted-model': () => import('./commands/scripted-model').then((m) => m.scriptedModelCommand),
  temporal: () => import('./commands/temporal').then((m) => m.temporalCommand),
};

/** The commands the command line names: its first word, or the one after `help`. */
function commandsNamedIn(argv: string[]): string[] {
  const name = argv[0] === 'help' ? argv[1] : argv[0];
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? [name] : [];
}

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
  if (isVersionFlag(argv[0]!)) return printVersion(argv.slice(1), out, say);
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
    connect: async () => (backend ??= await (await import('./backend')).connect()),
    ensureServer: async () => (backend ??= await (await import('./backend')).serverBackend(say)),
    askQuestions: (client: Client, runId: string, o: { ask?: boolean; json?: boolean }) => {
      if (!o.ask && (o.json || !input.isTTY)) return undefined;
      // Loaded only by the commands that ask (watch, run --wait), and synchronously, as they expect.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { QuestionAsker: Asker } = require('./question-asker') as typeof import('./question-asker');
      return (asker = new Asker(client, runId, input, o.json ? err : out));
    },
    exit: (c) => (code = c),
  };
  // The error line on stderr; with --json also as JSON on stdout, for scripts that read only that.
  const failed = (line: string, exitCode: number, type: string): number => {
    say(line);
    if (argv[0] !== 'temporal' && argv.includes('--json')) ctx.json({ error: { message: line.replace(/^replanner: /, ''), type, exitCode } });
    return exitCode;
  };
  const program = await buildProgram(ctx, commandsNamedIn(argv));
  let current: Command = program;
  program.hook('preAction', (_program, action) => {
    current = action;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof ParseError && (e.error.code === 'commander.helpDisplayed' || e.error.code === 'commander.help')) {
      return e.error.exitCode ? EXIT.USAGE : EXIT.OK;
    }
    // The table of errors names every command's error classes: loaded when one is thrown.
    const { errorLine, exitCodeOf, parseErrorLine } = await import('./commands/exit-codes');
    if (e instanceof ParseError) {
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

/**
 * The program and its commands, writing to the context's streams; parse errors throw ParseError.
 * Only the commands in `load` are defined in full; the others are their names alone, for the
 * parser's "unknown command … Did you mean …?".
 */
async function buildProgram(ctx: CliContext, load: string[]): Promise<Command> {
  // Positional options: what follows a command is its own (`replanner temporal …` passes it all on).
  // Named as it is typed (each command's help says "Usage: npx replanner run …").
  const program = new Command(REPLANNER).description('a durable, self-replanning LLM agent orchestrator on Temporal').enablePositionalOptions();
  // `replanner --help` is the whole CLI on one page; each command's own help lists its options.
  program.helpInformation = () => `${helpText()}\n`;
  for (const [name, make] of Object.entries(COMMANDS)) {
    program.addCommand(load.includes(name) ? (await make())(ctx) : new Command(name));
  }
  configure(program, ctx);
  return program;
}

/** Every command's path (`['worker', 'stop']`), from the program itself: what has a `--help` of its own. */
export async function commandPaths(): Promise<string[][]> {
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
  walk(await buildProgram(ctx, Object.keys(COMMANDS)), []);
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
