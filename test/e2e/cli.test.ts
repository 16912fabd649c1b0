// Issue 3: the `replanner` CLI in-process against the real dev server and a real worker.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { cli } from '../support/cli';
import { uniqueId, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { freePort } from '../support/dev-server';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForCli((x) => (h = x));

/** The CLI in its own process (so it can get a real SIGINT), once it has printed a phase line. */
async function cliUntilPhase(...args: string[]) {
  const child = spawn(process.execPath, ['-r', './test/support/ts-register.js', 'test/support/cli-main.ts', ...args], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const got = { out: '', err: '' };
  child.stdout.on('data', (d: Buffer) => (got.out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (got.err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  for (let i = 0; i < 150 && !got.out.includes('phase:'); i++) await new Promise((r) => setTimeout(r, 200));
  return {
    child,
    exited,
    get out() {
      return got.out;
    },
    get err() {
      return got.err;
    },
  };
}

describe('replanner CLI', () => {
  it('B4 run --wait --json runs to DONE; status, list and watch show it', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
    const ws = h.workspace();
    const id = uniqueId('cli');
    const run = await cli('run', 'write one file', '--workspace', ws, '--wait', '--json', '--id', id);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const final = JSON.parse(run.out);
    expect(final.status).toBe('DONE');
    expect(final.tasks[0]).toMatchObject({ id: 'one', state: 'DONE' });

    // Cancelling a run that already ended says so (exit 1), it does not claim to cancel anything.
    const late = await cli('cancel', id);
    expect(late.code).toBe(1);
    expect(late.err).toContain(`run ${id} already ended (DONE); nothing to cancel`);

    const status = await cli('status', id, '--json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ runId: id, status: 'DONE', phase: 'finished' });

    const human = await cli('status', id);
    expect(human.out).toContain(`Run ${id}: DONE`);
    expect(human.out).toContain('[x] one: write one');

    const watch = await cli('watch', id);
    expect(watch.code).toBe(0);
    expect(watch.out).toContain(`Run ${id}: DONE`);

    // Visibility is eventually consistent: list may need a moment to see the run.
    let listed: { runId: string }[] = [];
    for (let i = 0; i < 20 && !listed.some((r) => r.runId === id); i++) {
      listed = JSON.parse((await cli('list', '--json', '--limit', '100')).out);
      if (!listed.some((r) => r.runId === id)) await new Promise((r) => setTimeout(r, 500));
    }
    expect(listed.map((r) => r.runId)).toContain(id);
  });

  it('run without --wait prints the run id and the Web UI link', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
    const id = uniqueId('cli');
    const r = await cli('run', 'write one file', '--workspace', h.workspace(), '--id', id);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Started run ${id}`);
    expect(r.out).toContain(`/namespaces/default/workflows/run-${id}`);
    // S3: the same --id while that run is still going: a usage error that says what to do.
    const again = await cli('run', 'write one file', '--workspace', h.workspace(), '--id', id);
    expect(again.code).toBe(2);
    expect(again.err).toContain(`a run with id "${id}" is already running; choose another --id`);
    await h.client.workflow.getHandle(`run-${id}`).result();
  });

  it('cancel stops a run: exit code 1 from watch and status CANCELLED', async () => {
    scriptScenario(h.fake, {
      tasks: [{ id: 'slow', title: 'slow', command: ['node', '-e', 'setTimeout(() => {}, 60000)'] }],
    });
    const id = uniqueId('cli');
    expect((await cli('run', 'be slow', '--workspace', h.workspace(), '--id', id)).code).toBe(0);
    for (let i = 0; i < 100; i++) {
      const s = JSON.parse((await cli('status', id, '--json')).out);
      if (s.tasks.some((t: { state: string }) => t.state === 'RUNNING')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const c = await cli('cancel', id, '--json');
    expect(c.code).toBe(0);
    expect(JSON.parse(c.out)).toEqual({ runId: id, cancelRequested: true });
    const w = await cli('watch', id);
    expect(w.code).toBe(1);
    expect(w.out).toContain('CANCELLED');
  });

  it('usage errors exit 2, unknown runs exit 3, --help exits 0', async () => {
    expect((await cli('run', 'x')).code).toBe(2);
    expect((await cli('run', 'x')).err).toContain('--workspace');
    expect((await cli('run', 'x', '--workspace', '/definitely/not/here')).err).toContain('is not a directory');
    expect((await cli('frobnicate')).code).toBe(2);
    const missing = await cli('status', 'no-such-run');
    expect(missing.code).toBe(3);
    expect(missing.err).toContain('no run "no-such-run"');
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage:');
  });

  it('B3 Ctrl-C during run --wait stops the waiting, not the run, and says how to reattach or cancel', async () => {
    scriptScenario(h.fake, {
      tasks: [{ id: 'slow', title: 'slow', command: ['node', '-e', 'setTimeout(() => {}, 60000)'] }],
    });
    const id = uniqueId('cli');
    const c = await cliUntilPhase('run', 'be slow', '--workspace', h.workspace(), '--id', id, '--wait');
    expect(c.out).toContain(`Started run ${id}`);
    expect(c.out).toContain('phase:');
    c.child.kill('SIGINT');
    expect(await c.exited).toBe(130);
    expect(c.err).toContain(`Stopped watching; run ${id} goes on. Reattach: npx replanner watch ${id} · cancel it: npx replanner cancel ${id}`);
    // The run goes on; the command it names cancels it.
    expect(JSON.parse((await cli('status', id, '--json')).out).status).toBe('RUNNING');
    expect((await cli('cancel', id)).code).toBe(0);
    await h.client.workflow
      .getHandle(`run-${id}`)
      .result()
      .catch(() => undefined);
  });

  it('Ctrl-C while watching stops the watching, not the run, and says how to reattach or cancel', async () => {
    scriptScenario(h.fake, {
      tasks: [{ id: 'slow', title: 'slow', command: ['node', '-e', 'setTimeout(() => {}, 60000)'] }],
    });
    const id = uniqueId('cli');
    expect((await cli('run', 'be slow', '--workspace', h.workspace(), '--id', id)).code).toBe(0);
    const c = await cliUntilPhase('watch', id);
    expect(c.out).toContain('phase:');
    c.child.kill('SIGINT');
    expect(await c.exited).toBe(130);
    expect(c.err).toContain(`Stopped watching; run ${id} goes on. Reattach: npx replanner watch ${id} · cancel it: npx replanner cancel ${id}`);
    const s = JSON.parse((await cli('status', id, '--json')).out);
    expect(s.status).toBe('RUNNING');
    expect((await cli('cancel', id)).code).toBe(0);
    await h.client.workflow
      .getHandle(`run-${id}`)
      .result()
      .catch(() => undefined);
  });
});

describe('replanner worker without a server', () => {
  it('O5 `replanner worker` with no Temporal server says where it looked and how to start one; exit 3', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['-r', './test/support/ts-register.js', 'test/support/cli-main.ts', 'worker'], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(err).toContain(`replanner: no Temporal server answers at 127.0.0.1:${port} (`);
    expect(err).toContain(
      `Start one in another shell, from the clone: TEMPORAL_ADDRESS=127.0.0.1:${port} npm run server (any \`run\` starts it too)`,
    );
    expect(code).toBe(3);
  });
});
