// Workspace tools of the LLM worker: file tools, listing, search, and path confinement.
// Real temp directories, no mocks. run_command is covered in tools-run-command.test.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TOOL_DEFINITIONS, runTool } from '../../src/activities/tools';

let ws: string;
let outside: string;
const tmpDirs: string[] = [];

function tmp(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tmpDirs.push(d);
  return d;
}

beforeEach(() => {
  // Nested in a private directory, so `../x` lands somewhere only this test owns.
  ws = path.join(tmp('replanner-ws-'), 'workspace');
  fs.mkdirSync(ws);
  outside = tmp('replanner-outside-');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
});

afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

const put = (rel: string, content: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  fs.writeFileSync(path.join(ws, rel), content);
};
const get = (rel: string) => fs.readFileSync(path.join(ws, rel), 'utf8');

describe('tool definitions', () => {
  it('offers the six tools in OpenAI function format with JSON Schema parameters', () => {
    expect(TOOL_DEFINITIONS.map((t) => t.function.name)).toEqual(['read_file', 'write_file', 'edit_file', 'list_dir', 'search_text', 'run_command']);
    for (const t of TOOL_DEFINITIONS) {
      expect(t.type).toBe('function');
      expect(t.function.description.length).toBeGreaterThan(10);
      expect(t.function.parameters).toMatchObject({ type: 'object', properties: expect.any(Object) });
    }
  });
});

describe('runTool arguments', () => {
  it('unknown tool name is refused with the list of known tools', async () => {
    const r = await runTool(ws, 'delete_everything', {});
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/unknown tool: delete_everything/);
    expect(r.output).toMatch(/read_file, write_file, edit_file, list_dir, search_text, run_command/);
  });

  it('missing or wrong-typed fields are refused with a message naming the field', async () => {
    const missing = await runTool(ws, 'read_file', {});
    expect(missing).toEqual({ ok: false, output: expect.stringMatching(/'path' is required/) });
    const wrongType = await runTool(ws, 'write_file', { path: 'a.txt', content: 42 });
    expect(wrongType).toEqual({ ok: false, output: expect.stringMatching(/'content' must be a string, got number/) });
    const badArgv = await runTool(ws, 'run_command', { argv: ['node', 1] });
    expect(badArgv).toEqual({ ok: false, output: expect.stringMatching(/'argv\[1\]' must be a string/) });
    const badDepth = await runTool(ws, 'list_dir', { depth: 'deep' });
    expect(badDepth).toEqual({ ok: false, output: expect.stringMatching(/'depth' must be a number/) });
    const notObject = await runTool(ws, 'read_file', [1, 2]);
    expect(notObject).toEqual({ ok: false, output: expect.stringMatching(/expected a JSON object/) });
  });

  it('accepts arguments as the JSON text the chat-completions API delivers', async () => {
    put('a.txt', 'hello');
    const r = await runTool(ws, 'read_file', JSON.stringify({ path: 'a.txt' }));
    expect(r).toEqual({ ok: true, output: 'hello' });
  });
});

describe('read_file', () => {
  it('reads a text file', async () => {
    put('src/a.ts', 'export const a = 1;\n');
    expect(await runTool(ws, 'read_file', { path: 'src/a.ts' })).toEqual({ ok: true, output: 'export const a = 1;\n' });
  });

  it('pages by 1-based line offset and limit', async () => {
    put('lines.txt', 'l1\nl2\nl3\nl4\nl5\n');
    const r = await runTool(ws, 'read_file', { path: 'lines.txt', offset: 2, limit: 2 });
    expect(r.ok).toBe(true);
    expect(r.output).toBe('l2\nl3\n[lines 2-3 of 5]');
  });

  it('truncates to maxOutputChars with a truncated marker', async () => {
    put('big.txt', 'x'.repeat(1000));
    const r = await runTool(ws, 'read_file', { path: 'big.txt' }, { maxOutputChars: 100 });
    expect(r.ok).toBe(true);
    expect(r.output).toBe(`${'x'.repeat(100)}\n[truncated: 900 more chars]`);
  });

  it('reports a missing file and a binary file as errors', async () => {
    const missing = await runTool(ws, 'read_file', { path: 'nope.txt' });
    expect(missing).toEqual({ ok: false, output: expect.stringMatching(/not found: nope.txt/) });
    put('img.bin', Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const bin = await runTool(ws, 'read_file', { path: 'img.bin' });
    expect(bin).toEqual({ ok: false, output: expect.stringMatching(/binary file/) });
  });
});

describe('write_file', () => {
  it('writes a file, creating parent dirs, and reports bytes written', async () => {
    const r = await runTool(ws, 'write_file', { path: 'deep/new/dir/f.txt', content: 'héllo' });
    expect(r).toEqual({ ok: true, output: 'wrote 6 bytes to deep/new/dir/f.txt' });
    expect(get('deep/new/dir/f.txt')).toBe('héllo');
  });

  it('overwrites an existing file and accepts empty content', async () => {
    put('f.txt', 'old');
    expect((await runTool(ws, 'write_file', { path: 'f.txt', content: '' })).ok).toBe(true);
    expect(get('f.txt')).toBe('');
  });
});

describe('edit_file', () => {
  it('replaces a unique occurrence', async () => {
    put('a.ts', 'const a = 1;\nconst b = 2;\n');
    const r = await runTool(ws, 'edit_file', { path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = $&3;' });
    expect(r).toEqual({ ok: true, output: 'replaced 1 occurrence in a.ts at line 2' });
    expect(get('a.ts')).toBe('const a = 1;\nconst b = $&3;\n');
  });

  it('edit_file with 0 occurrences fails and leaves the file unchanged', async () => {
    put('a.ts', 'const a = 1;\n');
    const r = await runTool(ws, 'edit_file', { path: 'a.ts', old_string: 'const z', new_string: 'x' });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/not found in a.ts \(0 occurrences\)/);
    expect(get('a.ts')).toBe('const a = 1;\n');
  });

  it('edit_file with 2 occurrences fails, says how many, and leaves the file unchanged', async () => {
    put('a.ts', 'x = 1;\ny = 2;\nx = 1;\n');
    const r = await runTool(ws, 'edit_file', { path: 'a.ts', old_string: 'x = 1;', new_string: 'x = 9;' });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/occurs 2 times in a.ts \(at lines 1, 3\)/);
    expect(get('a.ts')).toBe('x = 1;\ny = 2;\nx = 1;\n');
  });

  it('edit_file on a missing file fails clearly', async () => {
    const r = await runTool(ws, 'edit_file', { path: 'missing.ts', old_string: 'a', new_string: 'b' });
    expect(r).toEqual({ ok: false, output: expect.stringMatching(/not found: missing.ts/) });
  });
});

describe('list_dir', () => {
  beforeEach(() => {
    put('README.md', '#');
    put('src/index.ts', '');
    put('src/lib/util.ts', '');
    put('node_modules/dep/index.js', '');
    put('.git/HEAD', '');
    put('.replanner/runs/r1/log.txt', '');
  });

  it('lists entries with dirs marked by a trailing slash, skipping node_modules/.git/.replanner', async () => {
    const r = await runTool(ws, 'list_dir', {});
    expect(r).toEqual({ ok: true, output: 'README.md\nsrc/' });
  });

  it('descends to the requested depth with paths relative to the workspace root', async () => {
    const r = await runTool(ws, 'list_dir', { path: 'src', depth: 2 });
    expect(r).toEqual({ ok: true, output: 'src/index.ts\nsrc/lib/\nsrc/lib/util.ts' });
  });

  it('caps depth at 5', async () => {
    put('a/b/c/d/e/f/g/h.txt', '');
    const r = await runTool(ws, 'list_dir', { path: 'a', depth: 50 });
    expect(r.ok).toBe(true);
    expect(r.output).toContain('a/b/c/d/e/f/');
    expect(r.output).not.toContain('a/b/c/d/e/f/g/');
  });

  it('reports a missing directory', async () => {
    expect(await runTool(ws, 'list_dir', { path: 'nope' })).toEqual({ ok: false, output: expect.stringMatching(/not found: nope/) });
  });
});

describe('search_text', () => {
  beforeEach(() => {
    put('src/a.ts', 'const alpha = 1;\nconst beta = alpha + 1;\n');
    put('src/b.ts', 'export function a.b() {}\n');
    put('node_modules/dep/index.js', 'const alpha = 0;\n');
    put('.replanner/runs/log.txt', 'alpha\n');
    put('data.bin', Buffer.concat([Buffer.from('alpha'), Buffer.from([0, 1, 2])]));
  });

  it('finds literal text as file:line: text, skipping node_modules/.replanner and binary files', async () => {
    const r = await runTool(ws, 'search_text', { pattern: 'alpha' });
    expect(r).toEqual({ ok: true, output: 'src/a.ts:1: const alpha = 1;\nsrc/a.ts:2: const beta = alpha + 1;' });
  });

  it('treats the pattern literally by default and as a regex on request', async () => {
    const literal = await runTool(ws, 'search_text', { pattern: 'a.b(' });
    expect(literal).toEqual({ ok: true, output: 'src/b.ts:1: export function a.b() {}' });
    const regex = await runTool(ws, 'search_text', { pattern: '^const \\w+ = 1;$', regex: true, path: 'src' });
    expect(regex).toEqual({ ok: true, output: 'src/a.ts:1: const alpha = 1;' });
  });

  it('stops at max_results and says so', async () => {
    const r = await runTool(ws, 'search_text', { pattern: 'const', max_results: 1 });
    expect(r.ok).toBe(true);
    expect(r.output).toMatch(/^src\/a.ts:1: const alpha = 1;\n\[stopped at 1 results/);
  });

  it('reports no matches and invalid regexes', async () => {
    expect(await runTool(ws, 'search_text', { pattern: 'zzz' })).toEqual({ ok: true, output: expect.stringMatching(/no matches/) });
    const bad = await runTool(ws, 'search_text', { pattern: '(', regex: true });
    expect(bad).toEqual({ ok: false, output: expect.stringMatching(/'pattern' is not a valid regular expression/) });
  });
});

describe('workspace confinement', () => {
  const OUTSIDE = /outside the workspace/;

  it('refuses ../x for every path-taking tool', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['read_file', { path: '../x' }],
      ['write_file', { path: '../x', content: 'x' }],
      ['edit_file', { path: '../x', old_string: 'a', new_string: 'b' }],
      ['list_dir', { path: '..' }],
      ['search_text', { pattern: 'SECRET', path: '..' }],
      ['run_command', { argv: ['node', '-e', ''], cwd: '..' }],
    ];
    for (const [name, args] of calls) {
      const r = await runTool(ws, name, args);
      expect({ name, ...r }).toEqual({ name, ok: false, output: expect.stringMatching(OUTSIDE) });
    }
    expect(fs.existsSync(path.join(path.dirname(ws), 'x'))).toBe(false);
  });

  it('refuses an absolute path such as /etc/passwd', async () => {
    const r = await runTool(ws, 'read_file', { path: '/etc/passwd' });
    expect(r).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });
    expect(r.output).not.toContain('root:');
  });

  it('refuses a path that only dips out and back in via ..', async () => {
    const r = await runTool(ws, 'read_file', { path: `../${path.basename(outside)}/secret.txt` });
    expect(r).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });
  });

  it('allows .. that stays inside the workspace', async () => {
    put('a/f.txt', 'ok');
    expect(await runTool(ws, 'read_file', { path: 'a/../a/f.txt' })).toEqual({ ok: true, output: 'ok' });
  });

  it('write_file into a new dir via .. is refused and creates nothing', async () => {
    const r = await runTool(ws, 'write_file', { path: 'sub/../../newdir/f.txt', content: 'x' });
    expect(r).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });
    expect(fs.existsSync(path.join(path.dirname(ws), 'newdir'))).toBe(false);
  });

  it('a symlink inside the workspace pointing outside cannot be read or written through', async () => {
    fs.symlinkSync(outside, path.join(ws, 'link'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'secret-link.txt'));

    const read = await runTool(ws, 'read_file', { path: 'link/secret.txt' });
    expect(read).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });
    const readFileLink = await runTool(ws, 'read_file', { path: 'secret-link.txt' });
    expect(readFileLink).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });

    const write = await runTool(ws, 'write_file', { path: 'link/new/planted.txt', content: 'x' });
    expect(write).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });
    const overwrite = await runTool(ws, 'write_file', { path: 'secret-link.txt', content: 'pwned' });
    expect(overwrite).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });
    const edit = await runTool(ws, 'edit_file', { path: 'secret-link.txt', old_string: 'TOP', new_string: 'NO' });
    expect(edit).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });

    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(fs.existsSync(path.join(outside, 'new'))).toBe(false);
  });

  it('a dangling symlink pointing outside cannot be written through', async () => {
    fs.symlinkSync(path.join(outside, 'created.txt'), path.join(ws, 'dangling.txt'));
    const r = await runTool(ws, 'write_file', { path: 'dangling.txt', content: 'x' });
    expect(r).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });
    expect(fs.existsSync(path.join(outside, 'created.txt'))).toBe(false);
  });

  it('listing and searching do not follow symlinks out of the workspace', async () => {
    fs.symlinkSync(outside, path.join(ws, 'link'));
    put('a.txt', 'nothing here\n');
    const list = await runTool(ws, 'list_dir', { depth: 3 });
    expect(list.ok).toBe(true);
    expect(list.output).toContain(`link -> ${outside}`);
    expect(list.output).not.toContain('secret.txt');
    const search = await runTool(ws, 'search_text', { pattern: 'SECRET' });
    expect(search).toEqual({ ok: true, output: expect.stringMatching(/no matches/) });
    expect(await runTool(ws, 'list_dir', { path: 'link' })).toEqual({ ok: false, output: expect.stringMatching(OUTSIDE) });
  });

  it('symlinks that stay inside the workspace are allowed', async () => {
    put('real/f.txt', 'inside');
    fs.symlinkSync(path.join(ws, 'real'), path.join(ws, 'alias'));
    expect(await runTool(ws, 'read_file', { path: 'alias/f.txt' })).toEqual({ ok: true, output: 'inside' });
    expect((await runTool(ws, 'write_file', { path: 'alias/g.txt', content: 'g' })).ok).toBe(true);
    expect(get('real/g.txt')).toBe('g');
  });

  it('works when the workspace itself is reached through a symlink', async () => {
    const linkToWs = path.join(tmp('replanner-wslink-'), 'ws');
    fs.symlinkSync(ws, linkToWs);
    put('f.txt', 'via link');
    expect(await runTool(linkToWs, 'read_file', { path: 'f.txt' })).toEqual({ ok: true, output: 'via link' });
    expect((await runTool(linkToWs, 'read_file', { path: '../ws/f.txt' })).ok).toBe(false);
  });
});

describe('S1 the run state under .replanner/ is not writable by tools', () => {
  it('S1 write_file and edit_file into .replanner/ (directly or through a symlink) are refused; reading is not', async () => {
    put('.replanner/runs/r1/journal/x.json', '{"value":1}');
    fs.symlinkSync('.replanner', path.join(ws, 'state'));
    for (const [tool, args] of [
      ['write_file', { path: '.replanner/runs/r1/journal/x.json', content: '{"value":"forged"}' }],
      ['write_file', { path: '.replanner/new.json', content: 'x' }],
      ['write_file', { path: 'state/runs/r1/journal/x.json', content: '{"value":"forged"}' }],
      ['edit_file', { path: '.replanner/runs/r1/journal/x.json', old_string: '1', new_string: '2' }],
      ['edit_file', { path: './state/runs/r1/journal/x.json', old_string: '1', new_string: '2' }],
    ] as const) {
      const r = await runTool(ws, tool, args);
      expect([tool, args.path, r.ok, r.output]).toEqual([tool, args.path, false, expect.stringContaining('.replanner/')]);
    }
    expect(get('.replanner/runs/r1/journal/x.json')).toBe('{"value":1}');
    expect(fs.existsSync(path.join(ws, '.replanner/new.json'))).toBe(false);
    expect((await runTool(ws, 'read_file', { path: '.replanner/runs/r1/journal/x.json' })).ok).toBe(true);
    // A name that merely starts with .replanner is an ordinary file.
    expect((await runTool(ws, 'write_file', { path: '.replanner-notes.md', content: 'ok' })).ok).toBe(true);
  });
});
