// What the comments in src say, for scripts/figures: comments are for a newcomer, so they state the
// rule in words. Two counts, over the comments alone (strings and names are not read):
// - requirement IDs cited (X5, O1, R2.3: the pattern of figures-ids): an ID may stand beside the
//   words it stands for, and a few help a reader find a requirement, but a comment made of IDs
//   says nothing to whoever has not learnt them;
// - citations of documents this repository does not contain: the Japanese design documents
//   ("seed 004", "the seed's order"), their sections ("§12.1"), the old digests ("SPEC",
//   "DESIGN.md") and issue or pull-request numbers ("issue 28"). A reader cannot open any of them,
//   so the comment must say the rule itself.
import * as ts from 'typescript';
import { listFiles, SourceCache } from './figures-files';
import { ID_PATTERN, NOT_IDS } from './figures-ids';

export interface CommentHit {
  /** What matched: the ID, or the citation's words. */
  text: string;
  file: string;
  line: number;
}

/**
 * A citation of a document not in the repository: a seed (one of the design documents, with or
 * without its number), a section sign, SPEC or DESIGN in capitals ("spec" and "design" are
 * ordinary words), or an issue or pull request by number.
 */
export const OUTSIDE_DOC_PATTERN =
  /\b[Ss]eeds?\b(?:'s?)?(?:\s+0*\d+)?|§\s*\d+(?:\.\d+)*|\b(?:SPEC|DESIGN)(?:\.md)?\b|\b(?:[Ii]ssues?|PRs?|[Pp]ull [Rr]equests?)\s+#?\d+/g;

/** Each comment of a file, with the line it starts on (1-based). */
export function commentsOf(sf: ts.SourceFile): { text: string; line: number }[] {
  const seen = new Set<number>();
  const out: { text: string; line: number }[] = [];
  const text = sf.getFullText();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push({ text: text.slice(r.pos, r.end), line: sf.getLineAndCharacterOfPosition(r.pos).line + 1 });
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return out.sort((a, b) => a.line - b.line);
}

/** Hits of `pattern` in each comment, with the line of the hit itself. */
function hitsIn(file: string, sf: ts.SourceFile, pattern: RegExp, keep: (m: RegExpExecArray) => string | undefined): CommentHit[] {
  const out: CommentHit[] = [];
  for (const c of commentsOf(sf)) {
    c.text.split('\n').forEach((l, i) => {
      for (const m of l.matchAll(pattern)) {
        const t = keep(m);
        if (t !== undefined) out.push({ text: t, file, line: c.line + i });
      }
    });
  }
  return out;
}

export interface CommentFigures {
  /** Requirement IDs cited in comments. */
  ids: CommentHit[];
  /** Citations of documents not in the repository. */
  outsideDocs: CommentHit[];
}

/** Both counts over the TypeScript and JavaScript files under `dir` (e.g. 'src'). */
export function commentCitations(root: string, dir: string, cache = new SourceCache(root)): CommentFigures {
  const ids: CommentHit[] = [];
  const outsideDocs: CommentHit[] = [];
  for (const file of listFiles(root, [dir])) {
    const sf = cache.get(file);
    ids.push(...hitsIn(file, sf, ID_PATTERN, (m) => (NOT_IDS.has(m[1]!) ? undefined : m[1]!)));
    outsideDocs.push(...hitsIn(file, sf, OUTSIDE_DOC_PATTERN, (m) => m[0]));
  }
  return { ids, outsideDocs };
}

/** Hits per file, most first: "src/a.ts 12". */
export function perFile(hits: CommentHit[]): string[] {
  const count = new Map<string, number>();
  for (const h of hits) count.set(h.file, (count.get(h.file) ?? 0) + 1);
  return [...count].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).map(([f, n]) => `${f} ${n}`);
}
