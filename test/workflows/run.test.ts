// Issue 3: the whole run on the real dev server with the scripted LLM.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { statusQuery } from '../../src/workflows/messages';
import { FAST, failureOf, runOutcome, uniqueId, type Harness } from '../support/harness';
import { expectDone } from '../support/expectations';
import { harnessForSuite } from '../support/suite-hooks';
import { nth } from '../support/lists';
import { scriptScenario, fileTask } from '../support/scenario';
import { saveHistories } from '../support/histories';
import { workspaceLockId } from '../../src/client/workspace-lock';
import { hostSettingsFromEnv } from '../../src/host-settings';

let h: Harness;
harnessForSuite((started) => (h = started));

// Workspace affinity: these runs name their host (the harness worker's), as the CLI's runs do, so
// the recorded histories replay the host-queue path too.
function startRun(workspace: string, instruction = 'build the four parts') {
  const runId = uniqueId('run');
  return h.client.workflow.start(RunWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction, workspace, options: FAST, host: hostSettingsFromEnv().host }],
  });
}

describe('RunWorkflow', () => {
  it('X1 J2 a 4-task graph with two independent branches runs them concurrently; dependents wait; DONE; reflection once', async () => {
    // a → b, c → d: branches a→b and c→d are independent.
    scriptScenario(h.fake, {
      workerDelayMs: 300,
      tasks: [
        fileTask('a'),
        { id: 'b', title: 'write b', dependencies: ['a'], files: { 'b.txt': 'B' }, command: ['node', '-e', "require('fs').readFileSync('a.txt')"] },
        fileTask('c'),
        fileTask('d', ['c']),
      ],
    });
    const ws = h.workspace();
    const handle = await startRun(ws);
    const result = await expectDone(handle, [
      ['a', 'DONE'],
      ['b', 'DONE'],
      ['c', 'DONE'],
      ['d', 'DONE'],
    ]);
    for (const f of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) expect(fs.existsSync(path.join(ws, f))).toBe(true);
    expect(h.fake.maxConcurrency('worker_step')).toBeGreaterThanOrEqual(2);
    // Dependents wait: b's first worker request starts after a's judge answered.
    const firstWorker = (id: string) => h.fake.requestsFor('worker_step').find((r) => r.text.includes(`TASK ${id}:`))!;
    const judgeOf = (id: string) => h.fake.requestsFor('judge').find((r) => r.text.includes(`TASK ${id}:`))!;
    expect(firstWorker('b').startedAt).toBeGreaterThanOrEqual(judgeOf('a').finishedAt!);
    expect(firstWorker('d').startedAt).toBeGreaterThanOrEqual(judgeOf('c').finishedAt!);
    expect(h.fake.requestsFor('reflection')).toHaveLength(1);
    expect(result.usage.calls).toBeGreaterThan(10);

    const status = await handle.query(statusQuery);
    expect(status.phase).toBe('finished');
    expect(status.reflection?.evaluation_result).toBe('success');
    const desc = await handle.describe();
    const id = handle.workflowId;
    await saveHistories(h.client, [
      id,
      `${id}.goal_understanding-1`,
      `${id}.task_decomposition-1`,
      `${id}.action_sequence-1`,
      `${id}.execution-1`,
      `${id}.task-b`,
      `${id}.reflection-1`,
      await workspaceLockId(ws),
    ]);
    expect(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['ReplannerStatus', 'DONE'],
        ['ReplannerPhase', 'finished'],
      ]),
    );
  });

  it('J2 a BLOCKED task blocks its dependents and the run reports which and why', async () => {
    scriptScenario(h.fake, {
      tasks: [fileTask('a'), fileTask('b', ['a']), fileTask('c')],
      judge: (id) =>
        id === 'a'
          ? {
              success: false,
              shouldContinue: false,
              shouldReplan: false,
              reason: 'a needs credentials nobody has',
              missingRequirements: ['API credentials'],
            }
          : { success: true, reason: 'ok', missingRequirements: [] },
    });
    const handle = await startRun(h.workspace());
    const result = await runOutcome(handle);
    expect(result.status).toBe('BLOCKED');
    // Not a green "Completed" in the Web UI list: a failed workflow of type RunBlocked.
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(await failureOf(handle)).toMatch(/ended BLOCKED/);
    expect(Object.fromEntries(result.tasks.map((t) => [t.id, t.state]))).toEqual({ a: 'BLOCKED', b: 'BLOCKED', c: 'DONE' });
    expect(result.blocked).toEqual(
      expect.arrayContaining([
        { taskId: 'a', reason: 'a needs credentials nobody has' },
        { taskId: 'b', reason: 'blocked by a' },
      ]),
    );
    expect(h.fake.requestsFor('worker_step').some((r) => r.text.includes('TASK b:'))).toBe(false);
  });

  it('J2 NEEDS_CONTINUATION runs the worker again with the judge feedback', async () => {
    scriptScenario(h.fake, {
      tasks: [fileTask('a')],
      judge: (_id, n) =>
        n === 1
          ? { success: false, shouldContinue: true, shouldReplan: false, reason: 'tests missing', missingRequirements: ['a test for a.txt'] }
          : { success: true, reason: 'ok', missingRequirements: [] },
    });
    const result = await (await startRun(h.workspace())).result();
    expect(result.status).toBe('DONE');
    const second = h.fake.requestsFor('worker_step').filter((r) => r.text.includes('JUDGE FEEDBACK'));
    expect(second.length).toBeGreaterThan(0);
    expect(nth(second, 0).text).toContain('a test for a.txt');
  });

  it('an invalid task graph (cycle) is sent back to the planner and fails clearly when it stays invalid', async () => {
    scriptScenario(h.fake, { tasks: [] });
    h.fake.always('task_decomposition', {
      json: {
        tasks: [
          { id: 'x', title: 'x', acceptance_criteria: ['x'], dependencies: ['y'] },
          { id: 'y', title: 'y', acceptance_criteria: ['y'], dependencies: ['x'] },
        ],
      },
    });
    const handle = await startRun(h.workspace());
    const err = await handle.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const status = await handle.query(statusQuery);
    expect(status.status).toBe('FAILED');
    expect(status.error).toContain('dependency cycle: x -> y -> x');
    expect(h.fake.requestsFor('task_decomposition')).toHaveLength(3);
    expect(nth(h.fake.requestsFor('task_decomposition'), 1).text).toContain('Your previous task graph was invalid');
  });
});
