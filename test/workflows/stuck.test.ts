// P9: the stuck detector inside the worker's tool loop, on a real TaskWorkflow with the scripted
// model. Each stuck worker is stopped within its threshold (+1 worker call at most), counted at the
// model server; the judge reads the note; the "no progress" consultation is offered with seed 002's
// four choices and each choice does what P7 says; the next worker prompt says what was repeated.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfig } from '../../src/domain/config';
import type { Reply, RecordedRequest } from '../../src/scripted-model/types';
import { renderStatus } from '../../src/client/render';
import { workerStepLine } from '../../src/client/render-events';
import { taskWorkflowId } from '../../src/workflows/execution';
import { answerConsultationUpdate, statusQuery, taskStatusQuery, type TaskStatus } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { DEFAULT_RUN_OPTIONS } from '../../src/workflows/options';
import { TaskWorkflow } from '../../src/workflows/task';
import { helloTask, HELLO_INSTRUCTION } from '../support/stuck-task';
import { FAST, startHarness, uniqueId, until, type Harness } from '../support/harness';
import { scriptScenario, taskIdOf, workerStepsSoFar } from '../support/scenario';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.stop());
beforeEach(() => h.fake.reset());

const NOT_DONE = { success: false, shouldContinue: true, reason: 'hello.txt is missing', missingRequirements: ['hello.txt'], confidence: null };
const DONE = { success: true, reason: 'hello.txt says hello', missingRequirements: [], confidence: 0.9 };

/** The user prompt of a worker request (one per iteration: it carries the feedback, guidance, stuck note). */
const promptOf = (r: RecordedRequest) => r.messages.find((m) => m.role === 'user')?.content ?? '';
/** A worker that recovers once its prompt says it was stopped: it writes hello.txt, then answers. */
function recovering(stuckReply: (req: RecordedRequest) => Reply): (req: RecordedRequest) => Reply {
  return (req) => {
    if (!promptOf(req).includes('WAS STOPPED')) return stuckReply(req);
    return workerStepsSoFar(req) === 0
      ? { toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello' } }] }
      : { content: 'Wrote hello.txt.' };
  };
}

async function startTask(
  worker: (req: RecordedRequest) => Reply,
  files: Record<string, string> = {},
  config: Record<string, unknown> = {},
  maxSteps?: number,
) {
  const id = uniqueId('stuck');
  // The judge says "not done" until hello.txt exists.
  let ws = '';
  scriptScenario(h.fake, {
    tasks: [{ id, title: 'write hello.txt', profile: 'COMPLEX_REASONING' }],
    judge: () => (fs.existsSync(path.join(ws, 'hello.txt')) ? DONE : NOT_DONE),
  });
  h.fake.always('worker_step', worker);
  ws = h.workspace(files);
  const handle = await h.client.workflow.start(TaskWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: `task-${id}`,
    args: [
      {
        run: { runId: id, workspace: ws, instruction: HELLO_INSTRUCTION },
        task: helloTask(id),
        steps: ['write hello.txt'],
        options: { ...DEFAULT_RUN_OPTIONS, ...FAST, ...(maxSteps ? { workerMaxSteps: maxSteps } : {}), pacemaker: parseConfig(config).pacemaker },
      },
    ],
  });
  const workerCalls = () => h.fake.requestsFor('worker_step').filter((r) => taskIdOf(r) === id);
  return { id, handle, workerCalls, ws };
}

/** Waits for the stuck consultation; returns the status then and the worker calls counted at the model server. */
async function stuckConsultation(t: Awaited<ReturnType<typeof startTask>>): Promise<{ status: TaskStatus; calls: number }> {
  const status = await until('the stuck consultation', async () => {
    const s = await t.handle.query(taskStatusQuery);
    return s.consultation && s.stuck ? s : undefined;
  });
  return { status, calls: t.workerCalls().length };
}

const failingCall: Reply = { toolCalls: [{ name: 'list_dir', arguments: { path: 'output.txt' } }] };

describe('P9 a stuck worker is stopped within its threshold', () => {
  it('P9 repeating one failing call (HTML-escaped variants too): stopped at the 3rd worker call; judge, consultation and status show the note', async () => {
    const variants = ['output.txt', 'output.txt&#34;', ' output.txt'];
    const t = await startTask((req) => ({ toolCalls: [{ name: 'list_dir', arguments: { path: variants[workerStepsSoFar(req) % 3] } }] }));
    const { status, calls } = await stuckConsultation(t);
    expect(calls).toBe(3); // threshold 3 (same_failure), ≤ 3 + 1
    expect(status.stuck).toMatchObject({ pattern: 'same_failure', iteration: 1, step: 3, times: 1, wastedSteps: 2 });
    expect(status.stuck!.note).toMatch(/^stuck: list_dir output\.txt failed \(not found\) 3 times in a row \(2 wasted steps, \d+ tokens\)$/);
    expect(status.stuck!.wastedTokens).toBeGreaterThan(0);
    // The consultation is "no progress / repeating work" with seed 002's four choices, the note first.
    expect(status.consultation).toMatchObject({ kind: 'no_progress', trigger: status.stuck!.note });
    expect(status.consultation!.message.split('\n')[0]).toBe(status.stuck!.note);
    expect(status.consultation!.choices.map((c) => [c.number, c.key, c.effect])).toEqual([
      [1, 'stop', 'stop'],
      [2, 'guidance', 'guidance'],
      [3, 'continue', 'continue_raised'],
      [4, 'different_approach', 'restart'],
    ]);
    // watch: the step line carries the note; the judge read it as the worker's summary.
    expect(status.steps!.at(-1)).toMatchObject({ iteration: 1, step: 3, stuck: status.stuck!.note });
    // P8: a [DUCK_PACEMAKER] line names it too.
    expect(status.pacemakerLog).toContain(`[DUCK_PACEMAKER] loop 1 step 3 task=${t.id}: ${status.stuck!.note}`);
    const judge = h.fake.requestsFor('judge').filter((r) => taskIdOf(r) === t.id);
    expect(judge).toHaveLength(1);
    expect(judge[0]!.text).toContain(
      'stopped after 3 steps by the stuck detector (same_failure): list_dir output.txt failed (not found) 3 times in a row',
    );
    await t.handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 'stop' }] });
    expect(await t.handle.result()).toMatchObject({ state: 'BLOCKED' });
    expect(t.workerCalls()).toHaveLength(3);
    // Cheap: each step's result in history carries its call's prints, not its output; nothing else per step.
    const results = (await t.handle.fetchHistory()).events!.flatMap((e) => {
      const data = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
      const r = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { prints?: unknown; step?: number }) : undefined;
      return r?.prints ? [{ bytes: data!.length, prints: JSON.stringify(r.prints).length }] : [];
    });
    expect(results).toHaveLength(3);
    for (const r of results) expect(r.prints).toBeLessThan(200);
    console.log(`P9 worker step results in history: ${results.map((r) => `${r.bytes} bytes (prints ${r.prints})`).join(', ')}`);
  });

  it('P9 alternating between two calls: stopped at the 6th worker call', async () => {
    const a: Reply = { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
    const b: Reply = { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
    const t = await startTask((req) => (workerStepsSoFar(req) % 2 === 0 ? a : b), { 'notes.txt': 'some notes' });
    const { status, calls } = await stuckConsultation(t);
    expect(calls).toBe(6); // threshold 6 (alternation), ≤ 6 + 1
    expect(status.stuck).toMatchObject({ pattern: 'alternation', step: 6 });
    expect(status.stuck!.note).toContain('alternated between read_file notes.txt and list_dir . 6 times with the same results');
    await t.handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 1 }] });
    expect((await t.handle.result()).state).toBe('BLOCKED');
  });

  it('P9 failing with different arguments each time: stopped at the 5th worker call', async () => {
    const t = await startTask((req) => ({ toolCalls: [{ name: 'read_file', arguments: { path: `missing-${workerStepsSoFar(req)}.txt` } }] }));
    const { status, calls } = await stuckConsultation(t);
    expect(calls).toBe(5); // threshold 5 (failing_calls), ≤ 5 + 1
    expect(status.stuck).toMatchObject({ pattern: 'failing_calls', step: 5, wastedSteps: 4 });
    expect(status.stuck!.note).toContain('5 tool calls failed in a row: read_file missing-0.txt (not found)');
    await t.handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 'stop' }] });
    expect((await t.handle.result()).state).toBe('BLOCKED');
  });

  it('P9 talking without calling tools: stopped at the 3rd reply (3 iterations of one step each)', async () => {
    const t = await startTask(() => ({ content: 'I will now create the file hello.txt.' }));
    const { status, calls } = await stuckConsultation(t);
    expect(calls).toBe(3); // threshold 3 (repeated_messages), ≤ 3 + 1
    expect(status.stuck).toMatchObject({ pattern: 'repeated_messages', iteration: 3, step: 1, wastedSteps: 2 });
    const judge = h.fake.requestsFor('judge').filter((r) => taskIdOf(r) === t.id);
    expect(judge).toHaveLength(3);
    expect(judge[2]!.text).toContain('replied 3 times in a row without calling a tool, saying nothing new');
    await t.handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 'stop' }] });
    expect((await t.handle.result()).state).toBe('BLOCKED');
  });
});

describe('P9 the settings under pacemaker.stuck reach the task', () => {
  it('P9 consult: false — the iteration still ends at the 3rd repeat, no consultation, the next prompt says what was repeated', async () => {
    const t = await startTask(
      recovering(() => failingCall),
      {},
      { pacemaker: { stuck: { consult: false } } },
    );
    expect((await t.handle.result()).state).toBe('DONE');
    const calls = t.workerCalls();
    // 3 repeats, then the second iteration: write hello.txt, answer.
    expect(calls).toHaveLength(5);
    expect(promptOf(calls[3]!)).toContain('What was seen: list_dir output.txt failed (not found) 3 times in a row.');
    const s = await t.handle.query(taskStatusQuery);
    expect(s.stuck).toMatchObject({ pattern: 'same_failure', times: 1 });
    expect(s.pacemaker!.interventions).toBe(0);
  });

  it('P9 enabled: false — nothing watches the steps: the worker repeats until its step limit', async () => {
    const t = await startTask(() => failingCall, {}, { pacemaker: { stuck: { enabled: false }, enabled: false, default_max_loops: 1 } }, 6);
    expect((await t.handle.result()).state).toBe('BLOCKED');
    // The first iteration ran to its step limit (6), well past the 3 repeats that would stop it.
    expect(t.workerCalls().slice(0, 6).map(workerStepsSoFar)).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await t.handle.query(taskStatusQuery)).stuck).toBeUndefined();
  });
});

describe('P9 P7 the stuck consultation: each of seed 002 choices leads to its outcome', () => {
  const stuckThenRecover = recovering(() => failingCall);

  it('P9 P7 1 stop: the task is BLOCKED, no worker call after the answer', async () => {
    const t = await startTask(stuckThenRecover);
    const { calls } = await stuckConsultation(t);
    await t.handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 1 }] });
    expect(await t.handle.result()).toMatchObject({ state: 'BLOCKED', reason: expect.stringContaining('stopped by the user') });
    expect(t.workerCalls()).toHaveLength(calls);
  });

  it('P9 P7 2 guidance: the next prompt carries the guidance and what was repeated; the task finishes', async () => {
    const t = await startTask(stuckThenRecover);
    const { calls } = await stuckConsultation(t);
    await t.handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 'guidance', guidance: 'There is no output.txt: write hello.txt.' }] });
    expect((await t.handle.result()).state).toBe('DONE');
    const next = promptOf(t.workerCalls()[calls]!);
    expect(next).toContain('USER GUIDANCE:\nThere is no output.txt: write hello.txt.');
    expect(next).toContain('YOUR ITERATION 1 WAS STOPPED: you were going round in circles.');
    expect(next).toContain('What was seen: list_dir output.txt failed (not found) 3 times in a row.');
    expect(next).toContain('The tools answered:\n- list_dir output.txt → not found: output.txt');
    expect(fs.readFileSync(path.join(t.ws, 'hello.txt'), 'utf8')).toBe('hello');
  });

  it('P9 P7 3 continue: the limit is raised by 5 and the worker goes on, told what it repeated', async () => {
    const t = await startTask(stuckThenRecover);
    const { status, calls } = await stuckConsultation(t);
    await t.handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 'continue' }] });
    const after = await until('the answer applied', async () => {
      const s = await t.handle.query(taskStatusQuery);
      return s.consultation ? undefined : s;
    });
    expect(after.pacemaker!.maxLoops).toBeGreaterThanOrEqual(status.consultation!.maxLoops + 5);
    expect((await t.handle.result()).state).toBe('DONE');
    const next = promptOf(t.workerCalls()[calls]!);
    expect(next).not.toContain('USER GUIDANCE');
    expect(next).toContain('WAS STOPPED');
  });

  it('P9 P7 4 different approach: the next prompt says to restart differently; the task finishes', async () => {
    const t = await startTask(stuckThenRecover);
    const { calls } = await stuckConsultation(t);
    await t.handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 4 }] });
    expect((await t.handle.result()).state).toBe('DONE');
    const next = promptOf(t.workerCalls()[calls]!);
    expect(next).toContain('USER GUIDANCE:\nRESTART WITH A DIFFERENT APPROACH');
    expect(next).toContain('WAS STOPPED');
  });
});

describe('P9 V1 V2 where people see the stuck note', () => {
  it("P9 V1 a stuck task the judge then accepts: the finished run's `status` keeps the note, with its wasted tokens, beside the task", async () => {
    const runId = uniqueId('stuck-done');
    let ws = '';
    // The planned task writes hello.txt (its action steps); its worker repeats a failing call first.
    scriptScenario(h.fake, {
      tasks: [{ id: 'a', title: 'write hello.txt', profile: 'COMPLEX_REASONING', files: { 'hello.txt': 'hello' } }],
      judge: () => (fs.existsSync(path.join(ws, 'hello.txt')) ? DONE : NOT_DONE),
    });
    h.fake.always(
      'worker_step',
      recovering(() => failingCall),
    );
    ws = h.workspace();
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: runWorkflowId(runId),
      args: [{ runId, instruction: HELLO_INSTRUCTION, workspace: ws, options: FAST, config: { pacemaker: { stuck: { consult: false } } } }],
    });
    await handle.result();
    const status = await handle.query(statusQuery);
    expect(status.status).toBe('DONE');
    const task = status.tasks.find((t) => t.id === 'a')!;
    expect(task.state).toBe('DONE');
    expect(task.stuck).toMatch(
      /^stuck: list_dir output\.txt failed \(not found\) 3 times in a row \(2 wasted steps, \d+ tokens\) at iteration 1, step 3$/,
    );
    expect(renderStatus(status)).toMatch(
      /\n {2}\[x\] a: write hello\.txt — .*\n {6}stuck: list_dir output\.txt failed \(not found\) 3 times in a row \(2 wasted steps, \d+ tokens\)/,
    );
  });

  it('P9 V1 V2 a run: `status` shows the consultation led by the note, watch the step line, the task its details', async () => {
    const runId = uniqueId('stuck-run');
    // The planned task writes hello.txt; its worker never does.
    const planned = { id: 'a', title: 'write hello.txt', profile: 'COMPLEX_REASONING', files: { 'hello.txt': 'hello' } };
    scriptScenario(h.fake, { tasks: [planned], judge: () => NOT_DONE });
    h.fake.always('worker_step', () => failingCall);
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: runWorkflowId(runId),
      args: [{ runId, instruction: HELLO_INSTRUCTION, workspace: h.workspace(), options: FAST }],
    });
    const status = await until('the consultation in the run status', async () => {
      const s = await handle.query(statusQuery);
      return s.consultations?.length ? s : undefined;
    });
    expect(h.fake.requestsFor('worker_step')).toHaveLength(3);
    const note = /^stuck: list_dir output\.txt failed \(not found\) 3 times in a row \(2 wasted steps, \d+ tokens\)/;
    expect(status.consultations![0]!.message).toMatch(note);
    expect(renderStatus(status)).toMatch(
      /🦆 Duck Pacemaker: task a asks how to go on\n\nstuck: list_dir output\.txt failed \(not found\) 3 times in a row/,
    );
    // watch: what it prints for the task's steps (read with the taskStatus query, as watch does).
    const task = h.client.workflow.getHandle(taskWorkflowId(handle.workflowId, 'a'));
    const steps = (await task.query(taskStatusQuery)).steps!;
    expect(workerStepLine('a', steps.at(-1)!)).toMatch(
      // V6: with the first line of why the call failed.
      /step 1\.3: list_dir\(\{"path":"output\.txt"\}\)! \(1 failed: list_dir: not found: output\.txt\)\n {6}a · stuck: list_dir output\.txt failed/,
    );
    // V1: the task's current details (the Web UI).
    const meta = await task.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toMatch(/\*\*Stuck\*\*: stuck: list_dir output\.txt failed \(not found\) 3 times in a row .* at iteration 1, step 3/);
    expect(meta.currentDetails).toContain('  - stuck: list_dir output.txt failed');
    await handle.cancel();
  });
});
