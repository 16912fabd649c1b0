// Where a run keeps what must not go into workflow history: transcripts, logs, the LLM journal.
// Layout: <workspace>/.replanner/runs/<runId>/...
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
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

// What this process wrote last, by path (the text, so no reader can change it): reading a file back
// soon after writing it (the next worker step's conversation, the judge's evidence) needs no file
// system round trip. Only this process's own writes are kept; a file it never wrote is read from
// disk. Bounded by count and by size, oldest out first.
const recentWrites = new Map<string, string>();
let recentChars = 0;
const RECENT_MAX_FILES = 512;
const RECENT_MAX_CHARS = 8 * 1024 * 1024;

function remember(file: string, text: string): void {
  forget(file);
  recentWrites.set(file, text);
  recentChars += text.length;
  for (const oldest of recentWrites.keys()) {
    if (recentWrites.size <= RECENT_MAX_FILES && recentChars <= RECENT_MAX_CHARS) break;
    forget(oldest);
  }
}

function forget(file: string): void {
  const text = recentWrites.get(file);
  if (text === undefined) return;
  recentChars -= text.length;
  recentWrites.delete(file);
}

// Written and read synchronously: these files are small (a transcript step is at most a few hundred
// KB, most are under 1 KB) and local, so a call blocks the activities' event loop for tens of
// microseconds, while the promise API's several thread-pool round trips per file cost more CPU on a
// busy worker, and measurably slower runs at 16 parallel tasks (bench/README.md, "Parallel 16 (session 6)").
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const text = JSON.stringify(value, null, 1);
  const dir = path.dirname(file);
  if (!madeDirs.has(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    if (madeDirs.size > 10_000) madeDirs.clear();
    madeDirs.add(dir);
  }
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text);
  } catch (err) {
    // Removed since it was made (a workspace cleaned under a long-lived worker): make it again.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, text);
  }
  // Not remembered until it is on disk: a failed write leaves nothing to read back.
  forget(file);
  fs.renameSync(tmp, file);
  remember(file, text);
}

/** Removes a file written by writeJsonAtomic (a journaled reply that failed its check); gone already is fine. */
export async function removeJournaled(file: string): Promise<void> {
  forget(file);
  fs.rmSync(file, { force: true });
}

export async function readJson<T>(file: string): Promise<T | undefined> {
  const recent = recentWrites.get(file);
  if (recent !== undefined) return JSON.parse(recent) as T;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A file-given instruction is read whole up to this size; prompts keep its head and tail. */
const MAX_INSTRUCTION_FILE_BYTES = 16 * 1024 * 1024;

/**
 * The instruction a prompt is built from: the run input's text, or with `instructionFile` the
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
    st = await fsp.lstat(expected);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`the instruction file ${expected} cannot be read: ${(err as Error).message}`, 'InvalidInput');
  }
  if (!st.isFile() || st.size > MAX_INSTRUCTION_FILE_BYTES) {
    throw ApplicationFailure.nonRetryable(
      `the instruction file ${expected} must be a regular file of at most ${MAX_INSTRUCTION_FILE_BYTES} bytes`,
      'InvalidInput',
    );
  }
  return fsp.readFile(expected, 'utf8');
}
