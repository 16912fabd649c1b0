// Runs `replanner …` in-process (the real main(), against whatever TEMPORAL_ADDRESS says) and
// collects what it printed.
import { PassThrough } from 'node:stream';
import { main } from '../../src/client/cli';

export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { write: (s: string) => (out += s) }, { write: (s: string) => (err += s) }, new PassThrough());
  return { code, out, err };
}
