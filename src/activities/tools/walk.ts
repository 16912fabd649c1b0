// Sorted directory walk that skips node_modules/.git/.replanner and never follows symlinks.
import { Dirent, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { SKIPPED_DIRS } from './types';
import { openDirInside } from './open-inside';

export interface WalkEntry {
  abs: string;
  /** Depth below the start directory, 1 for its direct children. */
  depth: number;
  kind: 'dir' | 'file' | 'symlink' | 'other';
}

/**
 * Yields entries depth-first in name order; `maxDepth` bounds the recursion. Each directory is
 * listed from the one opened, and only when it really is inside `root` (a command of another
 * task may swap a directory for a symlink out of the workspace while the walk goes on).
 */
export async function* walk(root: string, dir: string, maxDepth: number, depth = 1): AsyncGenerator<WalkEntry> {
  const entries = await listInside(root, dir);
  if (entries === undefined) return; // unreadable directories, and any now outside, are skipped
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.isDirectory() && SKIPPED_DIRS.has(e.name)) continue;
    const abs = path.join(dir, e.name);
    const kind = e.isDirectory() ? 'dir' : e.isFile() ? 'file' : e.isSymbolicLink() ? 'symlink' : 'other';
    yield { abs, depth, kind };
    if (kind === 'dir' && depth < maxDepth) yield* walk(root, abs, maxDepth, depth + 1);
  }
}

async function listInside(root: string, dir: string): Promise<Dirent[] | undefined> {
  const fh = await openDirInside(root, dir).catch(() => undefined);
  if (fh === undefined) return undefined;
  try {
    return await fsp.readdir(`/proc/self/fd/${fh.fd}`, { withFileTypes: true });
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}
