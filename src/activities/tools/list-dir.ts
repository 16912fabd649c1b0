// list_dir {path?, depth?}: entries relative to the workspace root, directories end in '/'.
import { promises as fsp } from 'node:fs';
import { toolArgs } from './args';
import { fsError } from './fs-errors';
import { clipOutput } from '../../domain/text';
import { walk } from './walk';
import { resolveInWorkspace, toRel } from './workspace';
import { ResolvedToolOptions, ToolError, ToolResult, succeed } from './types';

export const MAX_LIST_DEPTH = 5;
const MAX_ENTRIES = 5000;

export async function listDir(root: string, raw: unknown, opts: ResolvedToolOptions): Promise<ToolResult> {
  const args = toolArgs('list_dir', raw);
  const p = args.optionalString('path') || '.';
  const depth = Math.min(args.optionalNumber('depth', { integer: true, min: 1 }) ?? 1, MAX_LIST_DEPTH);
  const { abs, rel } = await resolveInWorkspace(root, 'path', p);
  try {
    const st = await fsp.stat(abs);
    if (!st.isDirectory()) throw new ToolError(`not a directory: ${rel}`);
  } catch (err) {
    throw fsError(err, rel);
  }
  const lines: string[] = [];
  let capped = false;
  for await (const e of walk(root, abs, depth)) {
    if (lines.length >= MAX_ENTRIES) {
      capped = true;
      break;
    }
    const name = toRel(root, e.abs);
    if (e.kind === 'dir') lines.push(`${name}/`);
    else if (e.kind === 'symlink') lines.push(`${name} -> ${await fsp.readlink(e.abs).catch(() => '?')}`);
    else lines.push(name);
  }
  if (lines.length === 0) return succeed(`${rel === '.' ? 'workspace root' : rel + '/'} is empty`);
  if (capped) lines.push(`[stopped after ${MAX_ENTRIES} entries; list a subdirectory or use a smaller depth]`);
  return succeed(clipOutput(lines.join('\n'), opts.maxOutputChars));
}
