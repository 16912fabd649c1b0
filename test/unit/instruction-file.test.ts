// S3: activities read a file-given instruction only from the run's own file, never through a symlink.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readInstruction } from '../../src/activities/run-files';
import { instructionFilePath } from '../../src/domain/run-input';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function workspace(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-instr-'));
  dirs.push(d);
  return d;
}

/** The failure readInstruction rejects with (undefined if it resolved). */
async function failureOf(p: Promise<string>): Promise<{ type?: string; nonRetryable?: boolean } | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => e as { type?: string; nonRetryable?: boolean },
  );
}

describe('S3 readInstruction', () => {
  it('S3 reads the whole run-owned file; without a file the input text is the instruction', async () => {
    const ws = workspace();
    const file = instructionFilePath(ws, 'r1');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'FULL TEXT '.repeat(10_000));
    expect(await readInstruction({ runId: 'r1', workspace: ws, instruction: 'head', instructionFile: file })).toBe('FULL TEXT '.repeat(10_000));
    expect(await readInstruction({ runId: 'r1', workspace: ws, instruction: 'inline' })).toBe('inline');
  });

  it('S3 refuses another path, a missing file and a symlink, without retry (InvalidInput)', async () => {
    const ws = workspace();
    const secret = path.join(ws, 'secret.txt');
    fs.writeFileSync(secret, 'SECRET');
    const file = instructionFilePath(ws, 'r1');
    const read = (instructionFile: string) => failureOf(readInstruction({ runId: 'r1', workspace: ws, instruction: 'h', instructionFile }));
    expect(await read(secret)).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
    expect(await read(file)).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync(secret, file);
    expect(await read(file)).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
  });
});
