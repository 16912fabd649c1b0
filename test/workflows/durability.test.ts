// Issue 3: cancellation reaches running tasks and their activities; a dev server stopped with
// SIGTERM mid-run and restarted on the same database loses nothing and repeats no finished LLM call.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { CancelledFailure } from '@temporalio/common';
import { createWorker } from '../../src/worker';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { statusQuery } from '../../src/workflows/messages';
import { FAST, uniqueId, until, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { scriptScenario, type ScenarioTask, fileTask } from '../support/scenario';
import { FakeOpenAI } from '../support/fake-openai';
import { freePort, OwnDevServer } from '../support/dev-server';

describe('cancellation', () => {
  let h: Harness;
  harnessForSuite((started) => (h = started), { keepScript: true });

  it('B3 cancelling a run cancels its running tasks and their activities; status shows CANCELLED', async () => {
    // The command ticks into a file; "killed" is seen from outside as the ticking stopping (its pid
    // would be one of the sandbox's PID namespace, meaningless here).
    const sleeper = "let n = 0; setInterval(() => require('fs').writeFileSync('ticks', String(++n)), 100)";
    scriptScenario(h.fake, {
      tasks: [
        { id: 'slow', title: 'a slow task', command: ['node', '-e', sleeper] },
        { id: 'after', title: 'after the slow one', dependencies: ['slow'], files: { 'x.txt': 'x' } },
      ],
    });
    const ws = h.workspace();
    const { runId, handle } = await startRun(h, { instruction: 'run something slow', workspace: ws, options: FAST }, 'cancel');
    const ticks = () => {
      try {
        return Number(fs.readFileSync(path.join(ws, 'ticks'), 'utf8')) || 0;
      } catch {
        return 0;
      }
    };
    await until('the command to start', async () => (ticks() > 0 ? true : undefined));

    await handle.cancel();
    const err = await handle.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(err.cause).toBeInstanceOf(CancelledFailure);

    const status = await handle.query(statusQuery);
    expect(status.status).toBe('CANCELLED');
    expect(Object.fromEntries(status.tasks.map((t) => [t.id, t.state]))).toEqual({ slow: 'CANCELLED', after: 'CANCELLED' });
    const taskWf = await h.client.workflow.getHandle(`${runWorkflowId(runId)}.task-slow`).describe();
    expect(taskWf.status.name).toBe('CANCELLED');
    // The activity stopped its command: the process is gone.
    await until(
      'the command to be killed',
      async () => {
        const before = ticks();
        await new Promise((r) => setTimeout(r, 600));
        return ticks() === before ? true : undefined;
      },
      10_000,
    );
    expect(h.fake.requestsFor('worker_step').some((r) => r.text.includes('TASK after:'))).toBe(false);
  });
});

describe('server restart', () => {
  it('B2 the dev server stopped (SIGTERM) mid-run and restarted on the same database: the run completes, no finished LLM call is made twice', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-restart-'));
    const server = new OwnDevServer(path.join(dir, 'temporal.db'), await freePort());
    await server.start();
    const fake = await FakeOpenAI.start();
    const tasks: ScenarioTask[] = [{ id: 'a', title: 'write a', files: { 'a.txt': 'A', 'a2.txt': 'A2' } }, fileTask('b', ['a']), fileTask('c')];
    scriptScenario(fake, { tasks, workerDelayMs: 1500 });
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const taskQueue = uniqueId('restart');
    const worker = await createWorker({
      connection: nativeConnection,
      taskQueue,
      llm: { apiKey: 'k', baseURL: fake.baseURL, model: 'm', timeoutMs: 20_000 },
      workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! },
    });
    const workerRun = worker.run();
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-ws-'));
    const runId = uniqueId('restart');
    try {
      const connection = await Connection.connect({ address: server.address });
      const client = new Client({ connection });
      await client.workflow.start(RunWorkflow, {
        taskQueue,
        workflowId: runWorkflowId(runId),
        args: [{ runId, instruction: 'write the files', workspace: ws, options: FAST }],
      });
      // Stop the server while worker LLM calls are in flight.
      await until('a worker step in flight', async () => (fake.requestsFor('worker_step').some((r) => !r.finishedAt) ? true : undefined));
      await server.stop('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      await server.start();

      const result = await client.workflow.getHandle(runWorkflowId(runId)).result();
      expect(result.status).toBe('DONE');
      for (const f of ['a.txt', 'a2.txt', 'b.txt', 'c.txt']) expect(fs.existsSync(path.join(ws, f))).toBe(true);
      const ok = (p: string) => fake.successfulFor(p).length;
      expect(ok('goal_understanding')).toBe(1);
      expect(ok('task_decomposition')).toBe(1);
      expect(ok('action_sequence')).toBe(1);
      expect(ok('judge')).toBe(3);
      expect(ok('reflection')).toBe(1);
      // One step per file plus the final summary, per task: a 3, b 2, c 2.
      expect(ok('worker_step')).toBe(7);
      await connection.close();
    } finally {
      worker.shutdown();
      await workerRun;
      await nativeConnection.close();
      await fake.stop();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
