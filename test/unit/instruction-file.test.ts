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

describe('S3 readInstruction', () => {
  it('S3 reads the whole run-owned file; without a file the input text is the instruction', async () => {
    const ws = workspace();
    const file = instructionFilePath(ws, 'r1');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'FULL TEXT '.repeat(10_000));
    expect(await readInstruction({ runId: 'r1', workspace: ws, instruction: 'head', instructionFile: file })).toBe('FULL TEXT '.repeat(10_000));
    expect(await readInstruction({ runId: 'r1', workspace: ws, instruction: 'inline' })).toBe('inline');
  });

  it('S3 refuses another path, a symlink and a missing file, without retry (InvalidInput)', async () => {
    const ws = workspace();
    const secret = path.join(ws, 'secret.txt');
    fs.writeFileSync(secret, 'SECRET');
    const file = instructionFilePath(ws, 'r1');
    const cases: [string, { instructionFile: string }][] = [
      ['another path', { instructionFile: secret }],
      ['a missing file', { instructionFile: file }],
    ];
    for (const [what, extra] of cases) {
      const error = await readInstruction({ runId: 'r1', workspace: ws, instruction: 'h', ...extra }).then(
        () => undefined,
        (e: unknown) => e as { type?: string; nonRetryable?: boolean },
      );
      expect([what, error?.type, error?.nonRetryable]).toEqual([what, 'InvalidInput', true]);
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'FULL TEXT '.repeat(10_000));
    expect(await readInstruction({ runId: 'r1', workspace: ws, instruction: 'head', instructionFile: file })).toBe('FULL TEXT '.repeat(10_000));
    expect(await readInstruction({ runId: 'r1', workspace: ws, instruction: 'inline' })).toBe('inline');
  });

  it('S3 refuses another path, a symlink and a missing file, without retry (InvalidInput)', async () => {
    const ws = workspace();
    const secret = path.join(ws, 'secret.txt');
    fs.writeFileSync(secret, 'SECRET');
    const file = instructionFilePath(ws, 'r1');
    const cases: [string, { instructionFile: string }][] = [
      ['another path', { instructionFile: secret }],
      ['a missing file', { instructionFile: file }],
    ];
    for (const [what, extra] of cases) {
      const r = readInstruction({ runId: 'r1', workspace: ws, instruction: 'h', ...extra });
      await expect(r.catch((e: unknown) => Promise.reject(Object.assign(e as object, { what })))).rejects.toMatchObject({
        type: 'InvalidInput',
        nonRetryable: true,
        what,
      });
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync(secret, file);
    await expect(readInstruction({ runId: 'r1', workspace: ws, instruction: 'h', instructionFile: file })).rejects.toMatchObject({
      type: 'InvalidInput',
    });
  });
});
