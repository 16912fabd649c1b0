// S1: the file tools run in the worker, outside the sandbox, while a command of another task may
// change the workspace under them: swap a directory for a symlink to elsewhere between a tool's
// check and its open, or leave a FIFO where a file was. Real files, a real FIFO, a real process
// swapping a real directory; no mocks.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../../src/activities/tools';
import { openInside } from '../../src/activities/tools/open-inside';
import { isForbiddenToWrite } from '../../src/activities/tools/workspace';

let ws: string;
let outside: string;
const tmpDirs: string[] = [];

beforeEach(() => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-swap-'));
  tmpDirs.push(base);
  ws = path.join(base, 'workspace');
  outside = path.join(base, 'outside');
  fs.mkdirSync(ws);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
});

afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * `sub` and `sub.link` in `dir` trade places atomically (renameat2 RENAME_EXCHANGE), as fast as
 * the kernel goes: `sub` is the real directory half the time and the link the other half, so a
 * check and an open a few microseconds apart often see different things.
 */
function spawnSwapper(dir: string): ChildProcess {
  const loop = 'while True: libc.renameat2(-100,b"sub",-100,b"sub.link",2)';
  const script = `import ctypes,os,sys\nlibc=ctypes.CDLL(None,use_errno=True)\nos.chdir(sys.argv[1])\n${loop}`;
  return spawn('python3', ['-c', script, dir], { stdio: 'ignore' });
}

describe('S1 a file tool uses the file it checked, not what the path leads to a moment later', () => {
  it('S1 a path whose directory became a symlink out of the workspace after the check is neither read, written nor created there', async () => {
    // What a swap between the check and the open leaves: `sub` now leads outside.
    fs.symlinkSync(outside, path.join(ws, 'sub'));
    const refusedRead = openInside(ws, path.join(ws, 'sub', 'secret.txt'), 'sub/secret.txt', 'read');
    await expect(refusedRead).rejects.toThrow(/sub\/secret\.txt led outside the workspace when it was opened.*nothing was read/);
    const overwrite = openInside(ws, path.join(ws, 'sub', 'secret.txt'), 'sub/secret.txt', 'write');
    await expect(overwrite).rejects.toThrow(/led outside the workspace.*nothing was written/);
    const create = openInside(ws, path.join(ws, 'sub', 'planted.txt'), 'sub/planted.txt', 'write');
    await expect(create).rejects.toThrow(/led outside the workspace/);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('S1 a path whose directory became a symlink into .git or .replanner after the check is not written there', async () => {
    fs.mkdirSync(path.join(ws, '.git'));
    fs.writeFileSync(path.join(ws, '.git', 'config'), '[core]\n');
    fs.symlinkSync(path.join(ws, '.git'), path.join(ws, 'sub'));
    const write = openInside(ws, path.join(ws, 'sub', 'config'), 'sub/config', 'write', isForbiddenToWrite);
    await expect(write).rejects.toThrow(/sub\/config led into \.replanner\/ or \.git\/.*nothing was written/);
    const create = openInside(ws, path.join(ws, 'sub', 'hooks-x'), 'sub/hooks-x', 'write', isForbiddenToWrite);
    await expect(create).rejects.toThrow(/led into/);
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(fs.readdirSync(path.join(ws, '.git'))).toEqual(['config']);
  });

  it('S1 write_file and read_file racing a process that swaps a directory for a symlink out of the workspace: nothing outside is ever read or written', async () => {
    fs.mkdirSync(path.join(ws, 'sub'));
    fs.symlinkSync(outside, path.join(ws, 'sub.link'));
    fs.writeFileSync(path.join(outside, 'f.txt'), 'OUTSIDE\n');
    fs.writeFileSync(path.join(ws, 'sub', 'f.txt'), 'inside\n');
    const swapper = spawnSwapper(ws);
    const reads = new Set<string>();
    try {
      for (let i = 0; i < 400; i++) {
        const w = await runTool(ws, 'write_file', { path: 'sub/f.txt', content: `inside ${i}\n` });
        if (!w.ok) expect(w.output).toMatch(/not found|led outside the workspace|outside the workspace/);
        const r = await runTool(ws, 'read_file', { path: 'sub/f.txt' });
        if (r.ok) reads.add(r.output);
        else expect(r.output).toMatch(/not found|led outside the workspace|outside the workspace/);
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(fs.readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe('OUTSIDE\n');
    expect(fs.readdirSync(outside).sort()).toEqual(['f.txt', 'secret.txt']);
    // A read may fall between a write's truncation and its content: empty, never the outside file.
    expect([...reads].filter((r) => r !== '' && !r.startsWith('inside '))).toEqual([]);
  }, 60_000);

  it('S1 write_file making new directories while a directory on the way is swapped for a symlink out of the workspace: no directory is left outside', async () => {
    fs.mkdirSync(path.join(ws, 'sub'));
    fs.symlinkSync(outside, path.join(ws, 'sub.link'));
    const swapper = spawnSwapper(ws);
    try {
      for (let i = 0; i < 300; i++) {
        const w = await runTool(ws, 'write_file', { path: `sub/new${i}/deeper/f.txt`, content: 'x' });
        if (!w.ok) expect(w.output).toMatch(/led outside the workspace|outside the workspace|not found/);
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
  }, 60_000);

  it('S1 list_dir and search_text racing a swap of a directory for a symlink out of the workspace: nothing outside is ever listed or found', async () => {
    fs.mkdirSync(path.join(ws, 'sub'));
    fs.writeFileSync(path.join(ws, 'sub', 'inside.txt'), 'needle inside\n');
    fs.symlinkSync(outside, path.join(ws, 'sub.link'));
    const swapper = spawnSwapper(ws);
    const seen: string[] = [];
    try {
      for (let i = 0; i < 300; i++) {
        const l = await runTool(ws, 'list_dir', { path: 'sub' });
        const s = await runTool(ws, 'search_text', { pattern: 'TOP', path: 'sub' });
        seen.push(l.output, s.ok ? s.output : '');
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(seen.filter((o) => o.includes('secret.txt') || o.includes('TOP SECRET'))).toEqual([]);
  }, 60_000);

  it('S1 a FIFO where a file was: read_file, write_file and edit_file fail at once with a clear error instead of hanging the tool', async () => {
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    const started = Date.now();
    expect(await runTool(ws, 'read_file', { path: 'pipe' })).toEqual({ ok: false, output: 'read_file: pipe is not a regular file' });
    expect(await runTool(ws, 'write_file', { path: 'pipe', content: 'x' })).toEqual({
      ok: false,
      output: 'write_file: pipe is not a regular file (a pipe with no reader)',
    });
    expect(await runTool(ws, 'edit_file', { path: 'pipe', old_string: 'a', new_string: 'b' })).toEqual({
      ok: false,
      output: 'edit_file: pipe is not a regular file',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  }, 5_000);

  it('S1 read_file of a directory still says it is a directory', async () => {
    fs.mkdirSync(path.join(ws, 'd'));
    expect(await runTool(ws, 'read_file', { path: 'd' })).toEqual({ ok: false, output: 'read_file: is a directory, not a file: d' });
  });
});
