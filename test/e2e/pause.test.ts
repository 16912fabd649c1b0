// O1 through the `replanner` CLI, in-process against the real dev server and a real worker:
// `pause` / `resume` (text and --json), idempotent repeats, `status` showing PAUSED with the
// reason, a finished run refusing both with its final status (exit 1), an unknown run (exit 3).
import { cli } from '../support/cli';
import type { PauseAck, RunStatus } from '../../src/workflows/messages';
import { uniqueId, until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForCli((x) => (h = x));

describe('replanner pause / resume (O1)', () => {
  it('O1 pause with a reason → status PAUSED; repeats acknowledged; resume → DONE; a finished run refuses both with its status (exit 1); unknown run exit 3', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1', 'two.txt': '2' } }], workerDelayMs: 300 });
    const id = uniqueId('pause');
    const started = await cli('run', 'write two files', '--workspace', h.workspace(), '--id', id);
    expect(started.code).toBe(0);

    const paused = await cli('pause', id, 'waiting', 'for', 'review');
    expect({ code: paused.code, err: paused.err }).toEqual({ code: 0, err: '' });
    expect(paused.out).toContain(`Run ${id} paused (waiting for review)`);
    const status = await cli('status', id);
    expect(status.code).toBe(0);
    expect(status.out).toMatch(new RegExp(`Run ${id}: PAUSED`));
    expect(status.out).toContain('PAUSED: paused by you since ');
    expect(status.out).toContain(`(waiting for review) — to go on: npx replanner resume ${id}`);
    const json = JSON.parse((await cli('status', id, '--json')).out) as RunStatus;
    expect(json).toMatchObject({ status: 'PAUSED', pause: { by: 'user', reason: 'waiting for review' } });

    const again = await cli('pause', id, '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out) as PauseAck).toMatchObject({ status: 'PAUSED', changed: false, pause: { reason: 'waiting for review' } });

    // Nothing new starts while paused (the calls in flight finish).
    await until('no LLM call in flight', async () => (h.fake.requests.every((r) => r.finishedAt !== undefined) ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    const seen = h.fake.requests.length;
    await new Promise((r) => setTimeout(r, 2500));
    expect(h.fake.requests.length).toBe(seen);

    const resumed = await cli('resume', id, '--json');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.out) as PauseAck).toMatchObject({ runId: id, status: 'RUNNING', changed: true });
    const result = await h.client.workflow.getHandle(`run-${id}`).result();
    expect(result.status).toBe('DONE');

    for (const cmd of ['pause', 'resume']) {
      const r = await cli(cmd, id);
      expect({ cmd, code: r.code }).toEqual({ cmd, code: 1 });
      expect(r.err).toContain(`run "${id}" already ended: DONE`);
      const j = await cli(cmd, id, '--json');
      expect(j.code).toBe(1);
      expect(JSON.parse(j.out)).toEqual({ runId: id, error: 'run already ended', status: 'DONE' });
    }
    const unknown = await cli('pause', uniqueId('nope'));
    expect(unknown.code).toBe(3);
  });

  it('O1 resume of a running run is acknowledged (exit 0, nothing to resume)', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }], workerDelayMs: 1500 });
    const id = uniqueId('resume');
    expect((await cli('run', 'write one file', '--workspace', h.workspace(), '--id', id)).code).toBe(0);
    const r = await cli('resume', id);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Run ${id} is not paused (RUNNING); nothing to resume.`);
    expect((await h.client.workflow.getHandle(`run-${id}`).result()).status).toBe('DONE');
  });
});
