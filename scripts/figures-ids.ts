// Requirement IDs for scripts/figures: every ID a file cites (B1, X12, R2.3, …) must be defined in
// docs/requirements.md, where each definition is a list item that starts with the ID in bold
// ("- **X12** …"). The families are those of docs/requirements.md: B X J R C P O S V M.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CODE_DIRS, listFiles } from './figures-files';

export const REQUIREMENTS_DOC = 'docs/requirements.md';

/**
 * An ID: a family letter, a number 1 to 19, maybe ".n" (R2.3), standing alone as a word. Numbers
 * stop at 19 (the largest family, X, ends at 14), so P50 or S3000 are not read as IDs; a word
 * around it (0xB1, AB12C) does not match either.
 */
export const ID_PATTERN = /(?<![\w$#.])([BXJRCPOSVM](?:1\d|[1-9])(?:\.\d{1,2})?)(?![\w$]|\.\d)/g;

/**
 * Tokens shaped like an ID that are something else. V8 is the JavaScript engine (the V family
 * ends at V3); checked against every hit in the repository when this list was made.
 */
export const NOT_IDS = new Set(['V8']);

/** Files that cite IDs: the code folders (all text, no recorded fixtures), the READMEs and docs, and the configs. */
export function citingFiles(root: string): string[] {
  const configs = [
    'eslint.config.mjs',
    'jest.config.js',
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
    'docker-compose.yml',
    'Dockerfile',
    'README.md',
  ];
  const text = /\.(ts|js|mjs|cjs|md|json|ya?ml|sh)$|^[^.]+$/;
  const fromDirs = listFiles(root, [...CODE_DIRS, 'docs', 'deploy'], text);
  return [...fromDirs, ...configs.filter((f) => fs.existsSync(path.join(root, f)))].sort();
}

export interface Citation {
  id: string;
  file: string;
  line: number;
}

export function citationsIn(file: string, text: string): Citation[] {
  const out: Citation[] = [];
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(ID_PATTERN)) if (!NOT_IDS.has(m[1]!)) out.push({ id: m[1]!, file, line: i + 1 });
  });
  return out;
}

/** IDs a requirements document defines: list items that start with a bold ID. */
export function definedIds(doc: string): Set<string> {
  return new Set([...doc.matchAll(/^\s*[-*]\s+\*\*([A-Z]\d+(?:\.\d+)?)\*\*/gm)].map((m) => m[1]!));
}

export interface IdFigures {
  /** Distinct IDs cited, with how often. */
  cited: Record<string, number>;
  defined: number;
  /** Cited IDs with no definition, each with its first citations. */
  undefined: { id: string; count: number; where: string[] }[];
}

export function requirementIds(root: string): IdFigures {
  const docFile = path.join(root, REQUIREMENTS_DOC);
  const defined = fs.existsSync(docFile) ? definedIds(fs.readFileSync(docFile, 'utf8')) : new Set<string>();
  const all: Citation[] = [];
  for (const f of citingFiles(root)) all.push(...citationsIn(f, fs.readFileSync(path.join(root, f), 'utf8')));
  const cited: Record<string, number> = {};
  for (const c of all) cited[c.id] = (cited[c.id] ?? 0) + 1;
  const sortIds = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });
  const undefinedIds = Object.keys(cited)
    .filter((id) => !defined.has(id))
    .sort(sortIds)
    .map((id) => {
      const hits = all.filter((c) => c.id === id);
      return { id, count: hits.length, where: hits.slice(0, 3).map((c) => `${c.file}:${c.line}`) };
    });
  return { cited: Object.fromEntries(Object.entries(cited).sort(([a], [b]) => sortIds(a, b))), defined: defined.size, undefined: undefinedIds };
}

/** Citations of the design documents this repository does not contain ("SPEC", "DESIGN.md"): where they are, for the clean-up. */
export function outsideDocCitations(root: string): Citation[] {
  const out: Citation[] = [];
  for (const f of citingFiles(root)) {
    // docs/ explains what those names meant; the figures' own sources name them to find them.
    if (f.startsWith('docs/') || f.startsWith('scripts/figures')) continue;
    fs.readFileSync(path.join(root, f), 'utf8')
      .split('\n')
      .forEach((l, i) => {
        for (const m of l.matchAll(/\b(SPEC|DESIGN)(\.md)?\b/g)) out.push({ id: m[0], file: f, line: i + 1 });
      });
  }
  return out;
}
