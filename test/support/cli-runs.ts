// Runs and lists through the real `replanner` CLI (in-process, see cli.ts) that several suites share.
import { scriptTryout } from '../../src/scripted-model/tryout';
import type { RunStatus } from '../../src/workflows/messages';
import { cli } from './cli';
import { uniqueId, until, type Harness } from './harness';

/** `replanner status <id> --json`, parsed. */
export const statusOf = async (id: string): Promise<RunStatus> => JSON.parse((await cli('status', id, '--json')).out) as RunStatus;

/** A run of the scripted model's tryout scenario started by `replanner run`, once it waits for its question q1. */
export async function waitingTryoutRun(h: Harness, prefix: string): Promise<string> {
  h.fake.reset();
  scriptTryout(h.fake, 'ask', 0);
  const id = uniqueId(prefix);
  const started = await cli('run', 'write a guide', '--workspace', h.workspace(), '--id', id);
  if (started.code !== 0) throw new Error(`replanner run exited ${started.code}: ${started.err}`);
  await until('the question', async () => ((await statusOf(id)).status === 'WAITING' ? true : undefined), 60_000);
  return id;
}

/** The run's line in `replanner list` (with its ↳ line, if any); empty when it is not listed. */
export async function listLineOf(id: string, ...flags: string[]): Promise<string> {
  const r = await cli('list', '--limit', '100', ...flags);
  if (r.code !== 0) throw new Error(`replanner list exited ${r.code}: ${r.err}`);
  const lines = r.out.split('\n');
  const i = lines.findIndex((l) => l.startsWith(`${id}\t`));
  return i < 0 ? '' : [lines[i], ...(lines[i + 1]?.startsWith('\t↳') ? [lines[i + 1]] : [])].join('\n');
}
