// Duplicate pairs for scripts/figures: places in a folder that share six or more lines. With the
// `duplicates` command on PATH (`duplicates --repo DIR --seconds 60`, how issue 27 measured 8 pairs
// in src and 47 in test) its count is the figure; otherwise a simple built-in detector counts pairs
// of files sharing a run of 6+ identical lines (trimmed, whitespace collapsed, blank lines and
// lines of punctuation alone skipped). The two count differently; the figure says which it used.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { listFiles, SourceCache } from './figures-files';

export interface DuplicateFigures {
  dir: string;
  pairs: number;
  detector: 'duplicates' | 'built-in';
  /** The first rows (the detector's own words), most shared first. */
  rows: string[];
}

const MIN_LINES = 6;
type Place = { file: string; line: number };

/** The `duplicates` command's count and rows, or undefined when it is not on PATH or says nothing readable. */
export function externalDuplicates(root: string, dir: string, seconds = 60): DuplicateFigures | undefined {
  const res = spawnSync('duplicates', ['--repo', dir, '--seconds', String(seconds), '--most', '20'], { cwd: root, encoding: 'utf8' });
  if (res.error || res.status !== 0) return undefined;
  const lines = res.stdout.split('\n').filter(Boolean);
  const first = lines[0] ?? '';
  const count = /^no duplicates/.test(first) ? 0 : Number(/^(\d+) pairs?\b/.exec(first)?.[1] ?? NaN);
  if (!Number.isFinite(count)) return undefined;
  return { dir, pairs: count, detector: 'duplicates', rows: lines.slice(1).filter((l) => /^D\d+ /.test(l)) };
}

/** A line as the built-in detector compares it, or undefined when it carries nothing (blank, braces, a comment marker). */
const normalise = (line: string): string | undefined => {
  const l = line.trim().replace(/\s+/g, ' ');
  return /^[\s{}()[\];,.)/*]*$/.test(l) ? undefined : l;
};

export function builtInDuplicates(root: string, dir: string, cache = new SourceCache(root)): DuplicateFigures {
  const files = listFiles(root, [dir], /\.(ts|js|mjs|cjs)$/);
  // Every window of MIN_LINES meaningful lines, by its text: where it stands (file, first line).
  const windows = new Map<string, Place[]>();
  for (const file of files) {
    const kept: { text: string; line: number }[] = [];
    cache
      .text(file)
      .split('\n')
      .forEach((raw, i) => {
        const text = normalise(raw);
        if (text !== undefined) kept.push({ text, line: i + 1 });
      });
    for (let i = 0; i + MIN_LINES <= kept.length; i++) {
      const key = kept
        .slice(i, i + MIN_LINES)
        .map((k) => k.text)
        .join('\n');
      const at = windows.get(key) ?? [];
      at.push({ file, line: kept[i]!.line });
      windows.set(key, at);
    }
  }
  // A pair of places: two files (or two places in one file) sharing at least one window; a window
  // standing in more than 8 places is boilerplate, as the `duplicates` command counts it.
  const pairs = new Map<string, { a: string; b: string; windows: number }>();
  for (const at of windows.values()) {
    if (at.length < 2 || at.length > 8) continue;
    for (let i = 0; i < at.length; i++) {
      for (let j = i + 1; j < at.length; j++) {
        const [x, y] = [at[i]!, at[j]!].sort((p, q) => p.file.localeCompare(q.file) || p.line - q.line) as [Place, Place];
        const key = `${x.file}\0${y.file}`;
        const known = pairs.get(key);
        if (known) known.windows++;
        else pairs.set(key, { a: `${rel(dir, x.file)}:${x.line}`, b: `${rel(dir, y.file)}:${y.line}`, windows: 1 });
      }
    }
  }
  const sorted = [...pairs.values()].sort((p, q) => q.windows - p.windows);
  return {
    dir,
    pairs: sorted.length,
    detector: 'built-in',
    rows: sorted.slice(0, 20).map((p, i) => `D${i + 1} ${p.a} ~ ${p.b} (${p.windows + MIN_LINES - 1}+ lines)`),
  };
}

const rel = (dir: string, file: string) => path.posix.relative(dir, file);

/** The figure for one folder: the `duplicates` command where it is installed, the built-in detector otherwise (or when `builtIn`). */
export function duplicatePairs(root: string, dir: string, builtIn = false): DuplicateFigures {
  return (!builtIn && externalDuplicates(root, dir)) || builtInDuplicates(root, dir);
}
