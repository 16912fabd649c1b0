// Issue 10 on the real dev server with the scripted LLM: plan-size bounds (S3 planning.maxTasks),
// a reflection plan_revision whose additional actions become tasks that run (X3), decision records
// with the whole plans before and after (X9).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { decisionsQuery, statusQuery } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId, type RunInput } from '../../src/workflows/run';
import { FAST, uniqueId, runOutcome, type Harness } from '../support/harness';
import { expectDone } from '../support/expectations';
import { harnessForSuite } from '../support/suite-hooks';
import { decision, scriptDecisions } from '../support/decisions';
import { plannedTask, scriptScenario, taskIdOf, type ScenarioTask, fileTask } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started));

async function startRun(config?: unknown, extra: Partial<RunInput> = {}) {
  const runId = uniqueId('bounds');
  const workspace = h.workspace();
  const handle = await h.client.workflow.start(RunWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: 'write the files', workspace, options: FAST, ...(config ? { config } : {}), ...extra }],
  });
  return { handle, workspace };
}

const many = (n: number): ScenarioTask[] =>
  Array.from({ length: n }, (_, i) => ({ id: `t${i + 1}`, title: `step ${i + 1}`, files: { [`t${i + 1}.txt`]: `${i + 1}` } }));

describe('S3 plan size (planning.maxTasks)', () => {
  it('S3 a 40-task plan goes back to the planner with the limit named, then the run fails saying so', async () => {
    scriptScenario(h.fake, { tasks: many(40) });
    const { handle } = await startRun();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);

    const asked = h.fake.requestsFor('task_decomposition');
    expect(asked).toHaveLength(2);
    expect(asked[0]!.text).not.toContain('planning.maxTasks');
    expect(asked[1]!.text).toContain('the plan has 40 tasks; planning.maxTasks is 30');
    expect(asked[1]!.text).toContain('at most 30 tasks');
    const status = await handle.query(statusQuery);
    expect(status.status).toBe('FAILED');
    expect(status.error).toContain('the plan has 40 tasks; planning.maxTasks is 30');
    // Nothing of the refused plan ran.
    expect(h.fake.requestsFor('worker_step')).toHaveLength(0);
    expect(h.fake.requestsFor('quality_judge')).toHaveLength(0);
  });

  it('S3 a plan that shrinks to the limit after the planner is told runs to DONE', async () => {
    scriptScenario(h.fake, { tasks: many(2) });
    h.fake.script('task_decomposition', { json: { tasks: many(5).map(plannedTask) } });
    const { handle } = await startRun({ planning: { maxTasks: 4 } });
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => t.id)).toEqual(['t1', 't2']);
    expect(h.fake.requestsFor('task_decomposition')[1]!.text).toContain('the plan has 5 tasks; planning.maxTasks is 4');
  });

  it('S3 R1 a quality re-plan over the limit is refused (previous plan kept) and the next re-plan is told the limit', async () => {
    const parser: ScenarioTask = { id: 'parser', title: 'write the parser', files: { 'parser.js': 'module.exports = {}' } };
    const tests: ScenarioTask = { id: 'tests', title: 'test the parser', dependencies: ['parser'], files: { 't.js': '// ok' } };
    const poor = { isAcceptable: false, issues: ['the tests are thin'], suggestions: [], overallScore: 40 };
    const better = { isAcceptable: false, issues: ['still thin'], suggestions: [], overallScore: 60 };
    scriptScenario(h.fake, { tasks: [parser, tests] });
    h.fake.script(
      'task_decomposition',
      { json: { tasks: [parser, tests].map(plannedTask) } },
      { json: { tasks: many(40).map(plannedTask) } },
      { json: { tasks: [parser, tests].map(plannedTask) } },
    );
    h.fake.script('quality_judge', { json: poor }, { json: better });
    const { handle } = await startRun();
    const result = await runOutcome(handle);

    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => t.id)).toEqual(['parser', 'tests']);
    const asked = h.fake.requestsFor('task_decomposition');
    expect(asked).toHaveLength(3);
    expect(asked[1]!.text).not.toContain('planning.maxTasks');
    expect(asked[2]!.text).toContain('the plan has 40 tasks; planning.maxTasks is 30');
    const status = await handle.query(statusQuery);
    expect(status.quality!.attempts[0]!.structure).toContain('re-plan refused (the plan has 40 tasks; planning.maxTasks is 30)');
  });

  it('S3 J6 a re-decomposition that makes the plan exceed planning.maxTasks is asked again, then the task is BLOCKED with the reason', async () => {
    scriptScenario(h.fake, {
      tasks: [fileTask('a'), fileTask('b')],
      judge: (id) =>
        id === 'a'
          ? { success: false, shouldContinue: false, shouldReplan: true, reason: 'scope too large', missingRequirements: [] }
          : { success: true, shouldContinue: false, shouldReplan: false, reason: 'b is done', missingRequirements: [] },
      replacements: {
        a: [
          { id: 'a1', title: 'part 1' },
          { id: 'a2', title: 'part 2' },
          { id: 'a3', title: 'part 3' },
        ],
      },
    });
    const { handle } = await startRun({ planning: { maxTasks: 3 } });
    const result = await runOutcome(handle);

    expect(result.status).toBe('BLOCKED');
    // b plus a's three replacements = 4 tasks > 3: nothing replaced, a is BLOCKED and says why.
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([
      ['a', 'BLOCKED'],
      ['b', 'DONE'],
    ]);
    expect(result.blocked).toEqual([{ taskId: 'a', reason: expect.stringContaining('the plan has 4 tasks; planning.maxTasks is 3') }]);
    const asked = h.fake.requestsFor('task_replan');
    expect(asked).toHaveLength(2);
    expect(asked[0]!.text).not.toContain('planning.maxTasks');
    expect(asked[1]!.text).toContain('the plan has 4 tasks; planning.maxTasks is 3');
    expect(h.fake.requestsFor('worker_step').filter((r) => ['a1', 'a2', 'a3'].includes(taskIdOf(r) ?? ''))).toHaveLength(0);
  });
});

describe('X3 / X9 a reflection plan revision', () => {
  it('X3 X9 plan_revision with two additional_actions → two new tasks run, the run ends DONE; the record keeps both plans with task states', async () => {
    // The scripted worker knows the new tasks by their ids (add-1, add-2): they write b.txt and c.txt.
    scriptScenario(h.fake, {
      tasks: [fileTask('a')],
      replacements: {
        unused: [
          { id: 'add-1', title: 'write b', files: { 'b.txt': 'B' } },
          { id: 'add-2', title: 'write c', files: { 'c.txt': 'C' } },
        ],
      },
    });
    scriptDecisions(h.fake, {
      reflection: [
        {
          ...decision({ confidence: 0.9, type: 'plan_revision', issue: 'b.txt and c.txt are missing' }),
          evaluation_result: 'partial_success',
          achievement_rate: 40,
          additional_actions: ['write b.txt with the content B', 'write c.txt with the content C'],
          revision_scope: 'minor',
        },
      ],
    });
    const { handle, workspace } = await startRun();
    await expectDone(handle, [
      ['a', 'DONE'],
      ['add-1', 'DONE'],
      ['add-2', 'DONE'],
    ]);
    const workerTasks = new Set(h.fake.requestsFor('worker_step').map(taskIdOf));
    expect(workerTasks).toEqual(new Set(['a', 'add-1', 'add-2']));
    expect(readFileSync(join(workspace, 'b.txt'), 'utf8')).toBe('B');
    expect(readFileSync(join(workspace, 'c.txt'), 'utf8')).toBe('C');
    // The new tasks were planned (action sequence) and judged like any other.
    expect(h.fake.requestsFor('judge').map(taskIdOf).sort()).toEqual(['a', 'add-1', 'add-2']);

    const view = await handle.query(decisionsQuery);
    const revision = view.records.find((r) => r.replan_type === 'plan_revision')!;
    expect(revision).toMatchObject({ phase: 'reflection', executed: true, result: 'success', target_phase: 'action_sequence' });
    expect(revision.plan_before!.tasks).toEqual([{ id: 'a', title: 'write a', state: 'DONE' }]);
    expect(revision.plan_after!.tasks.map((t) => [t.id, t.title, t.state])).toEqual([
      ['a', 'write a', 'DONE'],
      ['add-1', 'write b.txt with the content B', 'READY'],
      ['add-2', 'write c.txt with the content C', 'READY'],
    ]);
    expect(revision.plan_before!.goal).toBeTruthy();
    // status carries the recent records too, with their plans.
    const status = await handle.query(statusQuery);
    expect(status.recentDecisions?.find((r) => r.replan_id === revision.replan_id)?.plan_after?.tasks).toHaveLength(3);
  });
});

describe('X3 X11 which tasks a jump reopens (applyJump)', () => {
  it('X3 X11 a retry decided after reflection runs the BLOCKED task again (completed work kept) and the run ends DONE', async () => {
    scriptScenario(h.fake, {
      tasks: [fileTask('a'), fileTask('b')],
      judge: (id, n) =>
        id === 'b' && n === 1
          ? { success: false, shouldContinue: false, shouldReplan: false, reason: 'b.txt is wrong', missingRequirements: [] }
          : { success: true, shouldContinue: false, shouldReplan: false, reason: `${id} is done`, missingRequirements: [] },
    });
    scriptDecisions(h.fake, { reflection: [decision({ confidence: 0.9, type: 'retry', issue: 'task b failed' })] });
    const { handle } = await startRun();
    await expectDone(handle, [
      ['a', 'DONE'],
      ['b', 'DONE'],
    ]);
    // a was kept (one worker run), b ran twice.
    const judged = h.fake.requestsFor('judge').map(taskIdOf);
    expect(judged.filter((id) => id === 'a')).toHaveLength(1);
    expect(judged.filter((id) => id === 'b')).toHaveLength(2);
    const retry = (await handle.query(decisionsQuery)).records.find((r) => r.replan_type === 'retry')!;
    expect(retry.plan_before!.tasks.map((t) => `${t.id}:${t.state}`)).toEqual(['a:DONE', 'b:BLOCKED']);
    expect(retry.plan_after!.tasks.map((t) => `${t.id}:${t.state}`)).toEqual(['a:DONE', 'b:DONE']);
  });
});
