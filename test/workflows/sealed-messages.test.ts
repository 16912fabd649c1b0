// Issue 10, S2: sealed messages. Bad and forged signals/updates are sent with the real
// `temporal` CLI to a run (and its task workflow) that is waiting for the user; nothing they carry
// changes what `status` shows or fails a workflow task, every update is refused with its reason,
// and the run still finishes once the real answer comes. Later issues add their messages here.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { taskWorkflowId } from '../../src/workflows/execution';
import type { RunWorkflow } from '../../src/workflows/run';
import {
  llmTroubleSignal,
  statusQuery,
  taskConsultationSignal,
  taskProgressSignal,
  taskStatusQuery,
  type RunStatus,
} from '../../src/workflows/messages';
import { childReadAfter } from '../support/child-reads';
import { decision, scriptDecisions } from '../support/decisions';
import { FAST, runOutcome, temporalAddress, until, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { scriptScenario, taskIdOf, workerReply, workerStepsSoFar, type Scenario, type ScenarioTask, fileTask } from '../support/scenario';

const exec = promisify(execFile);
let h: Harness;
harnessForSuite((started) => (h = started));

type Kind = 'signal' | 'update';
/** One row: what is sent, to which workflow, and (for an update) the reason it must be refused with. */
interface Row {
  what: string;
  kind: Kind;
  name: string;
  input: string;
  reason?: string;
}

/** Sends one message with the real CLI; returns the CLI's stderr when it failed. */
async function send(workflowId: string, r: Pick<Row, 'kind' | 'name' | 'input'>): Promise<{ ok: boolean; stderr: string }> {
  const args =
    r.kind === 'signal'
      ? ['workflow', 'signal', '--address', temporalAddress(), '-w', workflowId, '--name', r.name, '--input', r.input]
      : ['workflow', 'update', 'execute', '--address', temporalAddress(), '-w', workflowId, '--name', r.name, '--input', r.input];
  return exec(process.env.TEMPORAL_CLI_PATH!, args, { maxBuffer: 8 * 1024 * 1024 }).then(
    () => ({ ok: true, stderr: '' }),
    (e: { stderr?: string }) => ({ ok: false, stderr: (e.stderr ?? '').replace(/\\"/g, '"') }),
  );
}

/** Sends every row; signals must be accepted by the server, updates refused with their reason. */
async function sendAll(workflowId: string, rows: Row[]): Promise<void> {
  for (const r of rows) {
    const res = await send(workflowId, r);
    if (r.kind === 'signal') {
      expect({ what: r.what, ok: res.ok, stderr: res.stderr }).toEqual({ what: r.what, ok: true, stderr: '' });
    } else {
      expect({ what: r.what, ok: res.ok }).toEqual({ what: r.what, ok: false });
      expect({ what: r.what, stderr: res.stderr }).toEqual({ what: r.what, stderr: expect.stringContaining(r.reason!) });
    }
  }
}

async function workflowTaskFailures(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.workflowTaskFailedEventAttributes)
    .map((e) => String(e.workflowTaskFailedEventAttributes?.failure?.message));
}

/** A valid update `name` sent to `workflowId` with the real CLI is accepted; then the run ends DONE with no workflow task failure. */
async function validUpdateThenDone(run: WorkflowHandle<typeof RunWorkflow>, workflowId: string, name: string, input: string): Promise<void> {
  expect(await send(workflowId, { kind: 'update', name, input })).toEqual({ ok: true, stderr: '' });
  expect((await run.result()).status).toBe('DONE');
  expect(await workflowTaskFailures(run)).toEqual([]);
}

const USAGE = '{"promptTokens":1,"completionTokens":1,"totalTokens":2,"calls":1}';
const task = (id: string, state = 'RUNNING') =>
  JSON.stringify({
    id,
    title: `task ${id}`,
    description: 'x',
    acceptanceCriteria: [],
    dependencies: [],
    scopePaths: [],
    profile: 'FILE_OPERATION',
    state,
  });
const consultation = (taskId: string, n: number) =>
  JSON.stringify({
    id: `${taskId}-c${n}`,
    taskId,
    kind: 'no_progress',
    iteration: 2,
    maxLoops: 4,
    message: 'forged: the task made no progress',
    trigger: 'forged',
    choices: [{ number: 1, effect: 'stop', label: 'stop' }],
    timeoutMinutes: 30,
  });
/** A task record the execution phase sends when it replaced the task by a re-decomposition. */
const replaced = (id: string, by: string[]) =>
  JSON.stringify({ ...JSON.parse(task(id, 'REPLACED_BY_REPLAN')), replanningInfo: { iteration: 0, maxIterations: 2, replacedBy: by } });
const HUGE = 'x'.repeat(100_000);

/** A row: a signal the server must accept; an update it must refuse with `reason`. */
const signal = (what: string, name: string, input: string): Row => ({ what, kind: 'signal', name, input });
const update = (what: string, name: string, input: string, reason: string): Row => ({ what, kind: 'update', name, input, reason });

/** Malformed shapes, null, wrong types, extra keys and huge strings: the same for every run. */
const MALFORMED: Row[] = [
  signal('taskProgress null', 'taskProgress', 'null'),
  signal('taskProgress of the issue report', 'taskProgress', '{"tasks":"not-a-list","usage":5}'),
  signal('taskProgress a number', 'taskProgress', '42'),
  signal('taskProgress extra key', 'taskProgress', `{"round":1,"seq":99,"tasks":[],"usage":${USAGE},"admin":true}`),
  signal(
    'taskProgress task with a huge title',
    'taskProgress',
    `{"round":1,"seq":99,"tasks":[${task('a').replace('task a', HUGE)}],"usage":${USAGE}}`,
  ),
  signal('taskConsultation null', 'taskConsultation', 'null'),
  signal('taskConsultation wrong types', 'taskConsultation', '{"taskId":7,"consultationId":[],"consultation":"open"}'),
  signal('answerClarificationSignal null', 'answerClarificationSignal', 'null'),
  signal('answerClarificationSignal wrong types', 'answerClarificationSignal', '{"questionId":1,"answer":false}'),
  signal('answerClarificationSignal extra key', 'answerClarificationSignal', '{"questionId":"q1","answer":"CSV","admin":true}'),
  // O2 (issue 12): LLM trouble reports with bad payloads pause nothing; a forged recovery ends no pause.
  signal('llmTrouble null', 'llmTrouble', 'null'),
  signal('llmTrouble wrong types', 'llmTrouble', '{"trouble":1,"error":[]}'),
  signal('llmTrouble unknown trouble', 'llmTrouble', '{"trouble":"budget","error":"x"}'),
  signal('llmTrouble extra key', 'llmTrouble', '{"trouble":"unavailable","admin":true}'),
  signal('llmTrouble huge error', 'llmTrouble', JSON.stringify({ trouble: 'rejected', error: HUGE })),
  signal('llmTrouble recovered with no outage', 'llmTrouble', '{"trouble":"recovered"}'),
  // S2 (issue 21): a trouble report names only its sender; the run asks that workflow, if it is its own.
  signal('llmTrouble from a stranger', 'llmTrouble', '{"from":"stranger"}'),
  signal('llmTrouble with a claim beside the sender', 'llmTrouble', '{"from":"x","trouble":"rejected"}'),
  signal('an unknown signal (the removed executionDecision)', 'executionDecision', '{"taskId":"a"}'),
  update('an unknown update', 'setStatus', '{"status":"DONE"}', 'setStatus'),
  update('answerClarification null', 'answerClarification', 'null', 'invalid payload'),
  update('answerClarification a string', 'answerClarification', '"CSV"', 'invalid payload'),
  update('answerClarification wrong types', 'answerClarification', '{"questionId":1,"answer":false}', 'invalid payload (questionId'),
  update('answerClarification extra key', 'answerClarification', '{"questionId":"q1","answer":"CSV","admin":true}', 'invalid payload'),
  update('answerClarification huge answer', 'answerClarification', JSON.stringify({ questionId: 'q1', answer: HUGE }), 'invalid payload (answer'),
  // O1 (issue 12): pause and resume with bad payloads pause nothing.
  signal('pauseSignal a string', 'pauseSignal', '"stop"'),
  signal('pauseSignal wrong types', 'pauseSignal', '{"reason":7}'),
  signal('pauseSignal extra key', 'pauseSignal', '{"reason":"x","admin":true}'),
  signal('pauseSignal huge reason', 'pauseSignal', JSON.stringify({ reason: HUGE })),
  signal('resumeSignal extra key', 'resumeSignal', '{"force":true}'),
  update('pause a string', 'pause', '"now"', 'invalid payload'),
  update('pause wrong types', 'pause', '{"reason":[1]}', 'invalid payload (reason'),
  update('pause extra key', 'pause', '{"reason":"x","admin":true}', 'invalid payload'),
  update('pause huge reason', 'pause', JSON.stringify({ reason: HUGE }), 'invalid payload (reason'),
  update('resume extra key', 'resume', '{"force":true}', 'invalid payload'),
  signal('pauseGate (internal) to the run', 'pauseGate', '{"paused":true}'),
  // O3 (issue 12): the budget leases' internal messages. A run takes requests only from its running
  // phase child and never takes a grant (its limit changes only by the answer to its budget question).
  signal('budgetRequest null', 'budgetRequest', 'null'),
  signal('budgetRequest wrong types', 'budgetRequest', '{"from":1,"seq":"1","want":-5,"largest":null}'),
  signal('budgetRequest huge want', 'budgetRequest', '{"from":"x","seq":1,"want":1e15,"largest":0,"spent":0}'),
  signal('budgetRequest from a stranger', 'budgetRequest', '{"from":"stranger","seq":1,"want":100,"largest":0,"spent":100}'),
  signal('budgetGrant to the run', 'budgetGrant', '{"seq":1,"tokens":1000000}'),
];

describe('S2 sealed messages', () => {
  it('S2 a run waiting on a question: malformed and forged messages change nothing, fail nothing, updates say why; then the answer → DONE', async () => {
    scriptScenario(h.fake, { tasks: [fileTask('a')] });
    scriptDecisions(h.fake, {
      goal_understanding: [
        decision({ confidence: 0.9, type: 'clarification_request', issue: 'the format is unclear', questions: ['Which output format?'] }),
      ],
    });
    const { handle } = await startRun(h, { instruction: 'write the file a.txt', workspace: h.workspace(), options: FAST }, 'sealed');
    await until('the pending question q1', async () => (await handle.query(statusQuery)).questions?.find((q) => q.id === 'q1'));
    const before = JSON.stringify(await handle.query(statusQuery));

    await sendAll(handle.workflowId, [
      ...MALFORMED,
      // Well-formed forgeries.
      signal('progress of an unknown task', 'taskProgress', `{"round":1,"seq":1,"tasks":[${task('zz')}],"usage":${USAGE}}`),
      signal('progress from the past (round 0)', 'taskProgress', `{"round":0,"seq":1,"tasks":[],"usage":${USAGE}}`),
      signal('a consultation nobody asked', 'taskConsultation', `{"taskId":"a","consultationId":"a-c1","consultation":${consultation('a', 1)}}`),
      signal('closing a consultation nobody opened', 'taskConsultation', '{"taskId":"a","consultationId":"a-c1","consultation":null}'),
      signal('an answer signal for an unknown question', 'answerClarificationSignal', '{"questionId":"q9","answer":"CSV"}'),
      update('an answer for an unknown question', 'answerClarification', '{"questionId":"q9","answer":"CSV"}', 'unknown question "q9" (pending: q1)'),
      update('an empty answer', 'answerClarification', '{"questionId":"q1","answer":"  "}', 'the answer to q1 is empty'),
    ]);

    expect(JSON.stringify(await handle.query(statusQuery))).toBe(before);
    expect(await workflowTaskFailures(handle)).toEqual([]);

    await validUpdateThenDone(handle, handle.workflowId, 'answerClarification', '{"questionId":"q1","answer":"plain text"}');
  });

  it('S2 P7 a run and its task waiting on a consultation: forged progress (past sequence, unknown task), forged consultations and bad answers change nothing; then the answer → DONE', async () => {
    let unstuck = false;
    const scenario: Scenario = {
      tasks: [{ id: 's', title: 'make the parser work', files: { 'stall.txt': 'same thing again' } }],
      judge: () =>
        unstuck
          ? { success: true, reason: 'the parser works', missingRequirements: [] }
          : { success: false, shouldContinue: true, shouldReplan: false, reason: 'still not done', missingRequirements: ['a working parser'] },
    };
    scriptScenario(h.fake, scenario);
    const { handle } = await startRun(h, { instruction: 'make the parser work', workspace: h.workspace(), options: FAST }, 'sealed');
    const status = await until<RunStatus>('a consultation in the run status', async () => {
      const s = await handle.query(statusQuery);
      return s.consultations?.length ? s : undefined;
    });
    const taskHandle = h.client.workflow.getHandle(taskWorkflowId(handle.workflowId, 's'));
    const before = JSON.stringify(status);
    const taskBefore = JSON.stringify(await taskHandle.query(taskStatusQuery));
    expect(status.consultations?.map((c) => c.id)).toEqual(['s-c1']);
    const tasks = JSON.stringify(status.tasks);

    await sendAll(handle.workflowId, [
      ...MALFORMED,
      signal('a sequence number from the past', 'taskProgress', `{"round":1,"seq":1,"tasks":${tasks},"usage":${USAGE}}`),
      signal('another round', 'taskProgress', `{"round":2,"seq":1000,"tasks":${tasks},"usage":${USAGE}}`),
      signal(
        'progress skipping ahead (seq 1000) that would finish the task',
        'taskProgress',
        `{"round":1,"seq":1000,"tasks":[${task('s', 'DONE')}],"usage":${USAGE}}`,
      ),
      // A report carries only what changed (a delta): forged deltas at every sequence number the
      // run may expect next are refused for what they carry.
      ...[1, 2, 3, 4, 5].flatMap((seq): Row[] => [
        signal(`progress naming an unknown task (seq ${seq})`, 'taskProgress', `{"round":1,"seq":${seq},"tasks":[${task('zz')}],"usage":${USAGE}}`),
        signal(
          `a task replaced without its replacement (seq ${seq})`,
          'taskProgress',
          `{"round":1,"seq":${seq},"tasks":[${replaced('s', ['s.1'])}],"usage":${USAGE}}`,
        ),
      ]),
      signal('the open consultation again', 'taskConsultation', `{"taskId":"s","consultationId":"s-c1","consultation":${consultation('s', 1)}}`),
      signal(
        'a consultation of an unknown task',
        'taskConsultation',
        `{"taskId":"zz","consultationId":"zz-c1","consultation":${consultation('zz', 1)}}`,
      ),
      signal('closing another consultation', 'taskConsultation', '{"taskId":"s","consultationId":"s-c7","consultation":null}'),
      // S2 (issue 21): a poke names only the task; the run reads the task's consultation from the task.
      signal('a poke for the consulting task (the run looks again: s-c1 still open)', 'taskConsultation', '{"taskId":"s"}'),
      signal('a poke for an unknown task', 'taskConsultation', '{"taskId":"zz"}'),
    ]);
    await sendAll(taskHandle.workflowId, [
      update('answerConsultation null', 'answerConsultation', 'null', 'invalid answer: payload'),
      update('answerConsultation wrong types', 'answerConsultation', '{"choice":{"n":1}}', 'invalid answer: choice'),
      update('answerConsultation extra key', 'answerConsultation', '{"choice":"stop","admin":true}', 'invalid answer: payload: Unrecognized key'),
      update(
        'answerConsultation huge guidance',
        'answerConsultation',
        JSON.stringify({ choice: 'guidance', guidance: HUGE }),
        'invalid answer: guidance',
      ),
      update(
        'answerConsultation another id',
        'answerConsultation',
        '{"consultationId":"s-c9","choice":"stop"}',
        'consultation "s-c9" is not pending',
      ),
      signal('answerConsultationSignal null', 'answerConsultationSignal', 'null'),
      signal('pauseGate null', 'pauseGate', 'null'),
      signal('pauseGate wrong types', 'pauseGate', '{"paused":"yes"}'),
      signal('pauseGate extra key', 'pauseGate', '{"paused":true,"admin":true}'),
      signal('pauseGate unknown kind', 'pauseGate', '{"paused":true,"kinds":["admin"]}'),
      signal('pauseGate kinds not a list', 'pauseGate', '{"paused":true,"kinds":"user"}'),
      signal('budgetGrant null', 'budgetGrant', 'null'),
      signal('budgetGrant extra key', 'budgetGrant', '{"seq":1,"tokens":5,"admin":true}'),
      signal('budgetGrant answering no request', 'budgetGrant', '{"seq":1,"tokens":1000000}'),
      signal('answerConsultationSignal extra key', 'answerConsultationSignal', '{"choice":"stop","admin":true}'),
      signal('answerConsultationSignal another id', 'answerConsultationSignal', '{"consultationId":"s-c9","choice":"stop"}'),
    ]);

    expect(JSON.stringify(await handle.query(statusQuery))).toBe(before);
    expect(JSON.stringify(await taskHandle.query(taskStatusQuery))).toBe(taskBefore);
    expect(await workflowTaskFailures(handle)).toEqual([]);
    expect(await workflowTaskFailures(taskHandle)).toEqual([]);

    unstuck = true;
    await validUpdateThenDone(
      handle,
      taskHandle.workflowId,
      'answerConsultation',
      '{"consultationId":"s-c1","choice":"guidance","guidance":"write the parser in parser.ts"}',
    );
    expect(await workflowTaskFailures(taskHandle)).toEqual([]);
  });

  it('S2 a running run: a forged taskProgress (a real task id, DONE, every next sequence number; sealed with a token the run did not give) and forged llmTrouble sent with the temporal CLI change nothing, pause nothing; the run ends DONE', async () => {
    // The worker is slow, so the task is still running while the forgeries arrive (the temporal CLI
    // takes seconds per signal on a busy machine).
    scriptScenario(h.fake, { workerDelayMs: 3000, tasks: [{ id: 'a', title: 'write a', files: { 'a.txt': 'A', 'a2.txt': 'A2' } }] });
    const { handle } = await startRun(h, { instruction: 'write the files a.txt and a2.txt', workspace: h.workspace(), options: FAST }, 'sealed');
    const wf = handle.workflowId;
    const running = await until<RunStatus>('task a running', async () => {
      const s = await handle.query(statusQuery);
      return s.tasks.find((t) => t.id === 'a')?.state === 'RUNNING' ? s : undefined;
    });
    expect(running.phase).toBe('execution');
    await sendAll(wf, [
      ...[1, 2, 3, 4, 5, 6].map((seq) =>
        signal(`taskProgress: task a DONE (seq ${seq})`, 'taskProgress', `{"round":1,"seq":${seq},"tasks":[${task('a', 'DONE')}],"usage":${USAGE}}`),
      ),
      signal(
        'taskProgress: task a DONE, sealed with a token the run did not give',
        'taskProgress',
        `{"token":"forged-0123456789abcdef","since":0,"report":{"round":1,"seq":9,"tasks":[${task('a', 'DONE')}],"usage":${USAGE}}}`,
      ),
      signal('llmTrouble: rejected (the old claim)', 'llmTrouble', '{"trouble":"rejected","error":"forged: bad key"}'),
      signal('llmTrouble: unavailable (the old claim)', 'llmTrouble', '{"trouble":"unavailable","error":"forged"}'),
      signal('llmTrouble naming the running task', 'llmTrouble', JSON.stringify({ from: taskWorkflowId(wf, 'a') })),
      signal('llmTrouble naming the execution phase', 'llmTrouble', JSON.stringify({ from: `${wf}.execution-1` })),
      signal('llmTrouble naming the run itself', 'llmTrouble', JSON.stringify({ from: wf })),
      signal('llmTrouble naming a task that does not exist', 'llmTrouble', JSON.stringify({ from: taskWorkflowId(wf, 'zz') })),
    ]);
    // The same with the real client (issue 21), and a consultation for the running task: the next
    // consultation id in the old message's shape, and the poke the task itself sends.
    const a = taskWorkflowId(wf, 'a');
    await handle.signal(taskProgressSignal, JSON.parse(`{"round":1,"seq":1,"tasks":[${task('a', 'DONE')}],"usage":${USAGE}}`));
    await handle.signal(llmTroubleSignal, { from: a });
    await handle.signal(llmTroubleSignal, { from: `${wf}.execution-1` });
    await handle.signal('taskConsultation', JSON.parse(`{"taskId":"a","consultationId":"a-c1","consultation":${consultation('a', 1)}}`));
    await handle.signal(taskConsultationSignal, { taskId: 'a' });
    const taskHandle = h.client.workflow.getHandle(a);
    // The forgeries were handled (the run's history has them, and the reads they caused), and nothing changed.
    await until('the forged signals and the reads they caused in the run history', async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const forged = events.filter((e) => e.workflowExecutionSignaledEventAttributes).length >= 17;
      const lastSignal = Math.max(...events.filter((e) => e.workflowExecutionSignaledEventAttributes).map((e) => Number(e.eventId)));
      const readAfter = childReadAfter(events, lastSignal);
      return (forged && readAfter) || (await handle.describe()).status.name !== 'RUNNING' ? true : undefined;
    });
    const after = await handle.query(statusQuery);
    expect(after.status).toBe('RUNNING');
    expect(after.pause).toBeUndefined();
    expect(after.consultations ?? []).toEqual([]);
    expect(after.tasks.find((t) => t.id === 'a')?.state).toBe('RUNNING');
    const taskAfter = await taskHandle.query(taskStatusQuery);
    expect(taskAfter.state).toBe('RUNNING');
    expect(taskAfter.consultation).toBeUndefined();
    const final = await handle.result();
    expect(final.status).toBe('DONE');
    expect(h.fake.requestsFor('worker_step').length).toBeGreaterThanOrEqual(3);
    expect(await workflowTaskFailures(handle)).toEqual([]);
  });
  it('S2 O2 a forged llmTrouble naming a task that recovered from an earlier outage does not end a later outage; the real recovery does → DONE', async () => {
    const tasks: ScenarioTask[] = [fileTask('a'), fileTask('b', ['a'])];
    scriptScenario(h.fake, { tasks });
    // a: its step's quick attempts fail (an outage), the first probe gets through (a recovers);
    // b: the quick attempts and two probes (3 attempts each) fail: a second outage of 15 s or more.
    const failures = new Map([
      ['a', 3],
      ['b', 9],
    ]);
    h.fake.always('worker_step', (req) => {
      const id = taskIdOf(req) ?? '?';
      const left = failures.get(id) ?? 0;
      if (left > 0) {
        failures.set(id, left - 1);
        return { status: 503, message: `the model is overloaded (${id})` };
      }
      return workerReply(
        tasks.find((t) => t.id === id)!,
        workerStepsSoFar(req),
      );
    });
    const { handle } = await startRun(h, { instruction: 'write a.txt, then b.txt', workspace: h.workspace(), options: FAST }, 'sealed-outage');
    const wf = handle.workflowId;
    const outageOf = (task: string) => async () => {
      const s = await handle.query(statusQuery);
      const running = s.tasks.find((t) => t.state === 'RUNNING')?.id;
      return running === task && s.pauses?.some((p) => p.kind === 'llm_outage') ? s : undefined;
    };
    await until('the outage while a runs', outageOf('a'), 60_000);
    const bOutage = await until<RunStatus>('the second outage, while b runs (a recovered)', outageOf('b'), 90_000);
    expect(bOutage.tasks.find((t) => t.id === 'a')?.state).toBe('DONE');

    const told = async () =>
      ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'llmTrouble');
    const before = (await told()).length;
    // a's own latest observation is its recovery, which the run already took.
    await handle.signal(llmTroubleSignal, { from: taskWorkflowId(wf, 'a') });
    await until('the run to read a after the forged poke', async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'llmTrouble');
      const forged = signals[before];
      return forged && childReadAfter(events, Number(forged.eventId)) ? true : undefined;
    });
    const after = await handle.query(statusQuery);
    expect(after.status).toBe('PAUSED');
    expect(after.pauses?.map((p) => p.kind)).toEqual(['llm_outage']);
    // b's probes still fail: the pause was not ended by the forgery.
    expect(failures.get('b')).toBeGreaterThan(0);

    // The real path: b's probe gets through, b reports its recovery, the run goes on.
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');
    expect(failures.get('b')).toBe(0);
    expect(await workflowTaskFailures(handle)).toEqual([]);
  });
});
