// V1 / X11 (issue 21): the run's plan checklist where people look. The run workflow's current
// details (the Web UI's "Current Details", read here with the real `temporal workflow metadata`)
// are the goal and the X11 checklist; the same checklist stays in the memo, which `temporal
// workflow describe -o json` shows after the worker is gone. Scripted replans: a partial replan
// (completed checks kept) and a task re-decomposition (a new checklist, the earlier one in <details>).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MEMO_CHECKLIST } from '../../src/domain/run/views';
import { taskWorkflowId } from '../../src/workflows/execution';
import { decisionsQuery } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { decision, scriptDecisions } from '../support/decisions';
import { FAST, runOutcome, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { harnessForSuite } from '../support/suite-hooks';
import { plannedTask, scriptScenario, type Scenario, fileTask } from '../support/scenario';
import { expectToContainAll } from '../support/expectations';

const exec = promisify(execFile);
let h: Harness;
harnessForSuite((started) => (h = started));

async function temporal(...args: string[]): Promise<string> {
  const r = await exec(process.env.TEMPORAL_CLI_PATH!, [...args, '--address', temporalAddress()], { maxBuffer: 16 * 1024 * 1024 });
  return r.stdout;
}

/** The current details `temporal workflow metadata` prints (answered by the worker). */
async function currentDetails(workflowId: string): Promise<string> {
  const out = await temporal('workflow', 'metadata', '-w', workflowId, '-o', 'json');
  const found = findKey(JSON.parse(out), 'currentDetails');
  if (typeof found !== 'string') throw new Error(`no currentDetails in: ${out.slice(0, 2000)}`);
  return found;
}

function findKey(v: unknown, key: string): unknown {
  if (!v || typeof v !== 'object') return undefined;
  if (key in v) return (v as Record<string, unknown>)[key];
  for (const x of Object.values(v)) {
    const f = findKey(x, key);
    if (f !== undefined) return f;
  }
  return undefined;
}

/** A memo field as `temporal workflow describe -o json` shows it (decoded JSON, or a payload with base64 data). */
function memoField(describeJson: string, key: string): unknown {
  const memo = findKey(JSON.parse(describeJson), 'memo');
  const v = findKey(memo, key);
  if (v && typeof v === 'object' && typeof (v as { data?: unknown }).data === 'string') {
    return JSON.parse(Buffer.from((v as { data: string }).data, 'base64').toString('utf8'));
  }
  if (v === undefined) throw new Error(`no memo field ${key} in: ${describeJson.slice(0, 3000)}`);
  return v;
}

const started: string[] = [];
function start(instruction: string) {
  const runId = uniqueId('ck');
  started.push(runWorkflowId(runId));
  return h.client.workflow.start(RunWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction, workspace: h.workspace(), options: FAST }],
  });
}

describe('V1 X11 the plan checklist in the Web UI and the memo', () => {
  let partialRun = '';
  let partialChecklist = '';

  it('V1 X11 a partial replan: `temporal workflow metadata` shows "Execution Plan (Revised #1)", the completed check kept, the earlier plan in <details> and the progress line', async () => {
    // b fails once (BLOCKED); the decision after it is a partial replan; b then runs again and succeeds.
    const scenario: Scenario = {
      tasks: [fileTask('a'), fileTask('b', ['a'])],
      judge: (id, n) =>
        id === 'b' && n === 1
          ? { success: false, shouldContinue: false, shouldReplan: false, reason: 'b.txt is wrong', missingRequirements: [] }
          : { success: true, reason: 'ok', missingRequirements: [] },
    };
    scriptScenario(h.fake, scenario);
    scriptDecisions(h.fake, {
      execution: [
        decision({ confidence: 0.9, replan: false }),
        decision({ confidence: 0.9, type: 'partial_replan', issue: 'b failed; plan the remaining work again' }),
      ],
    });
    const handle = await start('write a.txt, then b.txt');
    expect((await runOutcome(handle)).status).toBe('DONE');
    const details = await currentDetails(handle.workflowId);
    expectToContainAll(details, [
      '**Status**: DONE',
      '**Goal**: Carry out the instruction',
      '## 📋 Execution Plan (Revised #1)',
      '**Revision Reason**: replan because b failed; plan the remaining work again (re-plan the remaining steps)',
      '**Previous Progress**: 1/2',
    ]);
    const [current, history] = details.split('<details>');
    expectToContainAll(current, ['- [x] **a**: write a', '- [x] **b**: write b', 'Progress: 2/2 (100%) complete · Plan Revisions: 1']);
    expectToContainAll(history, ['### Original Plan', '- [x] **a**: write a', '- [ ] **b**: write b — ⛔ blocked', '</details>']);
    // Every execution decision names the task it was about.
    const execution = (await handle.query(decisionsQuery)).records.filter((r) => r.phase === 'execution');
    expect(execution.map((r) => r.task_id)).toEqual(['a', 'b', 'b']);
    partialRun = handle.workflowId;

    // Small history, counted over every workflow of the run (this tiny run has 11 workflows for 23 LLM
    // calls, so its per-call figure is mostly workflow starts; `npm run bench` measures large runs).
    let events = 0;
    for await (const wf of h.client.workflow.list({ query: `WorkflowId STARTS_WITH "${handle.workflowId}"` })) events += wf.historyLength;
    const calls = h.fake.requests.filter((r) => r.status === 200).length;
    const kinds: Record<string, number> = {};
    for (const e of (await handle.fetchHistory()).events ?? []) {
      const k = Object.keys(e).find((x) => x.endsWith('EventAttributes')) ?? '?';
      kinds[k] = (kinds[k] ?? 0) + 1;
    }
    console.log(`V1/S2 history: ${events} events for ${calls} LLM calls (${(events / calls).toFixed(1)} per call); run: ${JSON.stringify(kinds)}`);
    // What this issue adds to the run's history: one read (a local activity marker) per progress poke
    // at most (pokes are coalesced), and the checklist's memo writes (only when its text changed).
    // Besides: the one local activity that names the workspace's lock.
    expect(kinds.markerRecordedEventAttributes ?? 0).toBeLessThanOrEqual((kinds.workflowExecutionSignaledEventAttributes ?? 0) + 4);
    expect(kinds.workflowPropertiesModifiedEventAttributes ?? 0).toBeLessThanOrEqual(20);
    partialChecklist = details.slice(details.indexOf('## 📋'));

    // V1: each task workflow's current details show its worker steps and tool calls.
    const task = await currentDetails(taskWorkflowId(handle.workflowId, 'a'));
    expect(task).toContain('## Task a: write a');
    expect(task).toContain('**State**: DONE');
    expect(task).toMatch(/- iteration 1, step 1: `write_file\(.*a\.txt/);
    // V3: and the files it changed, with lines added and removed (from its worker steps' results).
    expect(task).toContain('### Files changed\n- `a.txt` +1 −0 (1 write)');
    // The static details carry the instruction.
    const meta = JSON.parse(await temporal('workflow', 'describe', '-w', handle.workflowId, '-o', 'json')) as Record<string, unknown>;
    expect(JSON.stringify(meta)).toContain('write a.txt, then b.txt');
  });

  it('V1 X11 a task re-decomposition starts a new checklist, the earlier one in <details>; the record keeps the plan it produced', async () => {
    const scenario: Scenario = {
      tasks: [fileTask('a'), fileTask('b')],
    };
    scriptScenario(h.fake, scenario);
    // The first decomposition is one coarse task; after the re-decomposition the planner gives a and b.
    h.fake.script('task_decomposition', { json: { tasks: [plannedTask({ id: 'ab', title: 'write a and b' })] } });
    scriptDecisions(h.fake, {
      task_decomposition: [decision({ confidence: 0.9, type: 'task_redecomposition', issue: 'one task is too coarse' })],
    });
    const handle = await start('write a.txt and b.txt');
    expect((await runOutcome(handle)).status).toBe('DONE');
    const details = await currentDetails(handle.workflowId);
    const [current, history] = details.split('<details>');
    expectToContainAll(
      current,
      ['## 📋 Execution Plan (Revised #1)', '(split the tasks again)', '**Previous Progress**: 0/1', '- [x] **a**: write a', '- [x] **b**: write b'],
      ['**ab**'],
    );
    expect(current).toContain('Progress: 2/2 (100%) complete · Plan Revisions: 1');
    expect(history).toContain('- [ ] **ab**: write a and b');

    // X9: the executed re-decomposition's record: plan_after is the plan it produced.
    const rec = (await handle.query(decisionsQuery)).records.find((r) => r.replan_type === 'task_redecomposition')!;
    expect(rec.plan_before?.tasks.map((t) => t.id)).toEqual(['ab']);
    expect(rec.plan_after?.tasks.map((t) => t.id)).toEqual(['a', 'b']);
  });

  it('V1 O5 with the worker stopped, `temporal workflow describe -o json` still shows the latest checklist in the memo', async () => {
    expect(partialRun).not.toBe('');
    h.worker.shutdown();
    await until('the worker to stop', async () => (h.worker.getState() === 'STOPPED' ? true : undefined));
    const out = await temporal('workflow', 'describe', '-w', partialRun, '-o', 'json');
    const memo = memoField(out, MEMO_CHECKLIST);
    expect(memo).toBe(partialChecklist);
    expect(String(memo)).toContain('Execution Plan (Revised #1)');
  });
});
