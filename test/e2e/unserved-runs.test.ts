// Issue 23 (O5) through the real `replanner` CLI against the dev server: a run started with a
// bare `client.workflow.start` on a task queue no worker polls, and runs Temporal itself
// terminated. `status`, `decisions` and `watch` say which queue and how to start its worker (exit 3),
// and a terminated run shows its final state with the reason, never the SDK's query error.
import { randomUUID } from 'node:crypto';
import type { RunStatus } from '../../src/workflows/messages';
import { cli } from '../support/cli';
import { uniqueId, until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForCli((x) => (h = x));

/** What a user of @temporalio/client writes with no Replanner library: the type by name, no memo. */
async function bareStart(queue: string): Promise<string> {
  const runId = uniqueId('bare');
  await h.client.workflow.start('RunWorkflow', {
    taskQueue: queue,
    workflowId: `run-${runId}`,
    args: [{ runId, instruction: 'write one file', workspace: h.workspace() }],
  });
  return runId;
}

describe('O5 a run no worker serves', () => {
  it('O5 status, decisions and watch of a run on a queue nobody polls name the queue and how to start its worker (exit 3), at once', async () => {
    const queue = `nobody-${randomUUID().slice(0, 8)}`;
    const runId = await bareStart(queue);
    const began = Date.now();
    const status = await cli('status', runId);
    expect(Date.now() - began).toBeLessThan(4000); // no 5 s query wait: the queue has no poller
    expect(status.code).toBe(3);
    expect(status.err).toContain(`no worker polls its task queue "${queue}"`);
    expect(status.err).toContain(`REPLANNER_TASK_QUEUE=${queue}`);
    expect(status.err).toContain('npx replanner worker');
    expect(status.err).not.toContain('Failed to query');

    const decisions = await cli('decisions', runId, '--json');
    expect(decisions.code).toBe(3);
    expect(decisions.err).toContain(`task queue "${queue}"`);
    const watch = await cli('watch', runId, '--json');
    expect(watch.code).toBe(3);
    expect(watch.err).toContain(`REPLANNER_TASK_QUEUE=${queue}`);

    // Terminated while nobody served it: its final state, with the reason, and no worker needed.
    await h.client.workflow.getHandle(`run-${runId}`).terminate('started on the wrong queue');
    const after = await cli('status', runId, '--json');
    expect(after.code).toBe(0);
    expect(JSON.parse(after.out) as RunStatus).toMatchObject({ runId, status: 'TERMINATED', phase: 'finished' });
    expect((JSON.parse(after.out) as RunStatus).error).toContain('started on the wrong queue');
  });

  it('O5 a run on the caller’s own queue with no worker says to start it from this shell', async () => {
    const queue = `mine-${randomUUID().slice(0, 8)}`;
    const runId = await bareStart(queue);
    const saved = process.env.REPLANNER_TASK_QUEUE;
    process.env.REPLANNER_TASK_QUEUE = queue;
    try {
      const status = await cli('status', runId);
      expect(status.code).toBe(3);
      expect(status.err).toContain('start its worker from this shell: npx replanner worker');
    } finally {
      process.env.REPLANNER_TASK_QUEUE = saved;
      await h.client.workflow.getHandle(`run-${runId}`).terminate('test over');
    }
  });
});

describe('O5 a run Temporal itself ended', () => {
  it('O5 a terminated run: status, decisions and watch show TERMINATED with the reason, not "Failed to query Workflow"', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'slow', title: 'slow', command: ['node', '-e', 'setTimeout(() => {}, 20000)'] }] });
    const id = uniqueId('term');
    expect((await cli('run', 'be slow', '--workspace', h.workspace(), '--id', id)).code).toBe(0);
    await until('the run to reach execution', async () => {
      const s = JSON.parse((await cli('status', id, '--json')).out) as RunStatus;
      return s.phase === 'execution' ? s : undefined;
    });
    await h.client.workflow.getHandle(`run-${id}`).terminate('operator stopped a stuck run');

    const text = await cli('status', id);
    expect(text.code).toBe(0);
    expect(text.out).toContain(`Run ${id}: TERMINATED`);
    expect(text.out).toContain('operator stopped a stuck run');
    expect(text.err).not.toContain('Failed to query');
    const json = JSON.parse((await cli('status', id, '--json')).out) as RunStatus;
    expect(json).toMatchObject({ status: 'TERMINATED', phase: 'finished' });
    // What it recorded before (its goal, its tasks) is kept beside the final state.
    expect(json.goal).toBeDefined();
    expect(json.tasks.length).toBeGreaterThan(0);

    const decisions = await cli('decisions', id);
    expect(decisions.code).toBe(0);
    const watch = await cli('watch', id);
    expect(watch.code).toBe(1);
    expect(watch.out).toContain(`Run ${id}: TERMINATED`);
    // Commands that act on it say how it ended (exit 1).
    for (const argv of [
      ['pause', id],
      ['resume', id],
      ['cancel', id],
      ['answer', id, 'q1', 'JSON'],
    ]) {
      const r = await cli(...argv);
      expect([argv[0], r.code, r.err]).toEqual([argv[0], 1, expect.stringContaining('TERMINATED')]);
    }
  });
});
