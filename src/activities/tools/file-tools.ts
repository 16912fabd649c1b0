// read_file, write_file, edit_file.
import * as path from 'node:path';
import { toolArgs } from './args';
import { fsError } from './fs-errors';
import { clipOutput } from '../../domain/text';
import { looksBinary } from './output';
import { mkdirInside, openInside } from './open-inside';
import { isForbiddenToWrite, resolveInWorkspace } from './workspace';
import { ResolvedToolOptions, ToolError, ToolResult, succeed } from './types';

/** read_file {path, offset?, limit?}: offset is a 1-based line number, limit a line count. */
export async function readFile(root: string, raw: unknown, opts: ResolvedToolOptions): Promise<ToolResult> {
  const args = toolArgs('read_file', raw);
  const p = args.string('path');
  const offset = args.optionalNumber('offset', { integer: true, min: 1 }) ?? 1;
  const limit = args.optionalNumber('limit', { integer: true, min: 1 });
  const { abs, rel } = await resolveInWorkspace(root, 'path', p);
  const buf = await readInside(root, abs, rel);
  if (looksBinary(buf)) throw new ToolError(`binary file, not shown: ${rel} (${buf.length} bytes)`);
  const text = buf.toString('utf8');
  if (offset === 1 && limit === undefined) return succeed(clipOutput(text, opts.maxOutputChars));

  const lines = text.split('\n');
  const total = text.endsWith('\n') ? lines.length - 1 : lines.length;
  if (offset > total && total > 0) throw new ToolError(`offset ${offset} is past the end of ${rel} (${total} lines)`);
  const end = limit === undefined ? total : Math.min(total, offset - 1 + limit);
  const slice = lines.slice(offset - 1, end).join('\n');
  const note = end < total || offset > 1 ? `\n[lines ${offset}-${end} of ${total}]` : '';
  return succeed(clipOutput(slice, opts.maxOutputChars) + note);
}

/** write_file {path, content}: creates parent directories, replaces the file. */
export async function writeFile(root: string, raw: unknown): Promise<ToolResult> {
  const args = toolArgs('write_file', raw);
  const p = args.string('path');
  const content = args.string('content', { allowEmpty: true });
  const { abs, rel } = await resolveInWorkspace(root, 'path', p, { write: true });
  try {
    await mkdirInside(root, path.dirname(abs), rel);
  } catch (err) {
    throw fsError(err, rel);
  }
  await writeInside(root, abs, rel, content);
  return succeed(`wrote ${Buffer.byteLength(content, 'utf8')} bytes to ${rel}`);
}

/** edit_file {path, old_string, new_string}: replaces exactly one occurrence of old_string. */
export async function editFile(root: string, raw: unknown): Promise<ToolResult> {
  const args = toolArgs('edit_file', raw);
  const p = args.string('path');
  const oldString = args.string('old_string');
  const newString = args.string('new_string', { allowEmpty: true });
  const { abs, rel } = await resolveInWorkspace(root, 'path', p, { write: true });
  const buf = await readInside(root, abs, rel);
  if (looksBinary(buf)) throw new ToolError(`binary file, cannot edit: ${rel}`);
  const text = buf.toString('utf8');
  const positions = occurrences(text, oldString);
  if (positions.length === 0) {
    throw new ToolError(`old_string not found in ${rel} (0 occurrences); read the file and copy the exact text, including whitespace`);
  }
  if (positions.length > 1) {
    const lines = positions.slice(0, 10).map((i) => lineOf(text, i));
    throw new ToolError(
      `old_string occurs ${positions.length} times in ${rel} (at lines ${lines.join(', ')}${positions.length > 10 ? ', …' : ''}); ` +
        'it must be unique: include more surrounding context',
    );
  }
  const at = positions[0]!;
  const updated = text.slice(0, at) + newString + text.slice(at + oldString.length);
  await writeInside(root, abs, rel, updated);
  return succeed(`replaced 1 occurrence in ${rel} at line ${lineOf(text, at)}`);
}

/** The whole file at `abs`, read from what openInside checked. */
export async function readInside(root: string, abs: string, rel: string): Promise<Buffer> {
  try {
    const fh = await openInside(root, abs, rel, 'read');
    try {
      return await fh.readFile();
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw fsError(err, rel);
  }
}

/** Replaces the file at `abs` with `content`; truncated only once openInside has checked it. */
async function writeInside(root: string, abs: string, rel: string, content: string): Promise<void> {
  try {
    const fh = await openInside(root, abs, rel, 'write', isForbiddenToWrite);
    try {
      await fh.truncate(0);
      await fh.writeFile(content, 'utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw fsError(err, rel);
  }
}

/** Start indexes of every (possibly overlapping) occurrence. */
function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) out.push(i);
  return out;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
