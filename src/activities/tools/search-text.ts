// search_text {pattern, path?, regex?, max_results?}: "file:line: text", pure Node.
import { promises as fsp } from 'node:fs';
import { toolArgs } from './args';
import { fsError } from './fs-errors';
import { clipAfter, clipOutput } from '../../domain/text';
import { readInside } from './file-tools';
import { looksBinary } from './output';
import { walk } from './walk';
import { resolveInWorkspace, toRel } from './workspace';
import { ResolvedToolOptions, ToolResult, succeed } from './types';

const DEFAULT_MAX_RESULTS = 50;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINE_CHARS = 300;

export async function searchText(root: string, raw: unknown, opts: ResolvedToolOptions): Promise<ToolResult> {
  const args = toolArgs('search_text', raw);
  const pattern = args.string('pattern');
  const p = args.optionalString('path') || '.';
  const isRegex = args.optionalBoolean('regex') ?? false;
  const maxResults = args.optionalNumber('max_results', { integer: true, min: 1 }) ?? DEFAULT_MAX_RESULTS;
  const { abs, rel } = await resolveInWorkspace(root, 'path', p);

  let matches: (line: string) => boolean;
  if (isRegex) {
    let re: RegExp;
    try {
      re = new RegExp(pattern);
    } catch (err) {
      throw args.invalid('pattern', `is not a valid regular expression: ${(err as Error).message}`);
    }
    matches = (line) => re.test(line);
  } else {
    matches = (line) => line.includes(pattern);
  }

  let files: AsyncIterable<string>;
  try {
    const st = await fsp.stat(abs);
    files = st.isDirectory() ? filesUnder(root, abs) : single(abs);
  } catch (err) {
    throw fsError(err, rel);
  }

  const results: string[] = [];
  let more = false;
  outer: for await (const file of files) {
    let buf: Buffer;
    try {
      const st = await fsp.stat(file);
      if (st.size > MAX_FILE_BYTES) continue;
      buf = await readInside(root, file, toRel(root, file));
    } catch {
      continue;
    }
    if (looksBinary(buf)) continue;
    const lines = buf.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.replace(/\r$/, '');
      if (!matches(line)) continue;
      if (results.length >= maxResults) {
        more = true;
        break outer;
      }
      const shown = clipAfter(line, MAX_LINE_CHARS);
      results.push(`${toRel(root, file)}:${i + 1}: ${shown}`);
    }
  }
  if (results.length === 0) return succeed(`no matches for ${isRegex ? 'regex' : 'text'} ${JSON.stringify(pattern)} in ${rel}`);
  if (more) results.push(`[stopped at ${maxResults} results; narrow the path or pattern, or raise max_results]`);
  return succeed(clipOutput(results.join('\n'), opts.maxOutputChars));
}

async function* filesUnder(root: string, dir: string): AsyncGenerator<string> {
  for await (const e of walk(root, dir, Infinity)) if (e.kind === 'file') yield e.abs;
}

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}
