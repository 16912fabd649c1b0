// Issue 31 / issue 28 ("crashes a user can't see"): the LLM journal records a reply the moment it
// is complete, before it is checked. The worker process is SIGKILLed right after the model's reply
// arrived (the scripted server says when it has written the whole reply; the stream's end is held
// back, so the worker cannot have reported the call yet): the retry on a new worker checks the
// journaled reply, and the model server counts no second request for that call.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { runDir } from '../../src/activities/run-files';
import type { RecordedRequest } from '../support/fake-openai';
import { FAST, runOutcome, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { plannedTask, scriptScenario, workerReply, workerStepsSoFar, type ScenarioTask } from '../support/scenario';
import { killWorker, startWorkerProcess } from '../support/worker-proc';
import { harnessForWorkerProcesses } from '../support/suite-hooks';

jest.setTimeout(5 * 60_000);

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));
beforeEach(() => h.fake.reset());

const TASK: ScenarioTask = { id: 'a', title: 'write a', files: { 'a.txt': 'A', 'b.txt': 'B' } };

/** Resolves with the first request of `purpose` whose whole reply the server has written. */
function replied(purpose: string, match: (r: RecordedRequest) => boolean = () => true): Promise<RecordedRequest> {
  return new Promise((resolve) => {
    h.fake.onReplied = (r) => {
      if (r.purpose === purpose && match(r)) resolve(r);
    };
  });
}

/** The journal entries of a run whose names start with `prefix`, once one exists. */
const journaled = (ws: string, runId: string, prefix: string) =>
  until(
    `a journal entry ${prefix}*`,
    async () => {
      const dir = path.join(runDir(ws, runId), 'journal');
      const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith(prefix) && n.endsWith('.json')) : [];
      return names.length ? names.map((n) => JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as { reply?: { raw: string } }) : undefined;
    },
    30_000,
  );

describe('the journal records a reply the moment it arrives', () => {
  it('B2 the worker SIGKILLed right after the planner’s reply arrived (before its check and report): the retry asks the model nothing; DONE', async () => {
    scriptScenario(h.fake, { tasks: [TASK] });
    // The whole reply and its usage at once; the stream's end held back for a minute.
    h.fake.script('task_decomposition', { pace: { holdEndMs: 60_000 }, then: { json: { tasks: [plannedTask(TASK)] } } });
    const taskQueue = uniqueId('journal-reply');
    const params = { address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL };
    const first = await startWorkerProcess(params);
    const runId = uniqueId('journal');
    const ws = h.workspace();
    const arrived = replied('task_decomposition');
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue,
      workflowId: runWorkflowId(runId),
      args: [{ runId, instruction: 'write a', workspace: ws, options: FAST }],
    });
    const reply = await arrived;
    const [entry] = await journaled(ws, runId, 'decomposeTasks.');
    expect(JSON.parse(entry!.reply!.raw)).toEqual({ tasks: [plannedTask(TASK)] });
    // The worker still reads the held-back stream: it has not reported the call.
    expect(reply.finishedAt).toBeUndefined();
    await killWorker(first);
    await startWorkerProcess(params);
    expect((await runOutcome(handle)).status).toBe('DONE');
    expect(h.fake.requestsFor('task_decomposition')).toHaveLength(1);
    expect(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('A');
  });

  it('B2 the same for a worker step: SIGKILLed after its reply arrived, the step is not asked again and its tool calls run once', async () => {
    scriptScenario(h.fake, { tasks: [TASK] });
    // Step 2 (one earlier reply in its conversation): its end held back the first time it is asked.
    let held = false;
    h.fake.always('worker_step', (req) => {
      const done = workerStepsSoFar(req);
      const answer = workerReply(TASK, done);
      if (done !== 1 || held) return answer;
      held = true;
      return { pace: { holdEndMs: 60_000 }, then: answer };
    });
    const taskQueue = uniqueId('journal-step');
    const params = { address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL };
    const first = await startWorkerProcess(params);
    const runId = uniqueId('journal-step');
    const ws = h.workspace();
    const arrived = replied('worker_step', (r) => workerStepsSoFar(r) === 1);
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue,
      workflowId: runWorkflowId(runId),
      args: [{ runId, instruction: 'write a', workspace: ws, options: { ...FAST, workerHeartbeatTimeoutMs: 3000 } }],
    });
    await arrived;
    const tasksDir = path.join(runDir(ws, runId), 'tasks', 'a');
    await until(
      'step 2 written to its step file',
      async () =>
        fs.existsSync(tasksDir) && fs.readdirSync(tasksDir).some((d) => fs.existsSync(path.join(tasksDir, d, 'step-002.json'))) ? true : undefined,
      30_000,
    );
    await killWorker(first);
    await startWorkerProcess(params);
    expect((await runOutcome(handle)).status).toBe('DONE');
    // Steps 1, 2 and the summary: each asked once.
    expect(h.fake.requestsFor('worker_step').map(workerStepsSoFar)).toEqual([0, 1, 2]);
    expect(fs.readFileSync(path.join(ws, 'b.txt'), 'utf8')).toBe('B');
  });
});
