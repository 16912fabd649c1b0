// The file-level import graph of the project's own code, read from the syntax trees: every
// import, export … from, import('…'), import type, require('…') and import('…').Type between
// project files. Type-only imports are edges too: a type import still ties one file to another.
// Used by scripts/figures and test/unit/architecture.test.ts (the layering guards).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { isUnder, listFiles, SourceCache } from './figures-files';

export interface ImportEdge {
  from: string;
  /** The project file the import resolves to (relative to the root). */
  to: string;
  specifier: string;
  line: number;
  typeOnly: boolean;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

/** Module specifiers in a file, with their line and whether the import is type-only. */
export function importSpecifiers(sf: ts.SourceFile): { specifier: string; line: number; typeOnly: boolean }[] {
  const out: { specifier: string; line: number; typeOnly: boolean }[] = [];
  const add = (lit: ts.Node | undefined, typeOnly: boolean) => {
    if (lit && ts.isStringLiteralLike(lit))
      out.push({ specifier: lit.text, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** tsconfig.json's `paths` (e.g. "replanner/client" → src/client/index.ts), exact names only. */
export function pathAliases(root: string): Record<string, string> {
  const file = path.join(root, 'tsconfig.json');
  if (!fs.existsSync(file)) return {};
  const { config } = ts.readConfigFile(file, (f) => fs.readFileSync(f, 'utf8')) as {
    config?: { compilerOptions?: { paths?: Record<string, string[]> } };
  };
  const out: Record<string, string> = {};
  for (const [name, targets] of Object.entries(config?.compilerOptions?.paths ?? {})) {
    const first = targets[0];
    if (first && !name.includes('*')) out[name] = path.posix.normalize(first);
  }
  return out;
}

/** The project file a specifier names, or undefined (a package, a builtin, a file that does not exist). */
export function resolveSpecifier(root: string, from: string, specifier: string, aliases: Record<string, string> = {}): string | undefined {
  let base: string;
  if (aliases[specifier]) base = aliases[specifier];
  else if (specifier.startsWith('./') || specifier.startsWith('../') || specifier === '.' || specifier === '..')
    base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  else return undefined;
  const stem = base.replace(/\.(js|ts)$/, '');
  for (const c of [base, `${stem}.ts`, `${stem}.js`, `${base}/index.ts`, `${base}/index.js`]) {
    const abs = path.join(root, c);
    if (fs.existsSync(abs) && fs.statSync(abs).isFile()) return c;
  }
  return undefined;
}

/** The import graph of the code under `dirs`: edges between project files only. */
export function importGraph(root: string, dirs: string[], cache = new SourceCache(root)): ImportGraph {
  const files = listFiles(root, dirs);
  const aliases = pathAliases(root);
  const edges: ImportEdge[] = [];
  for (const from of files) {
    for (const s of importSpecifiers(cache.get(from))) {
      const to = resolveSpecifier(root, from, s.specifier, aliases);
      if (to && to !== from) edges.push({ from, to, ...s });
    }
  }
  return { files, edges };
}

/** Import circles among files under `dir`: each group of files that reach one another, with one shortest circle through them. */
export function importCircles(g: ImportGraph, dir: string): { files: string[]; circle: string[] }[] {
  const nodes = g.files.filter((f) => isUnder(f, dir));
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const e of g.edges) if (next.has(e.from) && next.has(e.to) && !next.get(e.from)!.includes(e.to)) next.get(e.from)!.push(e.to);
  // Tarjan's strongly connected components, iterative (no recursion limit on deep chains).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let counter = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; i: number }[] = [{ node: start, i: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const succ = next.get(top.node)!;
      if (top.i < succ.length) {
        const w = succ[top.i++]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.node, Math.min(low.get(top.node)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const group: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          group.push(w);
        } while (w !== top.node);
        if (group.length > 1) groups.push(group.sort());
      }
    }
  }
  return groups.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!)).map((files) => ({ files, circle: shortestCircle(files, next) }));
}

/** The shortest way from the group's first file back to itself, inside the group (breadth first). */
function shortestCircle(group: string[], next: Map<string, string[]>): string[] {
  const inGroup = new Set(group);
  const start = group[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const n = queue.shift()!;
    for (const w of next.get(n) ?? []) {
      if (!inGroup.has(w)) continue;
      if (w === start) {
        const pathBack = [n];
        while (pathBack[0] !== start) pathBack.unshift(prev.get(pathBack[0]!)!);
        return [...pathBack, start];
      }
      if (!prev.has(w)) {
        prev.set(w, n);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** Imports from files under `inside` to project files outside it (e.g. src/domain importing src/llm). */
export const importsLeaving = (g: ImportGraph, inside: string): ImportEdge[] =>
  g.edges.filter((e) => isUnder(e.from, inside) && !isUnder(e.to, inside));

/** Imports from files under `fromDir` to files under `toDir` (e.g. src importing test/). */
export const importsInto = (g: ImportGraph, fromDir: string, toDir: string): ImportEdge[] =>
  g.edges.filter((e) => isUnder(e.from, fromDir) && isUnder(e.to, toDir));

/** One line per edge: "src/a.ts:3 → src/b.ts (type)". */
export const edgeLine = (e: ImportEdge): string => `${e.from}:${e.line} → ${e.to}${e.typeOnly ? ' (type)' : ''}`;
