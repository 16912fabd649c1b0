// S1: a file tool reads or writes the file it checked, not whatever the path leads to a moment
// later. The tools run in the worker, outside the sandbox, while a command of a task running
// beside this one may swap a directory of the workspace for a symlink to elsewhere (the user's
// home, the worker's own files) between the check and the open. So the file is opened first
// (without blocking: a FIFO would hang the tool), and only then is the opened file's real path
// (Linux: /proc/self/fd) checked to be inside the workspace and outside the run's own state. A write that the check refuses has written nothing
// (the file is truncated only after the check); a file the open created where a swapped link led
// is removed again.
import { constants, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { ToolError } from './types';
import { isInside, toRel } from './workspace';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NONBLOCK, O_DIRECTORY } = constants;

/** Where the opened file really is, or undefined where the system cannot say (no /proc). */
async function openedPath(fh: FileHandle): Promise<string | undefined> {
  try {
    return await fsp.readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Opens `abs` (checked by resolveInWorkspace) to read or to write, and makes sure what was opened
 * is a regular file inside `root` (and, to write, outside `forbidden(rel)`); refuses otherwise.
 */
export async function openInside(
  root: string,
  abs: string,
  rel: string,
  mode: 'read' | 'write',
  forbidden: (rel: string) => boolean = () => false,
): Promise<FileHandle> {
  let fh: FileHandle;
  /** Whether this open made the file (only such a file is removed again when refused). */
  let created = false;
  try {
    if (mode === 'read') fh = await fsp.open(abs, O_RDONLY | O_NONBLOCK);
    else {
      fh = await fsp.open(abs, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK, 0o666).then(
        (h) => ((created = true), h),
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'EEXIST') return fsp.open(abs, O_WRONLY | O_NONBLOCK);
          throw err;
        },
      );
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENXIO') throw new ToolError(`${rel} is not a regular file (a pipe with no reader)`);
    throw err;
  }
  const refuse = async (why: string, made?: string) => {
    await fh.close();
    if (made) await fsp.unlink(made).catch(() => undefined);
    throw new ToolError(why);
  };
  const real = await openedPath(fh);
  const nothing = `nothing was ${mode === 'read' ? 'read' : 'written'}`;
  if (real !== undefined && !isInside(root, real)) {
    await refuse(
      `${rel} led outside the workspace when it was opened (a directory on its way was replaced by a symlink); ${nothing}`,
      created ? real : undefined,
    );
  }
  if (real !== undefined && mode === 'write' && forbidden(toRel(root, real))) {
    await refuse(`${rel} led into .replanner/ or .git/, which tools may not write, when it was opened; ${nothing}`, created ? real : undefined);
  }
  const st = await fh.stat();
  if (!st.isFile()) await refuse(st.isDirectory() ? `is a directory, not a file: ${rel}` : `${rel} is not a regular file`);
  return fh;
}

/** Opens the directory `dir`; undefined where what was opened is not inside `root` (it was closed again). */
export async function openDirInside(root: string, dir: string): Promise<FileHandle | undefined> {
  const fh = await fsp.open(dir, O_RDONLY | O_DIRECTORY);
  const real = await openedPath(fh);
  if (real !== undefined && isInside(root, real)) return fh;
  await fh.close();
  return undefined;
}

/**
 * Creates the directories missing on the way to `dir` (inside `root`), each one inside the
 * directory opened and checked a step before (made through /proc/self/fd/N/name, which the kernel
 * resolves from the open directory, not from the path again): a directory on the way swapped for
 * a link out of the workspace is refused, with nothing made outside, where `mkdir -p` would follow it.
 */
export async function mkdirInside(root: string, dir: string, rel: string): Promise<void> {
  const parts = path
    .relative(root, dir)
    .split(path.sep)
    .filter((p) => p !== '' && p !== '.');
  let at = await fsp.open(root, O_RDONLY | O_DIRECTORY);
  try {
    for (const part of parts) {
      const child = `/proc/self/fd/${at.fd}/${part}`;
      await fsp.mkdir(child).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      const next = await openDirInside(root, child);
      if (next === undefined) {
        throw new ToolError(
          `${rel} led outside the workspace when its directories were made (a directory on its way was replaced by a symlink); nothing was written`,
        );
      }
      await at.close();
      at = next;
    }
  } finally {
    await at.close();
  }
}
