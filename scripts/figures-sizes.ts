// File and function sizes for scripts/figures: lines per file (as `wc -l` counts them) and lines
// per function, measured on the syntax tree from the function's first token to its last, for
// function declarations, methods, constructors, accessors, arrows and function expressions. A
// function nested in another counts on its own, and inside its parent's lines too.
import * as ts from 'typescript';
import { lineCount, listFiles, SourceCache } from './figures-files';

export interface FileSize {
  file: string;
  lines: number;
}

export interface FunctionSize {
  file: string;
  name: string;
  /** First and last line, 1-based, inclusive. */
  start: number;
  end: number;
  lines: number;
}

export const fileSizes = (root: string, dirs: string[], cache = new SourceCache(root)): FileSize[] =>
  listFiles(root, dirs)
    .map((file) => ({ file, lines: lineCount(cache.text(file)) }))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression;

const isFunctionNode = (n: ts.Node): n is FunctionNode =>
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n) ||
  ts.isArrowFunction(n) ||
  ts.isFunctionExpression(n);

/** A readable name: the declared one, else what the function is assigned to, else "<anonymous>". */
function nameOf(n: FunctionNode, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  if (n.name) return n.name.getText(sf);
  const p = n.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText(sf);
  if (ts.isCallExpression(p)) return `<callback of ${p.expression.getText(sf).slice(0, 40)}>`;
  return '<anonymous>';
}

export function functionSizes(root: string, dirs: string[], cache = new SourceCache(root)): FunctionSize[] {
  const out: FunctionSize[] = [];
  for (const file of listFiles(root, dirs)) {
    const sf = cache.get(file);
    const visit = (n: ts.Node) => {
      if (isFunctionNode(n) && n.body) {
        const start = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
        const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line + 1;
        out.push({ file, name: nameOf(n, sf), start, end, lines: end - start + 1 });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.start - b.start);
}
