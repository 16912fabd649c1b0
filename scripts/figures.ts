// The codebase's figures and their limits (issue 27), one line each: `npm run figures`.
//   --json       the same as one JSON document
//   --check      exit 1 when any figure breaks its limit (after printing them)
//   --only a,b   only these figures (keys below; e.g. --only circles,domain,srcToTest for a quick look)
//   --built-in-duplicates   count duplicates with the built-in detector even where `duplicates` is installed
// Each figure's meaning is in the module that measures it (scripts/figures-*.ts).
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { SourceCache } from './figures-files';
import { commentCitations, perFile } from './figures-comments';
import { duplicatePairs } from './figures-duplicates';
import { exportUses, type ExportUse } from './figures-exports';
import { REQUIREMENTS_DOC, outsideDocCitations, requirementIds } from './figures-ids';
import { edgeLine, importCircles, importGraph, importsInto, importsLeaving } from './figures-imports';
import { fileSizes, functionSizes } from './figures-sizes';

export interface Figure {
  key: string;
  title: string;
  value: number;
  /** The most the figure may be; undefined: informational. */
  limit?: number;
  /** What the value is (e.g. the largest file's name), shown after it. */
  detail?: string;
  items: string[];
}

export const FIGURE_KEYS = [
  'circles',
  'domain',
  'srcToTest',
  'largestFile',
  'longestFunction',
  'unusedExports',
  'localExports',
  'testOnlyExports',
  'undefinedIds',
  'outsideDocs',
  'commentIds',
  'commentDocs',
  'duplicatesSrc',
  'duplicatesTest',
] as const;
export type FigureKey = (typeof FIGURE_KEYS)[number];

export const FILE_LIMIT = 400;
export const FUNCTION_LIMIT = 150;
/** Requirement IDs the comments in src may cite: beside the words, where they help a reader find the requirement. */
export const COMMENT_ID_LIMIT = 150;

/** Measures the figures of the project at `root` (all of them, or `only`). */
export function measure(root: string, only: readonly FigureKey[] = FIGURE_KEYS, builtInDuplicates = false): Figure[] {
  const cache = new SourceCache(root);
  const want = new Set(only);
  const out: Figure[] = [];
  const graph =
    want.has('circles') || want.has('domain') || want.has('srcToTest')
      ? importGraph(root, ['src', 'test', 'bench', 'examples', 'scripts'], cache)
      : undefined;
  if (graph && want.has('circles')) {
    const circles = importCircles(graph, 'src');
    out.push({
      key: 'circles',
      title: 'file-level import circles in src',
      value: circles.length,
      limit: 0,
      items: circles.flatMap((c) => [`${c.files.length} files: ${c.files.join(', ')}`, `  e.g. ${c.circle.join(' → ')}`]),
    });
  }
  if (graph && want.has('domain')) {
    const edges = importsLeaving(graph, 'src/domain');
    out.push({ key: 'domain', title: 'imports from src/domain to outside src/domain', value: edges.length, limit: 0, items: edges.map(edgeLine) });
  }
  if (graph && want.has('srcToTest')) {
    const edges = importsInto(graph, 'src', 'test');
    out.push({ key: 'srcToTest', title: 'imports from src to test/ (type imports too)', value: edges.length, limit: 0, items: edges.map(edgeLine) });
  }
  if (want.has('largestFile')) {
    const sizes = fileSizes(root, ['src', 'bench'], cache);
    const top = sizes[0];
    const over = sizes.filter((s) => s.lines > FILE_LIMIT);
    out.push({
      key: 'largestFile',
      title: 'largest file in src and bench (lines)',
      value: top?.lines ?? 0,
      limit: FILE_LIMIT,
      detail: top ? `${top.file}; ${over.length} over ${FILE_LIMIT}` : undefined,
      items: over.map((s) => `${s.file} ${s.lines}`),
    });
  }
  if (want.has('longestFunction')) {
    const fns = functionSizes(root, ['src', 'bench'], cache);
    const top = fns[0];
    const over = fns.filter((f) => f.lines > FUNCTION_LIMIT);
    out.push({
      key: 'longestFunction',
      title: 'longest function in src and bench (lines)',
      value: top?.lines ?? 0,
      limit: FUNCTION_LIMIT,
      detail: top ? `${top.name} ${top.file}:${top.start}-${top.end}; ${over.length} over ${FUNCTION_LIMIT}` : undefined,
      items: over.map((f) => `${f.file}:${f.start}-${f.end} ${f.name} ${f.lines}`),
    });
  }
  if (want.has('unusedExports') || want.has('localExports') || want.has('testOnlyExports')) {
    const uses = exportUses(root);
    const line = (u: ExportUse) => `${u.file}:${u.line} ${u.name}${u.kind === 're-export' ? ' (re-export)' : ''}`;
    const nowhere = uses.unused.filter((u) => !u.usedInFile);
    const local = uses.unused.filter((u) => u.usedInFile);
    if (want.has('unusedExports'))
      out.push({
        key: 'unusedExports',
        title: 'exports used nowhere (no other file uses them, nor their own)',
        value: nowhere.length,
        limit: 0,
        items: nowhere.map(line),
      });
    if (want.has('localExports'))
      out.push({
        key: 'localExports',
        title: 'exports used only in their own file, the `export` could go (informational)',
        value: local.length,
        items: local.map(line),
      });
    if (want.has('testOnlyExports'))
      out.push({
        key: 'testOnlyExports',
        title: 'exports used only by tests (informational)',
        value: uses.testOnly.length,
        detail: `${uses.testOnly.filter((u) => !u.usedInFile).length} of them kept alive by tests alone (marked *)`,
        items: uses.testOnly.map((u) => `${u.usedInFile ? '' : '* '}${line(u)} ← ${u.usedBy.join(', ')}`),
      });
  }
  if (want.has('undefinedIds')) {
    const ids = requirementIds(root);
    out.push({
      key: 'undefinedIds',
      title: `requirement IDs cited but not defined in ${REQUIREMENTS_DOC}`,
      value: ids.undefined.length,
      limit: 0,
      detail: `${Object.keys(ids.cited).length} distinct IDs cited, ${ids.defined} defined`,
      items: ids.undefined.map((u) => `${u.id} ×${u.count}: ${u.where.join(', ')}${u.count > u.where.length ? ', …' : ''}`),
    });
  }
  if (want.has('outsideDocs')) {
    const cites = outsideDocCitations(root);
    out.push({
      key: 'outsideDocs',
      title: 'citations of SPEC/DESIGN, documents not in this repository (informational)',
      value: cites.length,
      items: cites.map((c) => `${c.file}:${c.line} ${c.id}`),
    });
  }
  if (want.has('commentIds') || want.has('commentDocs')) {
    const c = commentCitations(root, 'src', cache);
    if (want.has('commentIds'))
      out.push({
        key: 'commentIds',
        title: 'requirement IDs cited in comments in src',
        value: c.ids.length,
        limit: COMMENT_ID_LIMIT,
        detail: `in ${perFile(c.ids).length} files, most first`,
        items: perFile(c.ids),
      });
    if (want.has('commentDocs'))
      out.push({
        key: 'commentDocs',
        title: 'citations in comments in src of documents not in this repository (seeds, §, SPEC, DESIGN, issue numbers)',
        value: c.outsideDocs.length,
        limit: 0,
        items: c.outsideDocs.map((h) => `${h.file}:${h.line} ${h.text}`),
      });
  }
  for (const [key, dir, limit] of [
    // src: three tables of one shape (the pacemaker's choices, the CLI's lazily loaded commands, two
    // type declarations side by side); docs/development.md lists them.
    ['duplicatesSrc', 'src', 3],
    ['duplicatesTest', 'test', 12],
  ] as const) {
    if (!want.has(key)) continue;
    const d = duplicatePairs(root, dir, builtInDuplicates);
    out.push({
      key,
      title: `duplicate pairs in ${dir}`,
      value: d.pairs,
      limit,
      detail: d.detector === 'duplicates' ? 'the `duplicates` command' : 'built-in detector',
      items: d.rows,
    });
  }
  return out;
}

export const broken = (f: Figure): boolean => f.limit !== undefined && f.value > f.limit;

export function render(figures: Figure[], listItems = true): string {
  const lines: string[] = [];
  for (const f of figures) {
    const limit = f.limit === undefined ? '' : ` (limit ${f.limit}${broken(f) ? ', BROKEN' : ''})`;
    lines.push(`${f.title}: ${f.value}${f.detail ? ` — ${f.detail}` : ''}${limit}`);
    if (listItems) for (const item of f.items) lines.push(`    ${item}`);
  }
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      only: { type: 'string' },
      brief: { type: 'boolean', default: false },
      'built-in-duplicates': { type: 'boolean', default: false },
      root: { type: 'string' },
    },
  });
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : [...FIGURE_KEYS];
  const unknown = only.filter((k) => !(FIGURE_KEYS as readonly string[]).includes(k));
  if (unknown.length) {
    console.error(`figures: unknown figure(s) ${unknown.join(', ')}; known: ${FIGURE_KEYS.join(', ')}`);
    return 2;
  }
  const root = path.resolve(values.root ?? path.join(__dirname, '..'));
  const figures = measure(root, only as FigureKey[], values['built-in-duplicates']);
  if (values.json) console.log(JSON.stringify({ root, figures: figures.map((f) => ({ ...f, ok: !broken(f) })) }, null, 2));
  else console.log(render(figures, !values.brief));
  if (!values.check) return 0;
  const bad = figures.filter(broken);
  if (bad.length) console.error(`figures --check: ${bad.length} limit(s) broken: ${bad.map((f) => `${f.key} ${f.value} > ${f.limit}`).join(', ')}`);
  return bad.length ? 1 : 0;
}
