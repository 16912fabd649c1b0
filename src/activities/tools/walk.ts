// Sorted directory walk that skips node_modules/.git/.replanner and never follows symlinks.
import { Dirent, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { SKIPPED_DIRS } from './types';

export interface WalkEntry {
  abs: string;
  /** Depth below the start directory, 1 for its direct children. */
  depth: number;
  kind: 'dir' | 'file' | 'symlink' | 'other';
}

/** Yields entries depth-first in name order; `maxDepth` bounds the recursion. */
export async function* walk(dir: string, maxDepth: number, depth = 1): AsyncGenerator<WalkEntry> {
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch {
    return; // unreadable directories are skipped, not fatal
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.isDirectory() && SKIPPED_DIRS.has(e.name)) continue;
    const abs = path.join(dir, e.name);
    const kind = e.isDirectory() ? 'dir' : e.isFile() ? 'file' : e.isSymbolicLink() ? 'symlink' : 'other';
    yield { abs, depth, kind };
    if (kind === 'dir' && depth < maxDepth) yield* walk(abs, maxDepth, depth + 1);
  }
}
