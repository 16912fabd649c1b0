// Issue 22, M1: strict structured outputs on the wire and the fallback ladder, against the real
// dev server and the scripted OpenAI-compatible server. Every structured request of a full run
// (every purpose, every phase's decision variant, the worker's tools) is strict-mode valid; a server
// that rejects json_schema (a 400, or llama-cpp-python's 500) is answered through json_object, one
// that rejects json_object too through prompt-only JSON, the rung kept in the run's state across a
// worker restart; a server that rejects tools pauses the run at its first worker call.
import type { WorkflowHandle } from '@temporalio/client';
import { resumeUpdate, statusQuery, type RunStatus } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { strictSchemaProblems } from '../../src/llm/strict-schema';
import { pausedLine, renderStatus } from '../../src/client/render';
import type { RecordedRequest } from '../support/fake-openai';
import { FAST, runOutcome, sleep, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { DEFAULT_GOAL, scriptScenario, type ScenarioTask } from '../support/scenario';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { startWorkerProcess } from '../support/worker-proc';

jest.setTimeout(5 * 60_000);

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));
beforeEach(() => h.fake.reset());

const TASKS: ScenarioTask[] = [
  { id: 'a', title: 'write the a files', files: { 'a1.txt': 'a1', 'a2.txt': 'a2' } },
  { id: 'b', title: 'write the b file', files: { 'b1.txt': 'b1' }, dependencies: ['a'] },
];

function start(runId: string, taskQueue = h.taskQueue): Promise<WorkflowHandle<typeof RunWorkflow>> {
  return h.client.workflow.start(RunWorkflow, {
    taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: 'write the files of a and b', workspace: h.workspace(), options: { ...FAST, maxParallelTasks: 1 } }],
  });
}

const formOf = (r: RecordedRequest): string | undefined => r.body?.response_format?.type;
const structured = (rs: RecordedRequest[]) => rs.filter((r) => r.purpose !== 'worker_step');

async function expectDone(handle: WorkflowHandle): Promise<void> {
  const result = await runOutcome(handle);
  expect(result.status).toBe('DONE');
  expect(result.tasks.map((t) => [t.id, t.state])).toEqual([
    ['a', 'DONE'],
    ['b', 'DONE'],
  ]);
}

describe('M1 strict structured outputs on the wire', () => {
  it('M1 every structured request of a full run (every purpose, every phase decision variant, the worker tools) is strict-mode valid with strict: true', async () => {
    scriptScenario(h.fake, {
      tasks: TASKS,
      // J6: task a is re-decomposed once, so task_replan is on the wire too.
      judge: (id, n) =>
        id === 'a' && n === 1
          ? { success: false, shouldContinue: false, shouldReplan: true, reason: 'too large', missingRequirements: ['split it'], confidence: 0.8 }
          : { success: true, shouldContinue: false, shouldReplan: false, reason: 'done', missingRequirements: [], confidence: 0.9 },
      replacements: { a: [{ id: 'a-1', title: 'write a1 and a2', files: { 'a1.txt': 'a1', 'a2.txt': 'a2' } }] },
    });
    const handle = await start(uniqueId('strict'));
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');

    const purposes = new Set(h.fake.requests.map((r) => r.purpose));
    for (const p of [
      'goal_understanding',
      'task_decomposition',
      'quality_judge',
      'action_sequence',
      'worker_step',
      'judge',
      'task_replan',
      'replan_decision',
      'reflection',
    ]) {
      expect([p, purposes.has(p)]).toEqual([p, true]);
    }
    for (const r of structured(h.fake.requests)) {
      const rf = r.body.response_format;
      expect([r.purpose, rf?.type, rf?.json_schema?.strict]).toEqual([r.purpose, 'json_schema', true]);
      expect([r.purpose, strictSchemaProblems(rf.json_schema.schema)]).toEqual([r.purpose, []]);
    }
    // X2: each phase's own decision variant went out (its extra fields), each strict-valid (above).
    const variants = new Set(
      h.fake.requestsFor('replan_decision').map((r) => {
        const props = Object.keys(r.body.response_format.json_schema.schema.properties);
        return ['assumptions_to_make', 'missing_steps', 'unavailable_tools', 'error_classification', 'evaluation_result'].find((k) =>
          props.includes(k),
        );
      }),
    );
    expect([...variants].sort()).toEqual(['assumptions_to_make', 'error_classification', 'evaluation_result', 'missing_steps', 'unavailable_tools']);
    const workerRequests = h.fake.requestsFor('worker_step');
    expect(workerRequests.length).toBeGreaterThan(0);
    for (const r of workerRequests) {
      expect(r.body.response_format).toBeUndefined();
      expect(r.body.tools.length).toBe(6);
      for (const t of r.body.tools) {
        expect([t.function.name, t.function.strict, strictSchemaProblems(t.function.parameters)]).toEqual([t.function.name, true, []]);
      }
    }
  });
});

describe('M1 the fallback ladder', () => {
  it('M1 json_schema rejected with a 400: the run goes on through json_object (the schema beside it) and ends DONE; json_schema is never asked again', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    h.fake.rejects.add('json_schema');
    const handle = await start(uniqueId('ladder-400'));
    await expectDone(handle);
    const calls = structured(h.fake.requests);
    // One rejected json_schema request (the run's first call), then every structured call as json_object.
    expect(calls.filter((r) => formOf(r) === 'json_schema').map((r) => [r.purpose, r.status])).toEqual([['goal_understanding', 400]]);
    const rest = calls.filter((r) => formOf(r) !== 'json_schema');
    expect(rest.every((r) => formOf(r) === 'json_object' && r.status === 200)).toBe(true);
    expect(rest.every((r) => strictSchemaProblems(r.body.response_format.schema).length === 0)).toBe(true);
    expect(rest.every((r) => r.messages[0]!.content.includes('JSON Schema'))).toBe(true);
    // The worker learned the rung from the run: its tools are no longer strict functions.
    expect(h.fake.requestsFor('worker_step').every((r) => r.body.tools.every((t: any) => t.function.strict === undefined))).toBe(true);
    // `status` says which form the run's replies take now.
    const s = await handle.query(statusQuery);
    expect(s.llmRung).toBe('json_object');
    expect(renderStatus(s)).toContain('LLM replies: JSON mode with the schema (the server rejected strict json_schema)');
    // No outage pause was ever reported.
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'llmTrouble')).toEqual([]);
  });

  it("M1 llama-cpp-python's HTTP 500 for a json_schema response_format is a rejection of the form, not an outage: DONE through json_object, never PAUSED", async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    h.fake.rejects.add('json_schema');
    h.fake.rejectStyle = 'llamacpp';
    const handle = await start(uniqueId('ladder-llamacpp'));
    await expectDone(handle);
    expect(
      structured(h.fake.requests)
        .filter((r) => formOf(r) === 'json_schema')
        .map((r) => r.status),
    ).toEqual([500]);
    expect(h.fake.requests.filter((r) => r.status !== 200)).toHaveLength(1);
    const s = await handle.query(statusQuery);
    expect(s.pauses ?? []).toEqual([]);
  });

  it('M1 json_schema and json_object rejected: prompt-only JSON, DONE; a worker restarted mid-run keeps the rung (every request after it starts at prompt-only)', async () => {
    const taskQueue = uniqueId('ladder-restart');
    scriptScenario(h.fake, { tasks: TASKS, workerDelayMs: 1500 });
    h.fake.rejects.add('json_schema');
    h.fake.rejects.add('json_object');
    let worker = await startWorkerProcess({ address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL });
    const handle = await start(uniqueId('ladder-prompt'), taskQueue);
    await until('the first worker step', async () => (h.fake.requestsFor('worker_step').length > 0 ? true : undefined), 120_000);
    worker.child.kill('SIGKILL');
    await worker.exited;
    const seen = h.fake.requests.length;
    worker = await startWorkerProcess({ address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL });
    await expectDone(handle);

    const calls = structured(h.fake.requests);
    expect(calls.filter((r) => formOf(r) === 'json_schema').map((r) => r.status)).toEqual([400]);
    expect(calls.filter((r) => formOf(r) === 'json_object').map((r) => r.status)).toEqual([400]);
    const promptOnly = calls.filter((r) => formOf(r) === undefined);
    expect(promptOnly.length).toBeGreaterThan(5);
    expect(promptOnly.every((r) => r.status === 200 && r.messages[0]!.content.includes('matches this JSON Schema'))).toBe(true);
    // After the restart: nothing was asked in a rejected form again.
    const after = h.fake.requests.slice(seen);
    expect(after.length).toBeGreaterThan(3);
    expect(after.map((r) => [r.purpose, formOf(r) ?? 'prompt', r.status])).toEqual(after.map((r) => [r.purpose, 'prompt', 200]));
    expect(after.filter((r) => r.purpose === 'worker_step').every((r) => r.body.tools.every((t: any) => t.function.strict === undefined))).toBe(true);
    expect((await handle.query(statusQuery)).llmRung).toBe('prompt');
    worker.child.kill('SIGTERM');
  });

  it('M1 a server that rejects tools: the run pauses at the first worker call with the reason and the fix, asks the LLM nothing more; resume retries', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    h.fake.rejects.add('tools');
    const runId = uniqueId('no-tools');
    const handle = await start(runId);
    const paused = await until<RunStatus>(
      'PAUSED llm_unsupported',
      async () => {
        const s = await handle.query(statusQuery);
        return s.status === 'PAUSED' && s.pauses?.some((p) => p.kind === 'llm_unsupported') ? s : undefined;
      },
      90_000,
    );
    const pause = paused.pauses!.find((p) => p.kind === 'llm_unsupported')!;
    expect(pause.reason).toMatch(/^LLM cannot make tool calls: /);
    expect(pause.reason).toContain('does not support tools');
    expect(pause.reason).toContain('chatml-function-calling');
    expect(pause.reason).toContain('--enable-auto-tool-choice');
    expect(pausedLine(runId, pause)).toContain(`fix it, then: npx replanner resume ${runId}`);
    // Exactly one worker request, rejected; nothing after it.
    const worker = h.fake.requestsFor('worker_step');
    expect(worker.map((r) => r.status)).toEqual([400]);
    const asked = h.fake.requests.length;
    await sleep(8000);
    expect(h.fake.requests.length).toBe(asked);
    expect((await handle.query(statusQuery)).status).toBe('PAUSED');

    // The user switches to a server with tool calls, then resumes.
    h.fake.rejects.delete('tools');
    await handle.executeUpdate(resumeUpdate, { args: [] });
    await expectDone(handle);
  });

  it('M1 llm.timeoutSeconds (config) is the request timeout of every LLM call of the run: a slower reply is cut off and retried', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    // The worker's own timeout is 10 s: only the run's config can cut this 4 s reply off.
    h.fake.script('goal_understanding', { hangMs: 4000, then: { json: DEFAULT_GOAL } });
    const runId = uniqueId('timeout');
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: runWorkflowId(runId),
      args: [{ runId, instruction: 'write the files of a and b', workspace: h.workspace(), options: FAST, config: { llm: { timeoutSeconds: 1 } } }],
    });
    await expectDone(handle);
    const [first, second] = h.fake.requestsFor('goal_understanding');
    expect(first!.status).toBeUndefined();
    expect(first!.finishedAt! - first!.startedAt).toBeLessThan(2500);
    expect(second!.status).toBe(200);
  });
});
