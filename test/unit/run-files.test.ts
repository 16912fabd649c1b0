// The small files a run keeps beside the workspace (journal, transcripts): an atomic write still
// lands when its directory, remembered as made, was removed meanwhile (a workspace cleaned under a
// long-lived worker); a file this process wrote reads back from memory (issue 11: no file system
// round trip for the next worker step's conversation), as a copy, and only the latest few are kept.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readJson, writeJsonAtomic } from '../../src/activities/run-files';

describe('run files', () => {
  it('writes atomically, reads back, and a missing file reads as undefined', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-files-'));
    const file = path.join(dir, 'a', 'b', 'x.json');
    expect(await readJson(file)).toBeUndefined();
    await writeJsonAtomic(file, { v: 1 });
    expect(await readJson(file)).toEqual({ v: 1 });
    expect(fs.readdirSync(path.dirname(file))).toEqual(['x.json']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('makes the directory again when it was removed after its first write', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-files-'));
    const file = path.join(dir, 'runs', 'r1', 'journal', 'x.json');
    await writeJsonAtomic(file, { v: 1 });
    fs.rmSync(path.join(dir, 'runs'), { recursive: true, force: true });
    await writeJsonAtomic(file, { v: 2 });
    expect(await readJson(file)).toEqual({ v: 2 });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads back what this process wrote from memory, as a copy; an older write is read from disk', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-files-'));
    const first = path.join(dir, 'first.json');
    await writeJsonAtomic(first, { v: 1, list: [1] });
    // Changed behind the process's back: the process still reads what it wrote (its own last write).
    fs.writeFileSync(first, JSON.stringify({ v: 'disk' }));
    const read = await readJson<{ v: number; list: number[] }>(first);
    expect(read).toEqual({ v: 1, list: [1] });
    read!.list.push(2);
    expect(await readJson(first)).toEqual({ v: 1, list: [1] });
    // A file never written by this process comes from disk.
    fs.writeFileSync(path.join(dir, 'other.json'), JSON.stringify({ v: 'other' }));
    expect(await readJson(path.join(dir, 'other.json'))).toEqual({ v: 'other' });
    // Past the bound (512 files), the oldest is forgotten and read from disk again.
    for (let i = 0; i < 600; i += 1) await writeJsonAtomic(path.join(dir, 'many', `${i}.json`), { i });
    expect(await readJson(first)).toEqual({ v: 'disk' });
    expect(await readJson(path.join(dir, 'many', '599.json'))).toEqual({ i: 599 });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
