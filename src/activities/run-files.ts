// Where a run keeps what must not go into workflow history: transcripts, logs, the LLM journal.
// Layout: <workspace>/.replanner/runs/<runId>/...
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { instructionFilePath } from '../domain/run-input';

export function runDir(workspace: string, runId: string): string {
  return path.join(workspace, '.replanner', 'runs', safeName(runId));
}

export function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
}

// A directory made once is not made again: the journal and the transcripts write several small
// files per LLM call into a few directories.
const madeDirs = new Set<string>();

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const dir = path.dirname(file);
  if (!madeDirs.has(dir)) {
    await fs.mkdir(dir, { recursive: true });
    if (madeDirs.size > 10_000) madeDirs.clear();
    madeDirs.add(dir);
  }
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await fs.writeFile(tmp, JSON.stringify(value, null, 1));
  } catch (err) {
    // Removed since it was made (a workspace cleaned under a long-lived worker): make it again.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(tmp, JSON.stringify(value, null, 1));
  }
  await fs.rename(tmp, file);
}

export async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Keeps head and tail of a long text, saying how much was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 40) / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} chars cut …]\n${text.slice(-half)}`;
}

/** A file-given instruction is read whole up to this size; prompts keep its head and tail (C5). */
const MAX_INSTRUCTION_FILE_BYTES = 16 * 1024 * 1024;

/**
 * S3: the instruction a prompt is built from: the run input's text, or with `instructionFile` the
 * whole file stored beside the run. Only the run's own file is read (the workflow checked it too):
 * whatever is read goes to the LLM, so a forged path must not reach any other file.
 */
export async function readInstruction(run: { runId: string; workspace: string; instruction: string; instructionFile?: string }): Promise<string> {
  if (run.instructionFile === undefined) return run.instruction;
  const expected = instructionFilePath(run.workspace, run.runId);
  if (run.instructionFile !== expected) {
    throw ApplicationFailure.nonRetryable(`the instruction file must be ${expected}`, 'InvalidInput');
  }
  let st;
  try {
    st = await fs.lstat(expected);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`the instruction file ${expected} cannot be read: ${(err as Error).message}`, 'InvalidInput');
  }
  if (!st.isFile() || st.size > MAX_INSTRUCTION_FILE_BYTES) {
    throw ApplicationFailure.nonRetryable(
      `the instruction file ${expected} must be a regular file of at most ${MAX_INSTRUCTION_FILE_BYTES} bytes`,
      'InvalidInput',
    );
  }
  return fs.readFile(expected, 'utf8');
}
