// Issue 12, O1 safe points besides worker steps: a pause during a planning phase's LLM call
// keeps that call and starts neither the replan decision nor the next phase; a pauseGate signal
// forged on a task from outside pauses at worst that task, and `resume` on the run undoes it.
import { taskWorkflowId } from '../../src/workflows/execution';
import { pauseGateSignal, pauseUpdate, resumeUpdate, statusQuery } from '../../src/workflows/messages';
import { FAST, sleep, until, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { scriptScenario, DEFAULT_GOAL, fileTask } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started));

/** Waits until no LLM request is in flight and none started in the last `quietMs`. */
const quiet = (quietMs = 1500) =>
  until(
    'the LLM calls in flight to finish',
    async () => {
      const last = Math.max(0, ...h.fake.requests.map((r) => r.startedAt));
      return h.fake.requests.every((r) => r.finishedAt !== undefined) && Date.now() - last > quietMs ? true : undefined;
    },
    30_000,
  );

describe('O1 safe points', () => {
  it('O1 paused during goal_understanding: the call in flight is kept, no replan decision or next phase starts; resume → DONE, goal asked once', async () => {
    scriptScenario(h.fake, { tasks: [fileTask('a')] });
    h.fake.script('goal_understanding', { delayMs: 2000, then: { json: DEFAULT_GOAL } });
    const { handle } = await startRun(h, { instruction: 'write a', workspace: h.workspace(), options: FAST }, 'pause-phase');
    await until('the goal_understanding call in flight', async () => (h.fake.requestsFor('goal_understanding').length ? true : undefined));
    await handle.executeUpdate(pauseUpdate, { args: [{}] });
    await quiet();
    const seen = h.fake.requests.map((r) => r.purpose);
    await sleep(3000);
    expect(h.fake.requests.map((r) => r.purpose)).toEqual(seen);
    expect(seen).toEqual(['goal_understanding']);
    const s = await handle.query(statusQuery);
    expect(s).toMatchObject({ status: 'PAUSED', phase: 'goal_understanding' });
    expect(s.usage.calls).toBe(1); // the finished call is kept

    expect(await handle.executeUpdate(resumeUpdate)).toMatchObject({ status: 'RUNNING', changed: true });
    expect((await handle.result()).status).toBe('DONE');
    expect(h.fake.successfulFor('goal_understanding')).toHaveLength(1);
  });

  it('O1 S2 a pauseGate forged on a running task pauses at worst that task; resume on the run undoes it → DONE', async () => {
    scriptScenario(h.fake, {
      tasks: [{ id: 'a', title: 'write a', files: { 'a1.txt': '1', 'a2.txt': '2', 'a3.txt': '3' } }],
      workerDelayMs: 700,
    });
    const { handle } = await startRun(h, { instruction: 'write the a files', workspace: h.workspace(), options: FAST }, 'forged-gate');
    await until('the first worker step', async () => (h.fake.requestsFor('worker_step').length ? true : undefined));
    await h.client.workflow.getHandle(taskWorkflowId(handle.workflowId, 'a')).signal(pauseGateSignal, { paused: true });
    await quiet();
    const seen = h.fake.requests.length;
    await sleep(2500);
    expect(h.fake.requests.length).toBe(seen);
    // The run itself was not paused by the forgery.
    expect((await handle.query(statusQuery)).status).toBe('RUNNING');

    expect(await handle.executeUpdate(resumeUpdate)).toMatchObject({ status: 'RUNNING', changed: false });
    expect((await handle.result()).status).toBe('DONE');
    expect(h.fake.successfulFor('worker_step')).toHaveLength(4);
  });
});
