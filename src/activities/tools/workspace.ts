// Workspace confinement: every path a tool touches must stay inside the workspace root,
// lexically and after following symlinks (also for paths that do not exist yet).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ToolError } from './types';

const MAX_SYMLINK_HOPS = 40;
/** The run's own state under the workspace (journal, transcripts): never written by a tool. */
const RUN_STATE_DIR = '.replanner';
const isRunState = (rel: string): boolean => rel === RUN_STATE_DIR || rel.startsWith(`${RUN_STATE_DIR}/`);
/** Git metadata (any path component `.git`): the worker's own git runs what it names, outside the sandbox. */
export const isGitMetadata = (rel: string): boolean => rel.split('/').includes('.git');
/** Where no tool writes: the run's own state and git metadata. */
export const isForbiddenToWrite = (rel: string): boolean => isRunState(rel) || isGitMetadata(rel);

export interface ResolvedPath {
  /** Absolute path under the (real) workspace root, symlinks not followed. */
  abs: string;
  /** Path relative to the workspace root, '/'-separated, '.' for the root. */
  rel: string;
}

/** Real path of the workspace root (throws ToolError if it is not a directory). */
export async function workspaceRoot(workspace: string): Promise<string> {
  let root: string;
  try {
    root = await fsp.realpath(path.resolve(workspace));
  } catch {
    throw new ToolError(`workspace does not exist: ${workspace}`);
  }
  const st = await fsp.stat(root);
  if (!st.isDirectory()) throw new ToolError(`workspace is not a directory: ${workspace}`);
  return root;
}

export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

export function toRel(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/**
 * Resolves a model-supplied path against the real workspace root. Refuses absolute paths,
 * paths that leave the root via '..', and paths whose symlinks (including dangling ones and
 * those in not-yet-existing parents) lead outside.
 */
export async function resolveInWorkspace(root: string, field: string, input: string, opts: { write?: boolean } = {}): Promise<ResolvedPath> {
  const outside = () =>
    new ToolError(`'${field}' is outside the workspace: ${input} (paths must be relative to the workspace root and stay inside it)`);
  if (input.includes('\0')) throw new ToolError(`'${field}' contains a NUL character`);
  if (path.isAbsolute(input) || path.win32.isAbsolute(input)) throw outside();
  const abs = path.resolve(root, input);
  if (!isInside(root, abs)) throw outside();
  const real = await realpathLoose(abs, 0);
  if (real === null || !isInside(root, real)) throw outside();
  // The run's own state (journal, transcripts, instruction) is not the worker's to write: a forged
  // journal entry would be replayed as an LLM answer. Checked on the path and on where it really leads.
  if (opts.write && (isRunState(toRel(root, abs)) || isRunState(toRel(root, real)))) {
    throw new ToolError(`'${field}' is inside .replanner/, which holds the run's journal and transcripts; tools may not write there: ${input}`);
  }
  if (opts.write && (isGitMetadata(toRel(root, abs)) || isGitMetadata(toRel(root, real)))) {
    throw new ToolError(
      `'${field}' is inside a .git directory: the run's git metadata is not the tools' to write (the run commits the task's files itself): ${input}`,
    );
  }
  return { abs, rel: toRel(root, abs) };
}

/**
 * realpath that also works for paths that do not exist: resolves the nearest existing
 * ancestor and follows dangling symlinks by hand. Returns null on symlink loops.
 */
async function realpathLoose(p: string, hops: number): Promise<string | null> {
  if (hops > MAX_SYMLINK_HOPS) return null;
  try {
    return await fsp.realpath(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return null;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  let st;
  try {
    st = await fsp.lstat(p);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) {
    // A dangling symlink: writing through it would create its target, so check the target.
    const target = await fsp.readlink(p);
    return realpathLoose(path.resolve(path.dirname(p), target), hops + 1);
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = await realpathLoose(parent, hops);
  return realParent === null ? null : path.join(realParent, path.basename(p));
}
