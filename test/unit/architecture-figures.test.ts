// The measurements behind `npm run figures` and test/unit/architecture.test.ts, on small trees
// written for each test: each figure finds what it should and nothing else.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { commentCitations } from '../../scripts/figures-comments';
import { builtInDuplicates } from '../../scripts/figures-duplicates';
import { exportUses } from '../../scripts/figures-exports';
import { citationsIn, definedIds, requirementIds } from '../../scripts/figures-ids';
import { importCircles, importGraph, importsInto, importsLeaving } from '../../scripts/figures-imports';
import { fileSizes, functionSizes } from '../../scripts/figures-sizes';

const ROOT = path.resolve(__dirname, '../..');
let tree: string;

function write(files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
    fs.writeFileSync(path.join(tree, rel), text);
  }
}

beforeEach(() => {
  tree = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-figures-'));
});
afterEach(() => fs.rmSync(tree, { recursive: true, force: true }));

describe('import graph', () => {
  it('finds a circle through a type import and an index, and names one shortest way round', () => {
    write({
      'src/a.ts': "import { b } from './b';\nexport const a = b;\n",
      'src/b.ts': "export type { C } from './lib';\nexport const b = 1;\n",
      'src/lib/index.ts': "import type { A } from '../c';\nexport type C = A;\n",
      'src/c.ts': "import { a } from './a';\nexport type A = typeof a;\n",
      'src/d.ts': "import { a } from './a';\nexport const d = a;\n",
    });
    expect(importCircles(importGraph(tree, ['src']), 'src')).toEqual([
      {
        files: ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/lib/index.ts'],
        circle: ['src/a.ts', 'src/b.ts', 'src/lib/index.ts', 'src/c.ts', 'src/a.ts'],
      },
    ]);
  });

  it('no circle in a tree without one (d → a is one way)', () => {
    write({ 'src/a.ts': 'export const a = 1;\n', 'src/d.ts': "import { a } from './a';\nexport const d = a;\n" });
    expect(importCircles(importGraph(tree, ['src']), 'src')).toEqual([]);
  });

  it('domain imports leaving src/domain and src imports into test/, type-only and dynamic ones included', () => {
    write({
      'src/domain/x.ts': "import type { U } from '../llm/usage';\nimport { y } from './run/y';\nexport const x: U = y;\n",
      'src/domain/run/y.ts': "import { z } from '../z';\nexport const y = z;\nexport const later = () => import('../../client/c');\n",
      'src/domain/z.ts': 'export const z = 1;\n',
      'src/llm/usage.ts': 'export type U = number;\n',
      'src/client/c.ts': "import type { F } from '../../test/support/fake';\nexport const c: F = 1;\n",
      'test/support/fake.ts': 'export type F = number;\n',
    });
    const g = importGraph(tree, ['src', 'test']);
    expect(importsLeaving(g, 'src/domain').map((e) => [e.from, e.to, e.typeOnly])).toEqual([
      ['src/domain/run/y.ts', 'src/client/c.ts', false],
      ['src/domain/x.ts', 'src/llm/usage.ts', true],
    ]);
    expect(importsInto(g, 'src', 'test').map((e) => [e.from, e.to, e.typeOnly])).toEqual([['src/client/c.ts', 'test/support/fake.ts', true]]);
  });
});

describe('sizes', () => {
  it('counts lines per file and per function (declarations, methods, arrows, function expressions)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    write({
      'src/f.ts': [
        `export function big() {\n${body(10)}\n}`,
        `export class K {\n  m() {\n${body(3)}\n  }\n}`,
        `export const arrow = () => {\n${body(4)}\n};`,
        `export const fx = function () {\n${body(2)}\n};\n`,
      ].join('\n\n'),
    });
    expect(functionSizes(tree, ['src']).map((f) => [f.name, f.start, f.lines])).toEqual([
      ['big', 1, 12],
      ['arrow', 22, 6],
      ['m', 15, 5],
      ['fx', 29, 4],
    ]);
    expect(fileSizes(tree, ['src'])).toEqual([{ file: 'src/f.ts', lines: 32 }]);
  });
});

describe('requirement IDs', () => {
  // Built from parts so that this file itself cites no undefined ID.
  const id = (family: string, n: string) => family + n;

  it('reads IDs and sub-IDs; not the V8 engine, hex, longer numbers or words', () => {
    const text = [
      `// ${id('X', '12')} and ${id('R', '2.3')}; ${id('X', '10')}/${id('X', '11')}`,
      `V8 heap, 0x${id('B', '1')}, ${id('P', '50')}, A${id('S', '3')}B`,
    ].join('\n');
    expect(citationsIn('f.ts', text).map((c) => `${c.id}@${c.line}`)).toEqual(['X12@1', 'R2.3@1', 'X10@1', 'X11@1']);
  });

  it('an ID is defined by a list item starting with it in bold; cited IDs without one are listed', () => {
    expect([...definedIds(`# R\n- **${id('R', '2')}** decision order\n  - **${id('R', '2.3')}** stagnation\nnot ${id('R', '4')}\n`)]).toEqual([
      'R2',
      'R2.3',
    ]);
    write({
      'docs/requirements.md': `- **${id('O', '1')}** pause\n`,
      'src/a.ts': `// ${id('O', '1')} ${id('O', '7')}\n`,
      'test/a.test.ts': `it('${id('O', '7')} again', () => {});\n`,
      'jest.config.js': `// ${id('J', '9')}\n`,
    });
    expect(requirementIds(tree).undefined).toEqual([
      { id: id('J', '9'), count: 1, where: ['jest.config.js:1'] },
      { id: id('O', '7'), count: 2, where: ['src/a.ts:1', 'test/a.test.ts:1'] },
    ]);
  });
});

describe('comments in src', () => {
  // Built from parts so that this file itself cites no outside document.
  const seed = (n: string) => `se${'ed'} ${n}`;
  const caps = (w: string) => w.toUpperCase();

  it('counts requirement IDs in comments only, not in strings, names or test files', () => {
    write({
      'src/a.ts': [
        '// The run pauses (O1) and resumes; limits X5/X6.',
        '/**',
        ' * Confidence bands (X7) and R2.3.',
        ' */',
        "export const s = 'O1 in a string, X5 too';",
        'export const X5 = 1; // trailing O2',
        'const t = `${s} ${X5}`; /* B1 */',
        'export const u = t;',
        '',
      ].join('\n'),
      'src/b.ts': "export const v = 'V8 is the engine'; // V8 too\n",
      'test/a.test.ts': "// O1 in a test's comment\nit('O1 pause', () => {});\n",
    });
    const c = commentCitations(tree, 'src');
    expect(c.ids.map((h) => `${h.file}:${h.line} ${h.text}`)).toEqual([
      'src/a.ts:1 O1',
      'src/a.ts:1 X5',
      'src/a.ts:1 X6',
      'src/a.ts:3 X7',
      'src/a.ts:3 R2.3',
      'src/a.ts:6 O2',
      'src/a.ts:7 B1',
    ]);
  });

  it('counts citations of documents not in the repository: seeds, sections, the old digests, issue numbers', () => {
    write({
      'src/a.ts': [
        `// As ${seed('004')} §12.1 says; the ${seed('').trim()}'s order; ${caps('spec')} M2 and ${caps('design')}.md.`,
        '// issue 28, Issue #12, PR 7, pull request 3.',
        '// A spec, a design, an issue with the pause, 12 issues, the 0x§ sign alone: none of these.',
        `export const s = '${seed('002')} in a string';`,
        '',
      ].join('\n'),
    });
    expect(commentCitations(tree, 'src').outsideDocs.map((h) => `${h.line} ${h.text}`)).toEqual([
      `1 ${seed('004')}`,
      '1 §12.1',
      `1 ${seed('').trim()}'s`,
      `1 ${caps('spec')}`,
      `1 ${caps('design')}.md`,
      '2 issue 28',
      '2 Issue #12',
      '2 PR 7',
      '2 pull request 3',
    ]);
  });

  it('npm run figures --check fails on one citation of an outside document, and on more IDs in comments than the limit', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, 'scripts/figures'), '--root', tree, '--only', 'commentIds,commentDocs', '--check', ...args], {
        encoding: 'utf8',
      });
    write({ 'src/a.ts': `// The run pauses (O1).\nexport const a = 1;\n` });
    expect(run().status).toBe(0);
    write({ 'src/b.ts': `// The limit, ${seed('004')}.\nexport const b = 1;\n` });
    const one = run();
    expect(one.stdout).toContain(`src/b.ts:1 ${seed('004')}`);
    expect(one.stderr).toContain('commentDocs 1 > 0');
    expect(one.status).toBe(1);
    fs.rmSync(path.join(tree, 'src/b.ts'));
    write({ 'src/c.ts': `${'// O1\n'.repeat(150)}export const c = 1;\n` });
    const many = run('--json');
    expect(many.status).toBe(1);
    const doc = JSON.parse(many.stdout) as { figures: { key: string; value: number; ok: boolean }[] };
    expect(doc.figures.map((f) => [f.key, f.value, f.ok])).toEqual([
      ['commentIds', 151, false],
      ['commentDocs', 0, true],
    ]);
  });
});

describe('exports used nowhere', () => {
  it('counts a use from another file (an index, ns.member, a namespace as a whole, a destructured import()); not an unused re-export', () => {
    const main = [
      "import { viaIndex } from './lib';",
      "import * as ns from './ns';",
      "import * as whole from './whole';",
      'export const main = async () => {',
      "  const { lazy } = await import('./ns');",
      '  return viaIndex + ns.member + lazy + Object.keys(whole).length;',
      '};',
    ];
    write({
      'tsconfig.json': JSON.stringify({
        compilerOptions: { strict: true, module: 'commonjs', target: 'ES2022', types: [] },
        include: ['src', 'test'],
      }),
      'src/lib/a.ts':
        'export const viaIndex = 1;\nexport const dead = 2;\nexport const local = 3;\nexport const usedLocally = local + 1;\nexport const forTests = 4;\n',
      'src/lib/index.ts': "export { viaIndex, dead } from './a';\n",
      'src/ns.ts': 'export const member = 1;\nexport const lazy = 2;\nexport const unusedNs = 3;\n',
      'src/whole.ts': 'export const w1 = 1;\nexport const w2 = 2;\n',
      'src/main.ts': `${main.join('\n')}\n`,
      'test/a.test.ts': "import { forTests } from '../src/lib/a';\nvoid forTests;\n",
    });
    const uses = exportUses(tree);
    const names = (xs: { file: string; name: string; usedInFile: boolean }[]) =>
      xs.map((u) => `${u.file} ${u.name}${u.usedInFile ? ' (in file)' : ''}`);
    expect(names(uses.unused)).toEqual([
      'src/lib/a.ts dead',
      'src/lib/a.ts local (in file)',
      'src/lib/a.ts usedLocally',
      'src/lib/index.ts dead',
      'src/main.ts main',
      'src/ns.ts unusedNs',
    ]);
    expect(names(uses.testOnly)).toEqual(['src/lib/a.ts forTests']);
  });
});

describe('duplicates (built-in detector)', () => {
  it('pairs two files sharing 6 identical lines, not 5', () => {
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `total += compute(${i}, '${tag}');`).join('\n');
    write({
      'src/a.ts': `${lines(6, 'x')}\n`,
      'src/b.ts': `// b\n${lines(6, 'x')}\n`,
      'src/c.ts': `${lines(5, 'y')}\n`,
      'src/d.ts': `${lines(5, 'y')}\n`,
    });
    const d = builtInDuplicates(tree, 'src');
    expect(d.pairs).toBe(1);
    expect(d.rows).toEqual(['D1 a.ts:1 ~ b.ts:2 (6+ lines)']);
  });
});

describe('npm run figures', () => {
  it('--check exits 1 naming the broken limit; --json prints the figures; an unknown figure exits 2', () => {
    write({ 'src/big.ts': 'export const x = 1;\n'.repeat(401), 'src/ok.ts': 'export const y = 1;\n' });
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, 'scripts/figures'), '--root', tree, ...args], { encoding: 'utf8' });
    const broken = run('--only', 'largestFile,circles', '--check');
    expect(broken.stdout).toContain('largest file in src and bench (lines): 401 — src/big.ts; 1 over 400 (limit 400, BROKEN)');
    expect(broken.stderr).toContain('largestFile 401 > 400');
    expect(broken.status).toBe(1);
    fs.writeFileSync(path.join(tree, 'src/big.ts'), 'export const x = 1;\n');
    const ok = run('--only', 'largestFile,circles', '--check', '--json');
    expect(ok.status).toBe(0);
    const doc = JSON.parse(ok.stdout) as { figures: { key: string; value: number; ok: boolean }[] };
    expect(doc.figures.map((f) => [f.key, f.value, f.ok])).toEqual([
      ['circles', 0, true],
      ['largestFile', 1, true],
    ]);
    expect(run('--only', 'nonsense').status).toBe(2);
  });
});
