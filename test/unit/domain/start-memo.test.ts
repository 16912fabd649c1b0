// The start memo stays under Temporal's 2,048-byte memo warning (TMPRL1103), measured as the SDK
// measures it: the Memo message the client sends, encoded by the default payload converter.
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { START_MEMO_MAX_BYTES, startMemo } from '../../../src/domain/start-memo';
import { runStartOptions } from '../../../src/workflows/run-start';

const MEMO_WARN_BYTES = 2048;

function encodedMemoBytes(memo: Record<string, unknown>): number {
  const fields = Object.fromEntries(Object.entries(memo).map(([k, v]) => [k, defaultPayloadConverter.toPayload(v)]));
  return temporal.api.common.v1.Memo.encode({ fields }).finish().length;
}

describe('O5 the memo a run starts with', () => {
  it('O5 a short instruction and workspace are kept as they are', () => {
    expect(startMemo('write a.txt', '/work/ws')).toEqual({ instruction: 'write a.txt', workspace: '/work/ws' });
  });

  it('O5 worst cases stay under the 2,048-byte memo warning: 2,000 characters of Japanese, emoji, quotes and control characters, a 4 KB workspace path', () => {
    const cases = [
      ['あ'.repeat(5000), '/work/ws'],
      ['😀'.repeat(3000), '/work/ws'],
      ['"\\\n\u0001'.repeat(1000), '/work/ws'],
      ['x'.repeat(100_000), `/${'ワ'.repeat(1400)}`],
      ['命令'.repeat(1000), `/${'d'.repeat(4095)}`],
    ] as const;
    for (const [instruction, workspace] of cases) {
      const memo = runStartOptions({ runId: 'r1', instruction, workspace }).memo;
      expect(encodedMemoBytes(memo)).toBeLessThanOrEqual(MEMO_WARN_BYTES);
      expect(Buffer.byteLength(JSON.stringify(memo.instruction)) + Buffer.byteLength(JSON.stringify(memo.workspace))).toBeLessThanOrEqual(
        START_MEMO_MAX_BYTES,
      );
      // Clipped at a character, marked, and as long as fits.
      expect(memo.instruction.endsWith('…')).toBe(true);
      expect(instruction.startsWith(memo.instruction.slice(0, -1))).toBe(true);
      expect(memo.instruction.length).toBeGreaterThan(100);
    }
    // What the memo had before: 2,000 characters of an instruction passed the warning.
    expect(encodedMemoBytes({ instruction: 'x'.repeat(2000), workspace: '/work/ws' })).toBeGreaterThan(MEMO_WARN_BYTES);
  });

  it('O5 a workspace path up to 1 KB is kept whole (the running-run check compares it)', () => {
    const workspace = `/${'d'.repeat(1000)}`;
    expect(startMemo('y'.repeat(3000), workspace).workspace).toBe(workspace);
  });
});
