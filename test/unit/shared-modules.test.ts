// Issue 11 (worker CPU, start-up of each workflow): the modules src/workflows/preload.ts shares
// between all workflows of a worker. The SDK deep-freezes them; these tests freeze them the same way
// and check that every schema they export still parses, and that every src/domain module a workflow
// imports is among them (one left out is still correct, but costs its evaluation in every workflow).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const SRC = path.resolve(__dirname, '../../src');

/** Value imports of a TypeScript file (type-only imports and exports left out), resolved to files. */
function valueImports(file: string): string[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const st of sf.statements) {
    let spec: string | undefined;
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause &&
          !clause.name &&
          clause.namedBindings &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) spec = (st.moduleSpecifier as ts.StringLiteral).text;
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && !st.isTypeOnly) {
      spec = (st.moduleSpecifier as ts.StringLiteral).text;
    }
    if (!spec?.startsWith('.')) continue;
    const base = path.resolve(path.dirname(file), spec);
    const found = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
    if (found) out.push(found);
  }
  return out;
}

function closure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const walk = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    valueImports(f).forEach(walk);
  };
  entries.forEach(walk);
  return seen;
}

/** The SDK's deepFreeze of shared modules (@temporalio/worker reusable-vm), as it is written there. */
function deepFreeze(object: unknown, visited = new WeakSet<object>()): unknown {
  if (object == null || (typeof object !== 'object' && typeof object !== 'function') || visited.has(object)) return object;
  visited.add(object);
  if (Object.isFrozen(object)) return object;
  if (typeof object === 'object') {
    for (const name of [...Object.getOwnPropertyNames(object), ...Object.getOwnPropertySymbols(object)]) {
      const value = (object as Record<PropertyKey, unknown>)[name];
      if (value && (typeof value === 'object' || typeof value === 'function')) {
        try {
          deepFreeze(value, visited);
        } catch {
          /* as the SDK: some objects cannot be frozen */
        }
      }
    }
  }
  return Object.freeze(object);
}

const preload = path.join(SRC, 'workflows/preload.ts');
const shared = closure([preload]);

describe('modules shared by all workflows of a worker (issue 11)', () => {
  it('every src/domain module a workflow imports is shared', () => {
    const used = closure([path.join(SRC, 'workflows/index.ts')]);
    const notShared = [...used].filter((f) => !f.includes(`${path.sep}workflows${path.sep}`) && !shared.has(f));
    expect(notShared.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('no shared module is a workflow module (those use workflow APIs and keep per-workflow state)', () => {
    const workflowModules = [...shared].filter((f) => f.includes(`${path.sep}workflows${path.sep}`)).map((f) => path.relative(SRC, f));
    expect(workflowModules.sort()).toEqual(
      [
        'workflows/messages/index.ts',
        'workflows/messages/internal.ts',
        'workflows/messages/payload.ts',
        'workflows/messages/run.ts',
        'workflows/messages/task.ts',
        'workflows/preload.ts',
      ].sort(),
    );
  });

  it('every schema the shared modules export parses after the SDK froze them', () => {
    // Evaluate and freeze every shared module, as the worker does before its first workflow: in a
    // module registry of their own, seen as the workflow bundle (lazySchema's proxies).
    const g = globalThis as { __TEMPORAL__?: unknown };
    g.__TEMPORAL__ = {};
    let modules: (readonly [string, Record<string, unknown>])[] = [];
    try {
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- evaluated here, in this module registry, in this order
        modules = [...shared].filter((f) => f !== preload).map((f) => [path.relative(SRC, f), require(f) as Record<string, unknown>] as const);
      });
    } finally {
      delete g.__TEMPORAL__;
    }
    for (const [, m] of modules) deepFreeze(m);
    let schemas = 0;
    const inputs: unknown[] = [undefined, null, {}, [], 'text', 1, { a: 1 }, { replan_needed: true, confidence: 2 }];
    for (const [name, m] of modules) {
      for (const [key, value] of Object.entries(m)) {
        const s = value as { _zod?: unknown; safeParse?: (v: unknown) => { success: boolean } };
        if (!s || typeof s !== 'object' || !s._zod) continue;
        schemas++;
        for (const input of inputs) {
          // safeParse never throws: an error here is a frozen schema refusing to bind a method.
          let thrown: unknown;
          try {
            s.safeParse!(input);
          } catch (err) {
            thrown = err;
          }
          expect({ schema: `${name}: ${key}`, thrown }).toEqual({ schema: `${name}: ${key}`, thrown: undefined });
        }
      }
    }
    expect(schemas).toBeGreaterThan(10);
  });
});
