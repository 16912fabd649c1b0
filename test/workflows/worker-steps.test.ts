// Issue 10: every worker LLM step is one activity, visible in the TaskWorkflow's history with the
// tool calls it ran; a worker SIGKILLed mid-task resumes at the step in flight, never re-asking
// the LLM for a finished step.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { temporal } from '@temporalio/proto';
import { runWorkflowId } from '../../src/workflows/run';
import type { WorkerStepResult } from '../../src/activities/worker-step';
import { FAST, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { startWorkerProcess as startWorker } from '../support/worker-proc';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { scriptScenario, workerReply, workerStepsSoFar, type ScenarioTask } from '../support/scenario';

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));
beforeEach(() => h.fake.reset());

/** Four files → four tool-calling replies, then the final answer: five worker steps. */
const FIVE_STEPS: ScenarioTask = {
  id: 'a',
  title: 'write four parts',
  files: { 'p1.txt': 'one', 'p2.txt': 'two', 'p3.txt': 'three', 'p4.txt': 'four' },
};

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function decode(p: temporal.api.common.v1.IPayload | null | undefined): unknown {
  return p?.data ? JSON.parse(Buffer.from(p.data).toString('utf8')) : undefined;
}

/** The workerStep activities of a workflow's history: summary, result and size of each, in order. */
function workerSteps(events: HistoryEvent[]): { summary: unknown; result?: WorkerStepResult; resultBytes: number }[] {
  const completed = new Map<string, temporal.api.common.v1.IPayload | null | undefined>();
  for (const e of events) {
    const c = e.activityTaskCompletedEventAttributes;
    if (c) completed.set(String(c.scheduledEventId), c.result?.payloads?.[0]);
  }
  return events
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'workerStep')
    .map((e) => {
      const payload = completed.get(String(e.eventId));
      return {
        summary: decode(e.userMetadata?.summary),
        result: decode(payload) as WorkerStepResult | undefined,
        resultBytes: payload?.data?.length ?? 0,
      };
    });
}

describe('worker steps as activities', () => {
  it('B1 a 5-step worker: 5 workerStep activities in the task history, 5 requests, each step names its tool calls', async () => {
    scriptScenario(h.fake, { tasks: [FIVE_STEPS] });
    const ws = h.workspace();
    const { runId, handle } = await startRun(h, { instruction: 'write the four parts', workspace: ws, options: FAST }, 'steps');
    const result = await handle.result();
    expect(result.status).toBe('DONE');

    // The scripted server saw exactly five worker requests, each one step further along.
    const requests = h.fake.requestsFor('worker_step');
    expect(requests.map(workerStepsSoFar)).toEqual([0, 1, 2, 3, 4]);
    expect(requests.every((r) => r.status === 200)).toBe(true);

    const history = await h.client.workflow.getHandle(`${runWorkflowId(runId)}.task-a`).fetchHistory();
    const steps = workerSteps(history.events ?? []);
    expect(steps).toHaveLength(5);
    expect(steps.map((s) => s.summary)).toEqual([1, 2, 3, 4, 5].map((k) => `worker step ${k}: write four parts (iteration 1)`));
    // Where the tool calls ran: each step's result in history names them.
    const files = Object.entries(FIVE_STEPS.files!);
    for (const [i, [file, content]] of files.entries()) {
      const r = steps[i]!.result!;
      expect(r.step).toBe(i + 1);
      expect(r.actions).toEqual([`write_file(${JSON.stringify({ path: file, content })})`]);
      expect(r.toolCalls).toBe(1);
      expect(r.toolErrors).toBe(0);
      expect(r.summary).toBeUndefined();
    }
    const last = steps[4]!.result!;
    expect(last.actions).toEqual([]);
    expect(last.summary).toBe('Task a done: write_file, write_file, write_file, write_file.');
    // History carries small results, never the transcript.
    for (const s of steps) expect(s.resultBytes).toBeLessThan(2000);

    for (const [file, content] of files) expect(fs.readFileSync(path.join(ws, file), 'utf8')).toBe(content);
    // The transcript: one file per step beside the prompt, in the directory the steps named.
    const dir = path.join(ws, last.logPath);
    expect(last.logPath).toMatch(/^\.replanner\/runs\/.+\/tasks\/a\/iteration-1\.[^/]+$/);
    expect(fs.readdirSync(dir).sort()).toEqual(['prompt.json', 'step-001.json', 'step-002.json', 'step-003.json', 'step-004.json', 'step-005.json']);
    // The judge's evidence is read from that transcript.
    const judge = h.fake.requestsFor('judge');
    expect(judge).toHaveLength(1);
    for (const [file] of files) expect(judge[0]!.text).toContain(`> write_file {"path":"${file}"`);
  });
});

// --- a worker in its own process, so it can be SIGKILLed -------------------------------------

const killQueue = uniqueId('worker-steps-kill');
const startWorkerProcess = () => startWorker({ address: temporalAddress(), taskQueue: killQueue, llmBaseURL: h.fake.baseURL });

/**
 * A worker process of its own on the kill queue and a run on it. A short heartbeat timeout: a step
 * lost with the worker is retried within seconds (O4).
 */
async function startKillableRun(instruction: string, idPrefix: string) {
  const worker = await startWorkerProcess();
  const ws = h.workspace();
  const options = { ...FAST, workerHeartbeatTimeoutMs: 3000 };
  const { runId, handle } = await startRun({ client: h.client, taskQueue: killQueue }, { instruction, workspace: ws, options }, idPrefix);
  return { worker, ws, runId, handle };
}

describe('worker SIGKILLed between steps', () => {
  it('B2 the worker SIGKILLed during step 4: a new worker retries step 4 only; steps 1-3 are requested exactly once', async () => {
    scriptScenario(h.fake, { tasks: [FIVE_STEPS] });
    // Step 4 (three earlier replies in its conversation) hangs the first time it is asked.
    let hung = false;
    h.fake.always('worker_step', (req) => {
      const done = workerStepsSoFar(req);
      if (done === 3 && !hung) {
        hung = true;
        return { hangMs: 120_000 };
      }
      return workerReply(FIVE_STEPS, done);
    });
    const { worker, ws, runId, handle } = await startKillableRun('write the four parts', 'steps-kill');

    await until('step 4 to be requested', async () => (h.fake.requestsFor('worker_step').some((r) => workerStepsSoFar(r) === 3) ? true : undefined));
    expect(h.fake.requestsFor('worker_step').map(workerStepsSoFar)).toEqual([0, 1, 2, 3]);
    for (const f of ['p1.txt', 'p2.txt', 'p3.txt']) expect(fs.existsSync(path.join(ws, f))).toBe(true);

    worker.child.kill('SIGKILL');
    expect((await worker.exited).signal).toBe('SIGKILL');
    await startWorkerProcess();

    const result = await handle.result();
    expect(result.status).toBe('DONE');
    const perStep = new Map<number, number>();
    for (const r of h.fake.requestsFor('worker_step')) perStep.set(workerStepsSoFar(r), (perStep.get(workerStepsSoFar(r)) ?? 0) + 1);
    // Steps 1-3 once each; step 4 twice (lost with the worker, then retried); step 5 once.
    expect([...perStep.entries()].sort(([a], [b]) => a - b)).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 1],
    ]);
    for (const [file, content] of Object.entries(FIVE_STEPS.files!)) expect(fs.readFileSync(path.join(ws, file), 'utf8')).toBe(content);

    // The history shows the retried step as one activity that took two attempts.
    const history = await h.client.workflow.getHandle(`${runWorkflowId(runId)}.task-a`).fetchHistory();
    const events = history.events ?? [];
    expect(workerSteps(events)).toHaveLength(5);
    const attempts = events.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
    expect(Math.max(...attempts)).toBe(2);
  });
});

describe('worker SIGKILLed between the tool calls of a step', () => {
  it("B2 a finished tool call is not run again on retry, nor is the step's LLM request repeated", async () => {
    // Step 1 asks for two commands: the first appends to count.txt; the second marks that it
    // started and, the first time only, sleeps (the worker is killed meanwhile). Step 2 answers.
    const first = ['node', '-e', "require('fs').appendFileSync('count.txt', 'x')"];
    scriptScenario(h.fake, { tasks: [{ id: 'a', title: 'count once', command: first }] });
    const second = [
      'node',
      '-e',
      "const fs = require('fs'); if (!fs.existsSync('started')) { fs.writeFileSync('started', ''); setTimeout(() => {}, 20000); }",
    ];
    h.fake.always('worker_step', (req) =>
      workerStepsSoFar(req) === 0
        ? {
            toolCalls: [
              { name: 'run_command', arguments: { argv: first } },
              { name: 'run_command', arguments: { argv: second } },
            ],
          }
        : { content: 'Task a done: counted once.' },
    );
    const { worker, ws, runId, handle } = await startKillableRun('count once', 'tools-kill');

    // The second command runs, so the first one has finished and its result is on disk.
    await until('the second command to start', async () => (fs.existsSync(path.join(ws, 'started')) ? true : undefined));
    worker.child.kill('SIGKILL');
    expect((await worker.exited).signal).toBe('SIGKILL');
    await startWorkerProcess();

    const result = await handle.result();
    expect(result.status).toBe('DONE');
    expect(fs.readFileSync(path.join(ws, 'count.txt'), 'utf8')).toBe('x');
    expect(h.fake.requestsFor('worker_step').map(workerStepsSoFar)).toEqual([0, 1]);
    // Step 2's conversation carries both tool results of step 1.
    const step2 = h.fake.requestsFor('worker_step')[1]!;
    expect(step2.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    const history = await h.client.workflow.getHandle(`${runWorkflowId(runId)}.task-a`).fetchHistory();
    const steps = workerSteps(history.events ?? []);
    expect(steps).toHaveLength(2);
    expect(steps[0]!.result).toMatchObject({ step: 1, toolCalls: 2, toolErrors: 0 });
  });
});
