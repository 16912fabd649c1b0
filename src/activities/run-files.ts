// Where a run keeps what must not go into workflow history: transcripts, logs, the LLM journal.
// Layout: <workspace>/.replanner/runs/<runId>/...
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export function runDir(workspace: string, runId: string): string {
  return path.join(workspace, '.replanner', 'runs', safeName(runId));
}

export function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(value, null, 1));
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
