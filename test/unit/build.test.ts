// The build (scripts/build.js) transpiles each file with swc instead of compiling with tsc: it must
// take the same files as tsconfig.build.json, and its JavaScript must behave as tsc's would.
import * as path from 'node:path';
import * as vm from 'node:vm';
import * as ts from 'typescript';

const root = path.resolve(__dirname, '../..');
// Plain CommonJS build tools, loaded as they run.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildInputs } = require('../../scripts/build.js') as { buildInputs: () => string[] };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { transpile } = require('../../scripts/transpile.js') as { transpile: (source: string, file: string) => { code: string } };

/** What module.exports.result is once `code` (CommonJS) has run. */
function run(code: string): unknown {
  const module = { exports: {} as Record<string, unknown> };
  const fn = vm.runInThisContext(`(function (module, exports, require) {\n${code}\n})`) as (...args: unknown[]) => void;
  fn(module, module.exports, require);
  return module.exports.result;
}

function both(source: string): { swc: unknown; tsc: unknown } {
  const tsc = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, isolatedModules: true },
  }).outputText;
  return { swc: run(transpile(source, 'snippet.ts').code), tsc: run(tsc) };
}

describe('F1 the build', () => {
  it('F1 transpiles exactly the files tsconfig.build.json compiles', () => {
    const parsed = ts.getParsedCommandLineOfConfigFile(
      path.join(root, 'tsconfig.build.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    const tscFiles = parsed!.fileNames.filter((f) => !f.endsWith('.d.ts')).map((f) => path.relative(root, f));
    expect(buildInputs()).toEqual(tscFiles.sort());
    expect(buildInputs()).toEqual(expect.arrayContaining(['src/client/cli.ts', 'src/worker-main.ts', 'bench/run.ts', 'examples/client.ts']));
  });

  it.each([
    [
      'class fields are defined properties (a field does not call an inherited setter), after parameter properties',
      `class Base { seen: unknown[] = []; set x(v: number) { this.seen.push(v); } }
       class Sub extends Base { x = 1; }
       class P { a = this.b * 2; constructor(readonly b: number) {} }
       const s = new Sub();
       module.exports.result = [s.seen, Object.getOwnPropertyDescriptor(s, 'x')?.value, new P(3).a];`,
    ],
    ['enums, with their reverse mapping', `enum E { A, B = 5, C } module.exports.result = [E.A, E.C, E[5]];`],
    [
      'a default import of a CommonJS module is its module.exports; a namespace import has its names and a default',
      `import path from 'node:path'; import * as fs from 'node:fs';
       module.exports.result = [typeof path.join, typeof fs.readFileSync, typeof (fs as unknown as { default: unknown }).default];`,
    ],
    [
      'an import used only as a type is dropped (the module is never loaded)',
      `import { Missing } from './does-not-exist'; const x: Missing | undefined = undefined; module.exports.result = x ?? 'no require';`,
    ],
    [
      'exports are live: a later assignment shows through',
      `export let n = 1; export function bump() { n += 1; } bump(); module.exports.result = exports.n;`,
    ],
  ])('F1 runs as tsc compiles it: %s', (_what, source) => {
    const { swc, tsc } = both(source);
    expect(swc).toEqual(tsc);
  });
});
