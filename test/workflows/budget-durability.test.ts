// Issue 12, O3 (with B2): the budget lives in workflow state. A run paused by its budget keeps
// its ledger, its question and its pause through a worker SIGKILL and a server restart; the answer
// then continues it to DONE without asking any finished LLM call again.
import { answerClarificationUpdate, statusQuery, type RunStatus } from '../../src/workflows/messages';
import { FAST, runOutcome, sleep, until } from '../support/harness';
import { startRun } from '../support/start-run';
import { fourFileTasks, scriptScenario, taskIdOf, workerStepsSoFar } from '../support/scenario';
import { killAllWorkers } from '../support/worker-proc';
import { startOwnServerRun } from '../support/own-server-run';
import { pausedByBudget } from '../support/run-waits';

afterAll(async () => killAllWorkers());

/** Four files each: four tool-call steps and a summary step = 5 worker steps per task. */
const TASKS = fourFileTasks(['a', 'b']);

describe('O3 B2 the budget survives crashes', () => {
  it('O3 B2 a run paused by its budget stays paused with the same ledger and question through worker SIGKILL and server restart; the raise then ends it DONE, no step asked twice', async () => {
    const w = await startOwnServerRun('budget');
    const { fake } = w;
    scriptScenario(fake, { tasks: TASKS, workerDelayMs: 100 });
    fake.usage('*', { prompt: 150, completion: 50 });
    try {
      const { handle } = await startRun(
        w,
        {
          instruction: 'write the files of a and b',
          workspace: w.workspace,
          options: { ...FAST, maxParallelTasks: 2 },
          config: { budget: { maxTokens: 3000 } },
        },
        'budget',
      );
      const paused = await pausedByBudget(handle, fake);
      const before: RunStatus = await handle.query(statusQuery);
      const seen = fake.requests.length;
      expect(fake.tokensUsed()).toBeLessThanOrEqual(3000 + 200);

      await w.crashAndRestart();
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
      await w.stop();
    }
  });
});
