// Issue 12, O3 (with B2): the budget lives in workflow state. A run paused by its budget keeps
// its ledger, its question and its pause through a worker SIGKILL and a server restart; the answer
// then continues it to DONE without asking any finished LLM call again.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { answerClarificationUpdate, statusQuery, type RunStatus } from '../../src/workflows/messages';
import { freePort, OwnDevServer } from '../support/dev-server';
import { FakeOpenAI } from '../support/fake-openai';
import { FAST, runOutcome, uniqueId, sleep, until } from '../support/harness';
import { fourFileTasks, scriptScenario, taskIdOf, workerStepsSoFar } from '../support/scenario';
import { killAllWorkers, killWorker, startWorkerProcess } from '../support/worker-proc';

afterAll(async () => killAllWorkers());

/** Four files each: four tool-call steps and a summary step = 5 worker steps per task. */
const TASKS = fourFileTasks(['a', 'b']);

describe('O3 B2 the budget survives crashes', () => {
  it('O3 B2 a run paused by its budget stays paused with the same ledger and question through worker SIGKILL and server restart; the raise then ends it DONE, no step asked twice', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-budget-'));
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-ws-'));
    const server = new OwnDevServer(path.join(dir, 'temporal.db'), await freePort());
    await server.start();
    const fake = await FakeOpenAI.start();
    scriptScenario(fake, { tasks: TASKS, workerDelayMs: 100 });
    fake.usage('*', { prompt: 150, completion: 50 });
    const taskQueue = uniqueId('budget');
    const workerParams = { address: server.address, taskQueue, llmBaseURL: fake.baseURL };
    let worker = await startWorkerProcess(workerParams);
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });
    try {
      const runId = uniqueId('budget');
      const handle = await client.workflow.start(RunWorkflow, {
        taskQueue,
        workflowId: runWorkflowId(runId),
        args: [
          {
            runId,
            instruction: 'write the files of a and b',
            workspace: ws,
            options: { ...FAST, maxParallelTasks: 2 },
            config: { budget: { maxTokens: 3000 } },
          },
        ],
      });
      const paused = await until(
        'the budget pause',
        async () => {
          const s = await handle.query(statusQuery);
          return s.status === 'PAUSED' && s.pause?.kind === 'budget' ? s : undefined;
        },
        90_000,
      );
      await until(
        'the calls in flight to finish',
        async () => {
          const last = Math.max(...fake.requests.map((r) => r.startedAt));
          return fake.requests.every((r) => r.finishedAt !== undefined) && Date.now() - last > 2000 ? true : undefined;
        },
        30_000,
      );
      const before: RunStatus = await handle.query(statusQuery);
      const seen = fake.requests.length;
      expect(fake.tokensUsed()).toBeLessThanOrEqual(3000 + 200);

      await killWorker(worker);
      await server.stop('SIGTERM');
      await sleep(500);
      await server.start();
      worker = await startWorkerProcess(workerParams);
      const after = await until('status after the restart', async () => handle.query(statusQuery), 60_000);
      expect(after.status).toBe('PAUSED');
      expect(after.pause).toEqual(paused.pause);
      expect(after.budget).toEqual(before.budget);
      expect(after.questions).toEqual(before.questions);
      expect(after.usage).toEqual(before.usage);
      await sleep(2000);
      expect(fake.requests.length).toBe(seen);

      const q = after.questions!.find((x) => x.kind === 'budget')!;
      await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: q.id, answer: 'raise 20000' }] });
      const result = await runOutcome(handle);
      expect(result.status).toBe('DONE');
      for (const t of ['a', 'b']) {
        for (let step = 1; step <= 5; step++) {
          const ok = fake.requestsFor('worker_step').filter((r) => taskIdOf(r) === t && workerStepsSoFar(r) === step - 1 && r.status === 200);
          expect({ t, step, ok: ok.length }).toEqual({ t, step, ok: 1 });
        }
      }
    } finally {
      await killAllWorkers();
      await connection.close();
      await fake.stop();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
