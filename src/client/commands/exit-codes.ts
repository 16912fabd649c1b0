// What the CLI prints for an error and the exit code it ends with: one table from error class to
// exit code (the codes are documented in `replanner --help`), and parse errors as one line naming
// what is wrong and where to read the command's help.
import type { Command, CommanderError } from 'commander';
import { ConfigError } from '../../domain/config/issues';
import { replannerCommand } from '../../domain/printed-commands';
import { BackendError } from '../backend';
import { ModelRefused, ModelUnreachable, NoWorker, NotFound } from '../errors';
import { WorkerStartError } from '../worker-start';
import { NoWorkspaceHost } from '../workspace-host';
import { EXIT, UsageError } from './context';

/** Exit code by error class; any other error exits 1. */
const EXIT_OF: [abstract new (...args: never[]) => Error, number][] = [
  [UsageError, EXIT.USAGE],
  // An invalid config (file, env override, a worker setting of this shell) is the user's input.
  [ConfigError, EXIT.USAGE],
  // `run`: the model server refused this shell's key or address (the settings are the user's input).
  [ModelRefused, EXIT.USAGE],
  // Nothing to talk to: no Temporal server, no such run, no worker for it and none can be started here.
  [BackendError, EXIT.UNAVAILABLE],
  [NotFound, EXIT.UNAVAILABLE],
  [WorkerStartError, EXIT.UNAVAILABLE],
  [NoWorker, EXIT.UNAVAILABLE],
  [NoWorkspaceHost, EXIT.UNAVAILABLE],
  // `run`: no model answers where this shell's settings say.
  [ModelUnreachable, EXIT.UNAVAILABLE],
];

export function exitCodeOf(e: unknown): number {
  return EXIT_OF.find(([type]) => e instanceof type)?.[1] ?? EXIT.RUN_NOT_DONE;
}

/** The line an error of `command`'s action prints: a usage error names the command's help. */
export function errorLine(e: unknown, command: Command): string {
  const message = e instanceof Error ? e.message : String(e);
  return e instanceof UsageError ? `replanner: ${message} (see: ${helpOf(command)})` : `replanner: ${message}`;
}

/**
 * One line for what the parser refused, e.g. `replanner: unknown option '--x' for 'run' (see:
 * npx replanner run --help)`: never the whole help.
 */
export function parseErrorLine(e: CommanderError, command: Command): string {
  const path = pathOf(command);
  const [first = '', ...more] = e.message.replace(/^error: /, '').split('\n');
  // commander's "(Did you mean --workspace?)" on the next line.
  const suggestion = more
    .join(' ')
    .trim()
    .replace(/^\((.*)\)$/, '$1');
  const forCommand = path ? ` for '${path}'` : '';
  let what: string;
  switch (e.code) {
    case 'commander.missingArgument':
      what = `${first.replace('missing required argument', 'missing argument')}${forCommand}: ${replannerCommand(path, command.usage())}`;
      break;
    case 'commander.excessArguments': {
      const expected = command.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
      what = `${path} takes ${expected.length ? `only ${expected.join(' ')}` : 'no arguments'} (got "${command.args.join(' ')}")`;
      break;
    }
    case 'commander.unknownCommand':
      what = first.replace(/^unknown command/, path ? `unknown ${path} command` : 'unknown command');
      break;
    default:
      what = `${first}${forCommand}`;
  }
  return `replanner: ${what}${suggestion ? `; ${suggestion.charAt(0).toLowerCase()}${suggestion.slice(1)}` : ''} (see: ${helpOf(command)})`;
}

/** "worker stop" for `replanner worker stop`; "" for the program itself. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function helpOf(command: Command): string {
  const path = pathOf(command);
  return path ? replannerCommand(path, '--help') : replannerCommand('--help');
}
