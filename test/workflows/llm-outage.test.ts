// Issue 12, O2: no run ends FAILED for a reason the user can fix. On the real dev server with
// the scripted OpenAI-compatible server: the endpoint refuses connections for 90 s in the middle of
// execution → the run is PAUSED with the outage reason, resumes by itself and ends DONE with no task
// BLOCKED and no replan; a user pause during an outage outlives it; a planning call's outage pauses
// instead of failing the phase; a 401 pauses with the fix named until a worker with the right key
// runs and `replanner resume`.
import type { WorkflowHandle } from '@temporalio/client';
import { decisionsQuery, pauseUpdate, statusQuery, type RunStatus } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { STATUS_KEY } from '../../src/workflows/search-attributes';
import { eventPrinter, watchEvents } from '../../src/client/watch';
import { cli } from '../support/cli';
import { FAST, runOutcome, temporalAddress, uniqueId, sleep, until, type Harness } from '../support/harness';
import { scriptScenario, taskIdOf, workerStepsSoFar, type ScenarioTask } from '../support/scenario';
import { killWorker, startWorkerProcess } from '../support/worker-proc';
import { harnessForWorkerProcesses } from '../support/suite-hooks';

jest.setTimeout(5 * 60_000);

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));
beforeEach(() => {
  h.fake.reset();
  h.fake.apiKey = undefined;
});

/** Three files each: three tool-call steps and a summary step. */
const TASKS: ScenarioTask[] = ['a', 'b'].map((id) => ({
  id,
  title: `write the ${id} files`,
  files: Object.fromEntries([1, 2, 3].map((n) => [`${id}${n}.txt`, `${id}${n}`])),
}));

function start(runId: string, taskQueue = h.taskQueue): Promise<WorkflowHandle<typeof RunWorkflow>> {
  return h.client.workflow.start(RunWorkflow, {
    taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: 'write the files of a and b', workspace: h.workspace(), options: { ...FAST, maxParallelTasks: 2 } }],
  });
}

const pausedFor = (kind: string) => async (handle: WorkflowHandle) => {
  const s = await handle.query(statusQuery);
  return s.status === 'PAUSED' && s.pauses?.some((p) => p.kind === kind) ? s : undefined;
};
const searchStatus = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(STATUS_KEY);
const stepAsked = (task: string, step: number) =>
  h.fake.requestsFor('worker_step').some((r) => taskIdOf(r) === task && workerStepsSoFar(r) === step - 1);

async function expectDoneWithoutBlockOrReplan(handle: WorkflowHandle): Promise<void> {
  const result = await runOutcome(handle);
  expect(result.status).toBe('DONE');
  expect(result.blocked).toEqual([]);
  expect(result.tasks.map((t) => [t.id, t.state])).toEqual([
    ['a', 'DONE'],
    ['b', 'DONE'],
  ]);
  const decisions = await handle.query(decisionsQuery);
  expect(decisions.counters.total).toBe(0);
  expect(decisions.records.filter((r) => r.outcome !== 'none')).toEqual([]);
}

describe('O2 an LLM outage pauses the run instead of failing it', () => {
  it('O2 V8 the endpoint refuses connections for 90 s mid-execution: PAUSED with the outage reason (status and search attribute), resumes by itself, DONE, no task BLOCKED, no replan; watch says so once each way, in words', async () => {
    scriptScenario(h.fake, { tasks: TASKS, workerDelayMs: 300 });
    const runId = uniqueId('outage');
    const handle = await start(runId);
    // V8: what `watch` prints of it all, as a person reads it.
    const watched: string[] = [];
    const watching = watchEvents(
      h.client,
      runId,
      eventPrinter((l) => watched.push(l), { runId }),
    );
    await until('step 2 of both tasks', async () => (stepAsked('a', 2) && stepAsked('b', 2) ? true : undefined));
    const downAt = Date.now();
    const { back } = await h.fake.refuseConnectionsFor(90_000);

    const paused = await until<RunStatus>('PAUSED for the outage', () => pausedFor('llm_outage')(handle), 60_000);
    expect(h.fake.refusingConnections).toBe(true);
    const outage = paused.pauses!.find((p) => p.kind === 'llm_outage')!;
    expect(outage.by).toBe('llm');
    expect(outage.reason).toMatch(/^LLM unavailable since \d{4}-\d\d-\d\dT[\d:.]+Z: .*(ECONNREFUSED|Connection error)/);
    expect(outage.reason).toContain('retrying by itself');
    expect(outage.reason).not.toMatch(/will retry/i);
    expect(paused.tasks.filter((t) => t.state === 'BLOCKED')).toEqual([]);
    await until('ReplannerStatus=PAUSED', async () => ((await searchStatus(handle)) === 'PAUSED' ? true : undefined), 30_000);
    // Still down: still PAUSED (the probes fail and report again; nothing fails).
    await sleep(20_000);
    expect(h.fake.refusingConnections).toBe(true);
    expect((await handle.query(statusQuery)).status).toBe('PAUSED');

    await back;
    const upAt = Date.now();
    expect(upAt - downAt).toBeGreaterThanOrEqual(89_000);
    await until('the run to resume by itself', async () => ((await handle.query(statusQuery)).status === 'RUNNING' ? true : undefined), 90_000).catch(
      async () => {
        // It may have finished already.
        expect((await handle.describe()).status.name).toBe('COMPLETED');
      },
    );
    await expectDoneWithoutBlockOrReplan(handle);
    expect(await searchStatus(handle)).toBe('DONE');
    // V8: one line when the model stops answering and one when it answers again, never one per retry,
    // and no internal name (pause kinds, activity names, Temporal's attempts).
    await watching;
    expect(watched.filter((l) => l.includes('the model is not answering since'))).toEqual([
      expect.stringMatching(/^ {2}PAUSED: the model is not answering since \d\d:\d\d:\d\d \(connection refused\); it is tried again by itself/),
    ]);
    expect(watched.filter((l) => l.includes('the model answers again'))).toHaveLength(1);
    expect(
      watched.filter((l) => /LLM unavailable|llm_outage|workerStep|judgeTask|worker_step|heartbeat|attempt \d|waiting to try again/i.test(l)),
    ).toEqual([]);
    // Every file was written once the LLM was back.
    expect(h.fake.successfulFor('judge').length).toBe(2);
    // The run is told once per pause (and once it ends), not per probe: its history stays small.
    const told = ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'llmTrouble');
    expect(told.length).toBeGreaterThanOrEqual(2);
    expect(told.length).toBeLessThanOrEqual(6);
  });

  it('O2 a user pause during an outage stays after the LLM is back, until resume; then DONE', async () => {
    scriptScenario(h.fake, { tasks: TASKS, workerDelayMs: 300 });
    const runId = uniqueId('outage-user');
    const handle = await start(runId);
    await until('step 2 of task a', async () => (stepAsked('a', 2) ? true : undefined));
    await h.fake.refuseConnections();
    await until('PAUSED for the outage', () => pausedFor('llm_outage')(handle), 60_000);
    const ack = await handle.executeUpdate(pauseUpdate, { args: [{ reason: 'looking at it myself' }] });
    expect(ack).toMatchObject({ status: 'PAUSED', changed: true, pause: { kind: 'user', reason: 'looking at it myself' } });
    expect(ack.pauses?.map((p) => p.kind)).toEqual(['user', 'llm_outage']);

    await h.fake.acceptConnections();
    const asked = h.fake.requests.length;
    // Longer than the first probe's backoff (5 s): the LLM is back, yet the user's pause holds.
    await sleep(15_000);
    const s = await handle.query(statusQuery);
    expect(s.status).toBe('PAUSED');
    expect(s.pause).toMatchObject({ kind: 'user', by: 'user', reason: 'looking at it myself' });
    expect(h.fake.requests.length).toBe(asked);
    expect(await searchStatus(handle)).toBe('PAUSED');

    const resumed = await cli('resume', runId);
    expect(resumed).toMatchObject({ code: 0 });
    expect(resumed.out).toContain(`Run ${runId} resumed.`);
    await expectDoneWithoutBlockOrReplan(handle);
  });

  it('O2 a planning call (decomposition) failing past its quick retries pauses the run instead of failing the phase; it resumes by itself → DONE', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    // FAST: 3 quick attempts; the 4th request (the first probe's first attempt) fails too.
    h.fake.script('task_decomposition', ...[1, 2, 3, 4].map(() => ({ status: 503, message: 'the model is overloaded' })));
    const runId = uniqueId('outage-plan');
    const handle = await start(runId);
    const paused = await until<RunStatus>('PAUSED for the outage', () => pausedFor('llm_outage')(handle), 60_000);
    expect(paused.phase).toBe('task_decomposition');
    expect(paused.pause?.reason).toMatch(/^LLM unavailable since .*HTTP 503.*the model is overloaded/);
    await expectDoneWithoutBlockOrReplan(handle);
    expect(h.fake.requestsFor('task_decomposition').map((r) => r.status)).toEqual([503, 503, 503, 503, 200]);
  });

  it('O2 a 401 (wrong OPENAI_API_KEY) → PAUSED with the fix named; a worker with the right key replaces it, `replanner resume` → DONE', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    h.fake.apiKey = 'good-key';
    const taskQueue = uniqueId('o2-key');
    const params = { address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL };
    const bad = await startWorkerProcess({ ...params, apiKey: 'bad-key' });
    const runId = uniqueId('rejected');
    const handle = await start(runId, taskQueue);
    const paused = await until<RunStatus>('PAUSED for the rejected key', () => pausedFor('llm_rejected')(handle), 60_000);
    const rejected = paused.pause!;
    expect(rejected).toMatchObject({ kind: 'llm_rejected', by: 'llm' });
    expect(rejected.reason).toContain('OPENAI_API_KEY rejected by');
    expect(rejected.reason).toContain('HTTP 401');
    expect(rejected.reason).toContain('restart the worker');
    expect(rejected.reason).toContain(`npx replanner resume ${runId}`);
    expect(await searchStatus(handle)).toBe('PAUSED');
    // Rejected once (no quick retries for a 401), and nothing more is asked while paused.
    await sleep(3000);
    expect(h.fake.requests.map((r) => r.status)).toEqual([401]);
    const shown = await cli('status', runId);
    expect(shown.out).toContain("PAUSED: the model refuses the run's requests since");
    expect(shown.out).toContain(`fix it, then: npx replanner resume ${runId}`);

    await killWorker(bad);
    await startWorkerProcess({ ...params, apiKey: 'good-key' });
    const resumed = await cli('resume', runId);
    expect(resumed).toMatchObject({ code: 0 });
    await expectDoneWithoutBlockOrReplan(handle);
    expect(h.fake.requests.filter((r) => r.status === 401)).toHaveLength(1);
  });
});
