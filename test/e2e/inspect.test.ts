// O5: any run can be inspected with no worker polling its task queue: a finished run, and a run
// waiting on a question whose worker is gone, answer `status` and `decisions` from what the
// workflow left in its memo; an unknown run exits 3 at once.
import { EXIT } from '../../src/client/cli';
import { cli } from '../support/cli';
import { decision, scriptDecisions } from '../support/decisions';
import { uniqueId, until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForCli((x) => (h = x));

it('O5 a finished run and a waiting run whose worker is gone print their state (exit 0); an unknown run exits 3 quickly', async () => {
  // A finished run.
  scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
  const done = uniqueId('insp');
  expect((await cli('run', 'write one file', '--workspace', h.workspace(), '--wait', '--id', done)).code).toBe(0);

  // A run that waits on a confirmation question (a 0.35 replan asks the user).
  h.fake.reset();
  scriptScenario(h.fake, { tasks: [{ id: 'two', title: 'write two', files: { 'two.txt': '2' } }] });
  scriptDecisions(h.fake, { action_sequence: [decision({ confidence: 0.35, type: 'action_regeneration', issue: 'order' })] });
  const waiting = uniqueId('insp');
  expect((await cli('run', 'write two', '--workspace', h.workspace(), '--id', waiting)).code).toBe(0);
  await until('the question', async () => {
    const s = JSON.parse((await cli('status', waiting, '--json')).out);
    return s.questions?.length ? true : undefined;
  });

  // The worker goes away: nobody can answer a query now.
  h.worker.shutdown();
  await until('the worker to stop', async () => (h.worker.getState() === 'STOPPED' ? true : undefined));

  const t0 = Date.now();
  const status = await cli('status', done);
  expect(status.code).toBe(0);
  expect(status.out).toContain(`Run ${done}: DONE`);
  expect(status.out).toContain('[x] one: write one');
  expect(Date.now() - t0).toBeLessThan(4000); // finished: read from the memo, no query waited for
  const decisions = await cli('decisions', done, '--json');
  expect(decisions.code).toBe(0);
  expect(JSON.parse(decisions.out).records.length).toBeGreaterThan(0);

  const w = await cli('status', waiting, '--json');
  expect(w.code).toBe(0);
  const ws = JSON.parse(w.out);
  expect(ws).toMatchObject({ runId: waiting, status: 'WAITING' });
  expect(ws.questions.map((q: { id: string }) => q.id)).toEqual(['q1']);
  expect((await cli('decisions', waiting)).code).toBe(0);

  const t1 = Date.now();
  const unknown = await cli('status', uniqueId('nobody'));
  expect(unknown.code).toBe(EXIT.UNAVAILABLE);
  expect(unknown.err).toMatch(/no run/);
  expect(Date.now() - t1).toBeLessThan(3000);
});
