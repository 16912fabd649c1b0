// What every command of the `replanner` CLI gets: where to print, the Temporal connection (opened
// on demand, closed by the program when the command ends), the terminal question asker, and the
// errors and exit codes the program turns into its exit status.
import { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { Backend } from '../backend';
import type { QuestionAsker } from '../question-asker';
import { AnswerRejected } from '../errors';
import { workflowIdOf } from '../../workflows/run-id';

/**
 * Exit codes: 0 ok (a waited run ended DONE), 1 the run ended BLOCKED/FAILED/CANCELLED/STOPPED/
 * TERMINATED/TIMED_OUT, 2 usage error, invalid config or rejected answer, 3 Temporal unreachable,
 * run not found, or no worker polls the run's queue.
 */
export const EXIT = { OK: 0, RUN_NOT_DONE: 1, USAGE: 2, UNAVAILABLE: 3 } as const;

/** The command line asks for something it cannot do (exit 2); the program names the command's help. */
export class UsageError extends Error {}

export interface Output {
  write(s: string): unknown;
}

/** Where `watch` / `run --wait` read answers to questions from (stdin by default). */
export type Input = NodeJS.ReadableStream & { isTTY?: boolean };

export interface CliContext {
  /** A line on stdout. */
  print: (s: string) => void;
  /** A line on stderr. */
  say: (s: string) => void;
  /** A value as pretty JSON on stdout (--json). */
  json: (v: unknown) => void;
  out: Output;
  err: Output;
  input: Input;
  /** The Temporal server at TEMPORAL_ADDRESS (BackendError when none answers). */
  connect(): Promise<Backend>;
  /** Like connect, but starts the local dev server when nothing answers (`run`; it starts the worker itself). */
  ensureServer(): Promise<Backend>;
  /**
   * Asks the run's pending questions on the terminal when `--ask` is given, or stdin is a terminal
   * and the output is not JSON (then the prompts go to stderr so stdout stays parseable).
   */
  askQuestions(client: Client, runId: string, o: { ask?: boolean; json?: boolean }): QuestionAsker | undefined;
  /** Sets the program's exit code. */
  exit(code: number): void;
}

/** A command's action: its result is the program's exit code. */
export function act<A extends unknown[]>(ctx: CliContext, fn: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => ctx.exit(await fn(...args));
}

/** A running run's task queue needs a live worker for the command to take effect. */
export async function ensureRunWorker(
  ctx: CliContext,
  backend: Backend,
  runId: string,
  o: { restart?: boolean; required?: boolean } = {},
): Promise<void> {
  const desc = await backend.client.workflow
    .getHandle(workflowIdOf(runId))
    .describe()
    .catch(() => undefined);
  // An unknown or finished run needs no worker: the command itself says so.
  if (desc?.status.name !== 'RUNNING') return;
  // Loaded here, not with the program: the commands that never start a worker do without it.
  const { ensureWorkerForQueue } = await import('../worker-start');
  await ensureWorkerForQueue(backend.connection, backend, desc.taskQueue, ctx.say, process.env, o.restart, o.required);
}

/** A validator's rejection of an answer is the user's input error (exit 2), with its reason. */
export async function rejectedIsUsage<T>(answering: Promise<T>): Promise<T> {
  try {
    return await answering;
  } catch (e) {
    if (e instanceof AnswerRejected) throw new UsageError(`the answer was rejected: ${e.message}`, { cause: e });
    throw e;
  }
}

/** A command about one run: its `<runId>` argument (more may follow), `--json`, and its exit codes in its help. */
export function runCommandNamed(name: string, description: string, exitCodes?: string): Command {
  const command = new Command(name)
    .description(description)
    .argument('<runId>', 'the run (or its workflow id run-<id>)')
    .option('--json', 'machine-readable output');
  return exitCodes ? command.addHelpText('after', `\nExit codes: ${exitCodes}`) : command;
}

/** The action of a command about one run, on the connected server. */
export function onRun<A extends unknown[]>(
  ctx: CliContext,
  fn: (backend: Backend, runId: string, ...rest: A) => Promise<number>,
): (runId: string, ...rest: A) => Promise<void> {
  return act(ctx, async (runId: string, ...rest: A) => fn(await ctx.connect(), runId, ...rest));
}
