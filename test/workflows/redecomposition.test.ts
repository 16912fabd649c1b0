// J5–J8 / C2: a task the judge sends back is re-decomposed by the planner (task_replan) on the real
// dev server with the scripted LLM; its replacements run, its dependents wait for them, and the
// limits and a failing planner end in BLOCKED, never FAILED.
import { RunWorkflow, runWorkflowId, type RunInput } from '../../src/workflows/run';
import { statusQuery } from '../../src/workflows/messages';
import type { TaskRecord } from '../../src/domain/types';
import { FAST, uniqueId, runOutcome, type Harness } from '../support/harness';
import { harnessForSuite } from '../support/suite-hooks';
import { scriptScenario, taskIdOf, type ScenarioTask, fileTask } from '../support/scenario';
import { nth } from '../support/lists';

let h: Harness;
harnessForSuite((started) => (h = started));

const INSTRUCTION = 'write the files a, b and c, each verified';

function startRun(extra: Partial<RunInput> = {}) {
  const runId = uniqueId('redecomp');
  return h.client.workflow.start(RunWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: INSTRUCTION, workspace: h.workspace(), options: FAST, ...extra }],
  });
}

const TASKS: ScenarioTask[] = [fileTask('a'), fileTask('b', ['a']), fileTask('c')];

const SCOPE_TOO_LARGE = {
  success: false,
  shouldContinue: false,
  shouldReplan: true,
  reason: 'scope too large',
  missingRequirements: ['x'],
};
const OK = (id: string) => ({ success: true, shouldContinue: false, shouldReplan: false, reason: `${id} is done`, missingRequirements: [] });

/** The run's task by id; fails the test clearly when there is no such task. */
const byId =
  (tasks: TaskRecord[]) =>
  (id: string): TaskRecord => {
    const task = tasks.find((t) => t.id === id);
    if (!task) throw new Error(`no task ${id} in ${tasks.map((t) => t.id).join(', ')}`);
    return task;
  };
const states = (tasks: TaskRecord[]) => Object.fromEntries(tasks.map((t) => [t.id, t.state]));

describe('task re-decomposition (J6, J7)', () => {
  it('J5 J6 judge shouldReplan → 3 replacement tasks run, dependents wait', async () => {
    scriptScenario(h.fake, {
      tasks: TASKS,
      judge: (id, n) => (id === 'a' && n === 1 ? SCOPE_TOO_LARGE : OK(id)),
      replacements: {
        a: [
          { id: 'a1', title: 'write a part 1', files: { 'a1.txt': '1' } },
          { id: 'a2', title: 'write a part 2', dependencies: ['a1'], files: { 'a2.txt': '2' } },
          { id: 'a3', title: 'write a part 3', files: { 'a3.txt': '3' } },
        ],
      },
    });
    const handle = await startRun();
    const result = await runOutcome(handle);

    expect(result.status).toBe('DONE');
    expect(states(result.tasks)).toEqual({ a: 'REPLACED_BY_REPLAN', a1: 'DONE', a2: 'DONE', a3: 'DONE', b: 'DONE', c: 'DONE' });
    const t = byId(result.tasks);
    expect(t('a').replanningInfo?.replacedBy).toEqual(['a1', 'a2', 'a3']);
    for (const id of ['a1', 'a2', 'a3']) {
      expect(t(id).replanningInfo).toEqual(expect.objectContaining({ iteration: 1, originalTaskId: 'a' }));
      expect(t(id).replanningInfo?.replanReason).toContain('scope too large');
    }
    // J6 rewiring: b waited for every replacement of a.
    expect(t('b').dependencies).toEqual(expect.arrayContaining(['a1', 'a2', 'a3']));
    const judgeOf = (id: string) => h.fake.requestsFor('judge').filter((r) => taskIdOf(r) === id);
    const firstWorkerOfB = h.fake.requestsFor('worker_step').find((r) => taskIdOf(r) === 'b');
    expect(firstWorkerOfB).toBeDefined();
    for (const id of ['a1', 'a2', 'a3']) {
      const judged = judgeOf(id);
      expect(judged).toHaveLength(1);
      expect(firstWorkerOfB!.startedAt).toBeGreaterThanOrEqual(nth(judged, 0).finishedAt!);
    }
    // a itself ran once, and its replacements did not run the original again.
    expect(judgeOf('a')).toHaveLength(1);

    // J6 / C2: the planner was asked once, with the instruction, Coverage, the judge's reason and "3-5".
    const replans = h.fake.requestsFor('task_replan');
    expect(replans).toHaveLength(1);
    expect(taskIdOf(nth(replans, 0))).toBe('a');
    for (const text of [INSTRUCTION, 'Coverage', 'scope too large', '3-5']) expect(nth(replans, 0).text).toContain(text);
    expect(nth(replans, 0).text).toContain('- x'); // the missing requirement

    const status = await handle.query(statusQuery);
    expect(status.status).toBe('DONE');
    expect(states(status.tasks)).toEqual(states(result.tasks));
  });

  it('J7 re-decomposition past maxIterations ends BLOCKED', async () => {
    scriptScenario(h.fake, {
      tasks: TASKS,
      judge: (id, n) => ((id === 'a' || id === 'a2') && n === 1 ? SCOPE_TOO_LARGE : OK(id)),
      replacements: {
        a: [
          { id: 'a1', title: 'write a part 1', files: { 'a1.txt': '1' } },
          { id: 'a2', title: 'write a part 2', dependencies: ['a1'], files: { 'a2.txt': '2' } },
          { id: 'a3', title: 'write a part 3', dependencies: ['a2'], files: { 'a3.txt': '3' } },
        ],
        // Would be used if the limit were not enforced.
        a2: [
          { id: 'a2x', title: 'a2 part x', files: { 'x.txt': 'x' } },
          { id: 'a2y', title: 'a2 part y', files: { 'y.txt': 'y' } },
          { id: 'a2z', title: 'a2 part z', files: { 'z.txt': 'z' } },
        ],
      },
    });
    const result = await runOutcome(await startRun({ config: { task_replanning: { maxIterations: 1 } } }));

    expect(result.status).toBe('BLOCKED');
    expect(states(result.tasks)).toEqual({
      a: 'REPLACED_BY_REPLAN',
      a1: 'DONE',
      a2: 'BLOCKED',
      a3: 'BLOCKED',
      b: 'BLOCKED',
      c: 'DONE',
    });
    const t = byId(result.tasks);
    expect(t('a2').summary).toContain('task_replanning.maxIterations');
    expect(t('a2').summary).toContain('scope too large');
    expect(t('a3').summary).toBe('blocked by a2');
    expect(t('b').summary).toBe('blocked by a2');
    expect(result.blocked).toEqual(
      expect.arrayContaining([
        { taskId: 'a2', reason: t('a2').summary },
        { taskId: 'a3', reason: 'blocked by a2' },
        { taskId: 'b', reason: 'blocked by a2' },
      ]),
    );
    expect(h.fake.requestsFor('task_replan')).toHaveLength(1);
    expect(h.fake.requestsFor('worker_step').some((r) => ['a3', 'b'].includes(taskIdOf(r) ?? ''))).toBe(false);
  });

  it.each([
    // Schema-invalid every time (tasks must not be empty): retried by Temporal, then the activity fails.
    ['a schema-invalid reply', { json: { tasks: [] } }, FAST.llmMaxAttempts!, 'does not match the task_replan schema'],
    // A rejected request (400) is not retried: M1 asks once in each form of the fallback ladder
    // (json_schema, json_object, prompt-only), then the activity fails.
    ['a rejected request (400)', { status: 400, message: 'planner says no' }, 3, 'planner says no'],
  ] as const)('J7 a failing planner blocks the task: %s', async (_what, reply, requests, cause) => {
    scriptScenario(h.fake, {
      tasks: TASKS,
      judge: (id, n) => (id === 'a' && n === 1 ? SCOPE_TOO_LARGE : OK(id)),
    });
    h.fake.always('task_replan', reply);
    const handle = await startRun();
    const result = await runOutcome(handle);

    expect(result.status).toBe('BLOCKED');
    expect(states(result.tasks)).toEqual({ a: 'BLOCKED', b: 'BLOCKED', c: 'DONE' });
    const t = byId(result.tasks);
    expect(t('a').summary).toContain('re-decomposition failed');
    expect(t('a').summary).toContain(cause);
    expect(t('a').replanningInfo?.replacedBy ?? []).toEqual([]);
    expect(t('b').summary).toBe('blocked by a');
    expect(result.blocked).toEqual(expect.arrayContaining([{ taskId: 'b', reason: 'blocked by a' }]));
    expect(h.fake.requestsFor('task_replan')).toHaveLength(requests);
    expect(h.fake.requestsFor('worker_step').some((r) => taskIdOf(r) === 'b')).toBe(false);
    const status = await handle.query(statusQuery);
    expect(status.status).toBe('BLOCKED');
    expect(status.error).toBeUndefined();
  });
});
