// Issue 27's one-way layers as tests, on the real tree: no file-level import circle in src, src/domain
// imports only src/domain, src imports nothing from test/. The import graph is the one
// `npm run figures` reads (scripts/figures-imports.ts); eslint.config.mjs guards the domain too.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { edgeLine, importCircles, importGraph, importsInto, importsLeaving } from '../../scripts/figures-imports';

const ROOT = path.resolve(__dirname, '../..');

describe('one-way layers (issue 27)', () => {
  const graph = importGraph(ROOT, ['src']);

  it('src has no file-level import circle (type imports count)', () => {
    expect(importCircles(graph, 'src').map((c) => c.circle.join(' → '))).toEqual([]);
  });

  it('src/domain imports only src/domain (type imports count)', () => {
    expect(importsLeaving(graph, 'src/domain').map(edgeLine)).toEqual([]);
  });

  it('src imports nothing from test/ (type imports count)', () => {
    expect(importsInto(graph, 'src', 'test').map(edgeLine)).toEqual([]);
  });

  it('the graph reads the tree (a graph that read nothing would pass the checks above)', () => {
    expect(graph.files.length).toBeGreaterThan(50);
    expect(graph.edges.length).toBeGreaterThan(200);
    expect(graph.edges.some((e) => e.from.startsWith('src/workflows/') && e.to.startsWith('src/domain/'))).toBe(true);
  });

  it('the configs cite documents that exist (docs/…, none outside this repository)', () => {
    const cited = ['eslint.config.mjs', 'jest.config.js'].flatMap((f) =>
      [...fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/[\w./-]*\b[A-Za-z][\w-]*\.md\b/g)].map((m) => ({ f, doc: m[0] })),
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ doc }) => !fs.existsSync(path.join(ROOT, doc)))).toEqual([]);
  });
});
