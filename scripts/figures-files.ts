// The files the figures read (scripts/figures): every source file under the project's code folders,
// tracked or not (a file just added counts at once), with paths relative to the project root.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/** The folders whose code the figures read; test/fixtures holds recorded data, not code. */
export const CODE_DIRS = ['src', 'test', 'bench', 'examples', 'scripts'];
const SKIP = new Set(['node_modules', 'dist', '.tools', '.replanner', 'coverage', 'test/fixtures']);
export const CODE_EXT = /\.(ts|js|mjs|cjs)$/;

/** Files under `dirs` (relative to `root`, '/'-separated, sorted) whose name matches `ext`; a missing folder gives none. */
export function listFiles(root: string, dirs: string[], ext: RegExp = CODE_EXT): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    if (SKIP.has(rel) || SKIP.has(path.basename(rel))) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(child);
      else if (e.isFile() && ext.test(e.name) && !e.name.endsWith('.d.ts')) out.push(child);
    }
  };
  for (const d of dirs) walk(d);
  return out.sort();
}

/** Lines of a text as `wc -l` counts them, plus a last line with no newline. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** Parses files once and keeps them: each figure walks the same syntax trees. */
export class SourceCache {
  private readonly files = new Map<string, ts.SourceFile>();
  constructor(readonly root: string) {}

  text(rel: string): string {
    return this.get(rel).text;
  }

  get(rel: string): ts.SourceFile {
    let sf = this.files.get(rel);
    if (!sf) {
      const text = fs.readFileSync(path.join(this.root, rel), 'utf8');
      const kind = rel.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
      sf = ts.createSourceFile(rel, text, ts.ScriptTarget.ES2022, true, kind);
      this.files.set(rel, sf);
    }
    return sf;
  }
}

/** "src/a/b.ts" is under "src/a". */
export const isUnder = (file: string, dir: string): boolean => file === dir || file.startsWith(`${dir}/`);
