// Issue 28, the CLI's papercuts against the real dev server and a real worker: `watch | head` ends
// quietly, a used --id is refused with the reason, and a --json error is JSON on stdout. The runs
// are the scripted model's tryout scenario (one question, two files).
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { RunListing } from '../../src/client/runs';
import { cli } from '../support/cli';
import { statusOf, waitingTryoutRun } from '../support/cli-runs';
import { until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';

let h: Harness;
harnessForCli((x) => (h = x));

const root = path.resolve(__dirname, '../..');
describe('CLI papercuts', () => {
  it('`replanner watch <id> | head -n 1` ends quietly when head has gone (no EPIPE stack trace), exit 0', async () => {
    const id = await waitingTryoutRun(h, 'pipe');
    // pipefail: the pipeline fails if watch does.
    const cmd = `set -o pipefail; node -r ./test/support/ts-register.js test/support/cli-main.ts watch ${id} | head -n 1`;
    const shell = spawn('bash', ['-c', cmd], { cwd: root, env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    shell.stdout.on('data', (d: Buffer) => (out += d.toString()));
    shell.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => shell.on('exit', (c) => resolve(c)));
    await until('head to print its line', async () => (out.includes('\n') ? true : undefined), 60_000);
    // Watch writes again once the run goes on: into the closed pipe.
    expect((await cli('answer', id, 'q1', 'my team')).code).toBe(0);
    expect(await exited).toBe(0);
    expect(out).toBe('phase: Goal\n');
    expect(err).toBe('');
  });

  it('the --id of a run that ended (here cancelled) is refused with the reason; list keeps one row for it', async () => {
    const id = await waitingTryoutRun(h, 'reuse');
    expect((await cli('cancel', id)).code).toBe(0);
    await until('the run to end CANCELLED', async () => ((await statusOf(id)).status === 'CANCELLED' ? true : undefined));
    // …and its workflow to close (it lets go of its workspace lock first).
    await h.client.workflow
      .getHandle(`run-${id}`)
      .result()
      .catch(() => undefined);
    const again = await cli('run', 'write a guide', '--workspace', h.workspace(), '--id', id);
    expect(again.code).toBe(2);
    expect(again.err).toContain(`replanner: the run id "${id}" is taken by a run that ended CANCELLED (started `);
    expect(again.err).toContain('Choose another --id, or leave it out for a fresh one');
    const rows = await until('the run in the list', async () => {
      const listed = (JSON.parse((await cli('list', '--json', '--limit', '1000')).out) as RunListing[]).filter((r) => r.runId === id);
      return listed.length ? listed : undefined;
    });
    expect(rows).toHaveLength(1);
  });

  it('with --json an error is also JSON on stdout (message, type, exit code); the line stays on stderr', async () => {
    const missing = await cli('status', 'no-such-run', '--json');
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.out)).toEqual({ error: { message: expect.stringContaining('no run "no-such-run"'), type: 'NotFound', exitCode: 3 } });
    expect(missing.err).toContain('replanner: no run "no-such-run"');
    const usage = await cli('answer', 'x', '--json');
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.out)).toMatchObject({ error: { type: 'UsageError', exitCode: 2 } });
  });
});
