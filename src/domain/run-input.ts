// What a run may be started with (bounds with clear errors, S3), checked by the CLI before anything starts (exit 2) and again by
// the workflow (anyone who can reach Temporal can start one). Pure: no Temporal, no I/O.
import { clipAfter } from './text';
import { replannerCommand } from './printed-commands';

/**
 * The instruction travels in the run's input and in every LLM activity's input, so it must stay far
 * below Temporal's 2 MB payload limit and keep history small. Longer instructions come by file
 * (`--instruction-file`: stored beside the run, the input carries its head and path; see below).
 */
export const MAX_INSTRUCTION_CHARS = 64_000;

/** Run ids become workflow ids (`run-<id>`) and directory names. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Undefined when valid, else what is wrong and what to do. */
export function instructionProblem(instruction: unknown): string | undefined {
  if (typeof instruction !== 'string') return 'the instruction must be text';
  if (!instruction.trim()) return 'the instruction is empty: say what the run should achieve';
  if (instruction.length > MAX_INSTRUCTION_CHARS) {
    return (
      `the instruction has ${instruction.length} characters; the limit is ${MAX_INSTRUCTION_CHARS} ` +
      `(it is carried into every LLM call). Give a longer one with \`${replannerCommand('run', '--instruction-file FILE')}\` (or \`-\` for stdin), ` +
      'or put the details in a file in the workspace and name it in a shorter instruction.'
    );
  }
  return undefined;
}

export function runIdProblem(runId: unknown): string | undefined {
  if (typeof runId !== 'string' || !RUN_ID.test(runId)) {
    return `invalid run id ${JSON.stringify(runId)}: 1-64 characters, letters, digits, '.', '_' or '-', starting with a letter or digit`;
  }
  return undefined;
}

/** A count given on the command line: a whole number in [min, max]. */
export function countProblem(name: string, raw: string, min: number, max: number): string | undefined {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n < min || n > max) {
    return `${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`;
  }
  return undefined;
}

/** A long instruction (--instruction-file / stdin) lives in this file beside the run; the input carries its head. */
export const INSTRUCTION_FILE = 'instruction.md';
/** How much of a file-given instruction the run input carries (status, memo, list). */
export const INSTRUCTION_HEAD_CHARS = 2000;

/** `<workspace>/.replanner/runs/<runId>/instruction.md`: the only place an instruction file may be read from. */
export function instructionFilePath(workspace: string, runId: string): string {
  const root = workspace.length > 1 ? workspace.replace(/\/+$/, '') : workspace;
  return `${root === '/' ? '' : root}/.replanner/runs/${runId}/${INSTRUCTION_FILE}`;
}

/** What the run input carries for an instruction given by file: a short head for display. */
export function instructionHead(instruction: string): string {
  return clipAfter(instruction, INSTRUCTION_HEAD_CHARS, ' …');
}

/**
 * The workflow's own check of what it was started with (anyone who can reach Temporal can start a
 * run, e.g. `temporal workflow start`): undefined when valid, else the reason. The instruction file,
 * when named, must be the run's own (an activity reads it into prompts sent to the LLM, so an
 * arbitrary path would leak any file the worker can read).
 */
export function runInputProblem(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return 'the run input must be an object';
  const i = input as { runId?: unknown; instruction?: unknown; workspace?: unknown; instructionFile?: unknown };
  const idProblem = runIdProblem(i.runId);
  if (idProblem) return idProblem;
  if (typeof i.workspace !== 'string' || !i.workspace.startsWith('/') || i.workspace.length > 4096) {
    return 'the workspace must be an absolute path';
  }
  const problem = instructionProblem(i.instruction);
  if (problem) return problem;
  if (i.instructionFile === undefined) return undefined;
  const expected = instructionFilePath(i.workspace, i.runId as string);
  if (i.instructionFile !== expected) {
    return `the instruction file must be the run's own ${JSON.stringify(expected)} (got ${typeof i.instructionFile === 'string' ? JSON.stringify(i.instructionFile.slice(0, 200)) : typeof i.instructionFile})`;
  }
  if ((i.instruction as string).length > INSTRUCTION_HEAD_CHARS + 2) {
    return `with an instruction file the input carries only its head (at most ${INSTRUCTION_HEAD_CHARS} characters)`;
  }
  return undefined;
}

/** A short, safe display of whatever was given as the instruction (for the status of a refused run). */
export function instructionForStatus(instruction: unknown): string {
  return typeof instruction === 'string' ? instructionHead(instruction) : '';
}
