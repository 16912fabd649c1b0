// The files a task changed (V3), read from its worker's tool calls (the transcripts under
// .replanner/runs/<runId>/tasks/<taskId>/). Pure: the caller reads the transcripts.
//
// Counted from the calls themselves: write_file adds the lines of its content (an overwrite's old
// lines are not known from the call: `rewritten`), edit_file removes the lines of old_string and adds
// those of new_string. Only calls that succeeded count. A command (run_command) can change files
// too; those changes are not attributed here (a git diff of the workspace shows them).
import { clip } from './text';

export interface ToolCallRecord {
  name: string;
  /** The call's arguments as the model sent them (a JSON object text). */
  arguments: string;
  ok?: boolean;
}

export interface FileChange {
  path: string;
  added: number;
  removed: number;
  /** write_file calls (each replaced the whole file). */
  writes: number;
  /** edit_file calls. */
  edits: number;
}

function lineCount(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

function argsOf(call: ToolCallRecord): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(call.arguments);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The files the calls changed, in the order first touched. */
export function fileChangesOf(calls: readonly ToolCallRecord[]): FileChange[] {
  const byPath = new Map<string, FileChange>();
  for (const call of calls) {
    if (call.ok === false || (call.name !== 'write_file' && call.name !== 'edit_file')) continue;
    const a = argsOf(call);
    const p = a && typeof a.path === 'string' ? a.path.replace(/^\.\//, '') : undefined;
    if (!a || !p) continue;
    const c = byPath.get(p) ?? { path: p, added: 0, removed: 0, writes: 0, edits: 0 };
    if (call.name === 'write_file') {
      c.writes += 1;
      c.added += lineCount(typeof a.content === 'string' ? a.content : '');
    } else {
      c.edits += 1;
      c.removed += lineCount(typeof a.old_string === 'string' ? a.old_string : '');
      c.added += lineCount(typeof a.new_string === 'string' ? a.new_string : '');
    }
    byPath.set(p, c);
  }
  return [...byPath.values()];
}

/** One line per file: `+12 −3  src/a.ts (1 write, 2 edits)`. */
export function renderFileChanges(changes: readonly FileChange[]): string[] {
  if (changes.length === 0) return ['  (no file written or edited by the worker)'];
  return changes.map((c) => {
    const how = [c.writes ? `${c.writes} write${c.writes > 1 ? 's' : ''}` : '', c.edits ? `${c.edits} edit${c.edits > 1 ? 's' : ''}` : '']
      .filter(Boolean)
      .join(', ');
    return `  +${c.added} −${c.removed}  ${c.path} (${how})`;
  });
}

/** Files a task's current details list (the rest are counted, not listed). */
export const MAX_LISTED_FILES = 40;
const MAX_PATH_CHARS = 200;

/**
 * A worker step's changes, small enough for its result in history: at most MAX_LISTED_FILES
 * files (the rest folded into `more`), paths clipped.
 */
export function stepFileChanges(calls: readonly ToolCallRecord[]): { files: FileChange[]; more: number } {
  const all = fileChangesOf(calls);
  const files = all.slice(0, MAX_LISTED_FILES).map((c) => (c.path.length > MAX_PATH_CHARS ? { ...c, path: clip(c.path, MAX_PATH_CHARS) } : c));
  return { files, more: all.length - files.length };
}

/**
 * A task's running total: `more` (a step's changes) added to `into`, per path in the order
 * first touched. Bounded: past MAX_LISTED_FILES paths a new path is only counted in `unlisted`.
 */
export function addFileChanges(
  into: { files: readonly FileChange[]; unlisted: number },
  more: readonly FileChange[] | undefined,
  moreUnlisted = 0,
): { files: FileChange[]; unlisted: number } {
  const files = into.files.map((c) => ({ ...c }));
  let unlisted = into.unlisted + Math.max(0, moreUnlisted);
  for (const m of more ?? []) {
    const c = files.find((f) => f.path === m.path);
    if (c) {
      c.added += m.added;
      c.removed += m.removed;
      c.writes += m.writes;
      c.edits += m.edits;
    } else if (files.length < MAX_LISTED_FILES) files.push({ ...m });
    else unlisted += 1;
  }
  return { files, unlisted };
}
