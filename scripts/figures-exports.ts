// Exports used nowhere, for scripts/figures, read with TypeScript's type checker over the whole
// project (tsconfig.json: src, test, bench, examples, scripts). An export of a src file is used when
// another file refers to it: a name in code or in a type, `ns.name` through `import * as ns`, a
// destructured `await import(…)`. Importing a name and only re-exporting it is not a use: the
// re-export counts only when something uses it in turn. A module used as a whole (a namespace
// passed on as a value, `typeof ns`, `require.resolve('./workflows')` as Temporal's workflowsPath,
// a package.json entry point) uses every export. JavaScript entry points (bin/replanner.js,
// test/support/worker-process.js) use what they take from `require('…').name`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { isUnder, listFiles } from './figures-files';
import { resolveSpecifier } from './figures-imports';

export interface ExportUse {
  file: string;
  name: string;
  line: number;
  /** 're-export': `export { x } from './y'` (an index passing a name on). */
  kind: 'declaration' | 're-export';
  /** Files other than its own that use it. */
  usedBy: string[];
  /** Whether its own file uses it (beyond declaring and exporting it). */
  usedInFile: boolean;
}

export interface ExportFigures {
  /** Exports of src files that no other file uses. */
  unused: ExportUse[];
  /** Exports of src files used only by files under test/ (informational). */
  testOnly: ExportUse[];
}

/** The program tsconfig.json describes, rooted at `root`. */
function projectProgram(root: string): ts.Program {
  const configFile = path.join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(configFile, (f) => fs.readFileSync(f, 'utf8')) as { config: unknown };
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, { noEmit: true }, configFile);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

/** dist/src/x.js (a build path in package.json or a JS entry) → src/x.ts. */
const sourceOfBuild = (p: string): string => p.replace(/^(\.\/)?dist\//, '').replace(/\.(d\.ts|js)$/, '.ts');

export function exportUses(root: string, srcDir = 'src', testDir = 'test'): ExportFigures {
  const program = projectProgram(root);
  const checker = program.getTypeChecker();
  const relOf = (sf: ts.SourceFile) => path.relative(root, sf.fileName).split(path.sep).join('/');
  const own = program.getSourceFiles().filter((sf) => !sf.isDeclarationFile && !relOf(sf).startsWith('..') && !relOf(sf).includes('node_modules'));
  const byRel = new Map(own.map((sf) => [relOf(sf), sf]));
  const used = new Map<ts.Symbol, Set<string>>();

  const mark = (sym: ts.Symbol, from: string) => {
    const set = used.get(sym) ?? new Set<string>();
    set.add(from);
    used.set(sym, set);
  };
  /** The symbol and every alias it passes through, down to the declaration. */
  const markChain = (start: ts.Symbol | undefined, from: string) => {
    const seen = new Set<ts.Symbol>();
    for (let sym = start; sym && !seen.has(sym);) {
      seen.add(sym);
      mark(sym, from);
      sym = sym.flags & ts.SymbolFlags.Alias ? checker.getImmediateAliasedSymbol(sym) : undefined;
    }
  };
  const moduleOf = (rel: string) => {
    const sf = byRel.get(rel);
    return sf && checker.getSymbolAtLocation(sf);
  };
  const markModule = (moduleSym: ts.Symbol | undefined, from: string) => {
    if (moduleSym) for (const e of checker.getExportsOfModule(moduleSym)) markChain(e, from);
  };
  const isModuleSymbol = (s: ts.Symbol) => !!s.declarations?.some((d) => ts.isSourceFile(d));

  for (const sf of own) {
    const from = relOf(sf);
    const visit = (n: ts.Node): void => {
      if (ts.isIdentifier(n)) useIdentifier(n, from);
      else if (ts.isObjectBindingPattern(n)) useDestructuring(n, from);
      else if (ts.isCallExpression(n) && isRequireResolve(n) && n.arguments[0] && ts.isStringLiteralLike(n.arguments[0])) {
        const target = resolveSpecifier(root, from, n.arguments[0].text);
        if (target) markModule(moduleOf(target), from);
      } else if (ts.isImportTypeNode(n) && !n.qualifier) {
        const target =
          ts.isLiteralTypeNode(n.argument) && ts.isStringLiteralLike(n.argument.literal)
            ? resolveSpecifier(root, from, n.argument.literal.text)
            : undefined;
        if (target) markModule(moduleOf(target), from);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }

  function useIdentifier(id: ts.Identifier, from: string) {
    const p = id.parent;
    // Import and export lists name things; the code that refers to them is the use.
    if (ts.isImportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isExportSpecifier(p) || ts.isImportEqualsDeclaration(p))
      return;
    // A declaration's own name is not a use of it.
    if (isNamedDeclaration(p) && p.name === id) return;
    const sym = ts.isShorthandPropertyAssignment(p) && p.name === id ? checker.getShorthandAssignmentValueSymbol(p) : checker.getSymbolAtLocation(id);
    if (!sym) return;
    markChain(sym, from);
    const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
    if (!isModuleSymbol(target)) return;
    // `ns.name` and `ns.Type` use one export (its own identifier is visited); anything else uses all.
    const member = (ts.isPropertyAccessExpression(p) && p.expression === id) || (ts.isQualifiedName(p) && p.left === id);
    if (!member) markModule(target, from);
  }

  function useDestructuring(pattern: ts.ObjectBindingPattern, from: string) {
    const type = checker.getTypeAtLocation(pattern);
    for (const el of pattern.elements) {
      const key = el.propertyName ?? el.name;
      if (ts.isIdentifier(key)) markChain(type.getProperty(key.text), from);
    }
  }

  // JavaScript entry points: require('<file>').name.
  for (const file of listFiles(root, ['bin', 'test', 'scripts', 'examples'], /\.(js|cjs)$/)) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/require\(\s*['"]([^'"]+)['"]\s*\)\s*\.\s*(\w+)/g)) {
      const spec = m[1]!;
      const target = resolveSpecifier(root, file, spec) ?? resolveSpecifier(root, file, spec.replace(/(^|\/)dist\//, '$1'));
      const mod = target && moduleOf(sourceOfBuild(target));
      const exp = mod && checker.getExportsOfModule(mod).find((e) => e.name === m[2]);
      if (exp) markChain(exp, file);
    }
  }
  // package.json entry points: the library's public API.
  for (const entry of packageEntries(root)) markModule(moduleOf(sourceOfBuild(entry)), 'package.json');

  const unused: ExportUse[] = [];
  const testOnly: ExportUse[] = [];
  for (const sf of own) {
    const file = relOf(sf);
    if (!isUnder(file, srcDir)) continue;
    const mod = checker.getSymbolAtLocation(sf);
    if (!mod) continue;
    for (const e of checker.getExportsOfModule(mod)) {
      const decl = e.declarations?.find((d) => d.getSourceFile() === sf);
      if (!decl) continue; // `export *` of another file: reported there
      // `export { x } from './y'`, or `import { x } …; export { x }`: passing a name on.
      const reExport = ts.isExportSpecifier(decl) && (!!decl.parent.parent.moduleSpecifier || isImported(checker.getImmediateAliasedSymbol(e)));
      const usedBy = [...(used.get(e) ?? [])].filter((f) => f !== file).sort();
      const use: ExportUse = {
        file,
        name: e.name,
        line: sf.getLineAndCharacterOfPosition(decl.getStart(sf)).line + 1,
        kind: reExport ? 're-export' : 'declaration',
        usedBy,
        usedInFile: [e, e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e].some((s) => used.get(s)?.has(file)),
      };
      if (usedBy.length === 0) unused.push(use);
      else if (usedBy.every((f) => isUnder(f, testDir))) testOnly.push(use);
    }
  }
  const order = (a: ExportUse, b: ExportUse) => a.file.localeCompare(b.file) || a.line - b.line;
  return { unused: unused.sort(order), testOnly: testOnly.sort(order) };
}

const isImported = (s: ts.Symbol | undefined) =>
  !!s?.declarations?.some((d) => ts.isImportSpecifier(d) || ts.isImportClause(d) || ts.isNamespaceImport(d));

const isNamedDeclaration = (
  n: ts.Node,
): n is
  | ts.FunctionDeclaration
  | ts.ClassDeclaration
  | ts.InterfaceDeclaration
  | ts.TypeAliasDeclaration
  | ts.EnumDeclaration
  | ts.VariableDeclaration
  | ts.ModuleDeclaration =>
  ts.isFunctionDeclaration(n) ||
  ts.isClassDeclaration(n) ||
  ts.isInterfaceDeclaration(n) ||
  ts.isTypeAliasDeclaration(n) ||
  ts.isEnumDeclaration(n) ||
  ts.isVariableDeclaration(n) ||
  ts.isModuleDeclaration(n);

const isRequireResolve = (n: ts.CallExpression) =>
  ts.isPropertyAccessExpression(n.expression) &&
  ts.isIdentifier(n.expression.expression) &&
  n.expression.expression.text === 'require' &&
  n.expression.name.text === 'resolve';

/** The files package.json names as the package's entry points (main, types, exports). */
function packageEntries(root: string): string[] {
  const file = path.join(root, 'package.json');
  if (!fs.existsSync(file)) return [];
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { main?: string; types?: string; exports?: unknown };
  const out = [pkg.main, pkg.types].filter((x): x is string => typeof x === 'string');
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(pkg.exports);
  return [...new Set(out.filter((p) => /^(\.\/)?dist\/src\//.test(p)))];
}
