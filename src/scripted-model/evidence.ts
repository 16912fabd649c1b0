// What the scripted model's judge reads, as a real judge would: the evidence block of a judge
// request (each tool call the worker made, then the start of what it answered). A last command that
// did not exit 0 (it failed, timed out, was not found, or the sandbox refused or could not start it)
// means the task is not done: the demo and the try-out end BLOCKED, naming the command and why,
// instead of DONE over a broken sandbox.
import { failureLine } from '../domain/worker-steps';
import type { RecordedRequest } from './types';

const EVIDENCE = 'EVIDENCE (tool calls and results, abridged):\n';
/** A tool call's line in the evidence: "> run_command {…}" (a command's own output may start with "> " too). */
const CALL = /^> (read_file|write_file|edit_file|list_dir|search_text|run_command) (.*)$/;

export interface FailedCommand {
  /** The command as the worker gave it (its argv joined by spaces). */
  command: string;
  /** Why, in one line (failureLine): "exit code 1: AssertionError …", "node not found in the sandbox's PATH: …". */
  reason: string;
}

/** The worker's last command in a judge request's evidence, when it did not end with exit code 0. */
export function failedCommand(req: RecordedRequest): FailedCommand | undefined {
  const at = req.text.indexOf(EVIDENCE);
  if (at < 0) return undefined;
  const lines = req.text.slice(at + EVIDENCE.length).split('\n');
  let last: FailedCommand | undefined;
  for (const [i, line] of lines.entries()) {
    const call = CALL.exec(line);
    if (call?.[1] !== 'run_command') continue;
    const end = lines.findIndex((l, j) => j > i && CALL.test(l));
    const answer = lines.slice(i + 1, end < 0 ? undefined : end).join('\n');
    last =
      answer.startsWith('exit code 0\n') || answer === 'exit code 0' ? undefined : { command: argvOf(call[2] ?? ''), reason: failureLine(answer) };
  }
  return last;
}

function argvOf(args: string): string {
  try {
    const argv = (JSON.parse(args) as { argv?: unknown }).argv;
    return Array.isArray(argv) ? argv.map(String).join(' ') : args;
  } catch {
    return args;
  }
}

/** The judge's reply to a task whose command failed: not done, nothing another attempt would change (BLOCKED). */
export function failedCommandVerdict(f: FailedCommand): Record<string, unknown> {
  return {
    success: false,
    shouldContinue: false,
    shouldReplan: false,
    reason: `scripted: the command \`${f.command}\` failed: ${f.reason}`,
    missingRequirements: [`\`${f.command}\` must succeed`],
    confidence: 0.9,
  };
}

/**
 * The reflection a real model would give when a task did not finish (read from the prompt's task
 * outcomes): partial success or failure, naming the tasks; undefined when every task is done.
 */
export function unfinishedReflection(req: RecordedRequest): Record<string, unknown> | undefined {
  const outcomes = [...req.text.matchAll(/^- \[([A-Z_]+)\] (\S+):/gm)].map((m) => ({ state: m[1]!, id: m[2]! }));
  const open = outcomes.filter((t) => t.state !== 'DONE');
  if (!open.length) return undefined;
  const done = outcomes.length - open.length;
  const named = open.map((t) => `${t.id} (${t.state})`).join(', ');
  return {
    evaluation_result: done ? 'partial_success' : 'failure',
    achievement_rate: Math.round((100 * done) / outcomes.length),
    issues_identified: open.map((t) => `task ${t.id} is ${t.state}`),
    additional_actions: [],
    revision_scope: 'minor',
    summary: `scripted: ${done} of ${outcomes.length} tasks done; not done: ${named}`,
  };
}
