// The small files a run keeps beside the workspace (journal, transcripts): an atomic write still
// lands when its directory, remembered as made, was removed meanwhile (a workspace cleaned under a
// long-lived worker).
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
});
