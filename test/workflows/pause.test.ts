// Issue 12, O1: pause and resume. Two tasks whose workers take 5 steps each run in parallel;
// the run is paused after step 2: the calls in flight finish, then no LLM request arrives while
// paused. The worker is SIGKILLed and the server restarted while paused: still PAUSED with the
// same counters and decision log. Resumed (with the temporal CLI): DONE, no step requested twice.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { runWorkflowId } from '../../src/workflows/run';
import { decisionsQuery, pauseUpdate, statusQuery, type PauseAck } from '../../src/workflows/messages';
import { STATUS_KEY } from '../../src/workflows/search-attributes';
import { FAST, sleep, until } from '../support/harness';
import { startRun } from '../support/start-run';
import { fourFileTasks, scriptScenario, taskIdOf, workerStepsSoFar } from '../support/scenario';
import { killAllWorkers } from '../support/worker-proc';
import { startOwnServerRun } from '../support/own-server-run';
import { untilCallsSettled } from '../support/run-waits';

const exec = promisify(execFile);

afterAll(async () => killAllWorkers());

/** Four files each: four tool-call steps and a summary step = 5 worker steps per task. */
const TASKS = fourFileTasks(['a', 'b']);

describe('O1 pause and resume', () => {
  it('O1 pause after step 2 of two parallel 5-step tasks: nothing new starts while paused, PAUSED survives worker SIGKILL and server restart, resume ends DONE without repeating a step', async () => {
    const w = await startOwnServerRun('pause');
    const { fake } = w;
    scriptScenario(fake, { tasks: TASKS, workerDelayMs: 700 });
    const cli = (...args: string[]) =>
      exec(process.env.TEMPORAL_CLI_PATH!, [...args, '--address', w.server.address, '-o', 'json'], { maxBuffer: 8 * 1024 * 1024 });
    try {
      const { runId, handle } = await startRun(
        w,
        { instruction: 'write the files of a and b', workspace: w.workspace, options: { ...FAST, maxParallelTasks: 2 } },
        'pause',
      );
      const stepRequests = (task: string, step: number) =>
        fake.requestsFor('worker_step').filter((r) => taskIdOf(r) === task && workerStepsSoFar(r) === step - 1);
      // Step 2 of both tasks has been asked for: pause.
      await until('step 2 of both tasks', async () => (stepRequests('a', 2).length && stepRequests('b', 2).length ? true : undefined));
      const ack: PauseAck = await handle.executeUpdate(pauseUpdate, { args: [{ reason: 'reviewing the first files' }] });
      expect(ack).toMatchObject({ runId, status: 'PAUSED', changed: true, pause: { by: 'user', kind: 'user', reason: 'reviewing the first files' } });

      // The calls in flight finish (and the pause reaches every task); then nothing more arrives.
      await untilCallsSettled(fake);
      const seen = fake.requests.length;
      await sleep(4000);
      expect(fake.requests.length).toBe(seen);
      const stepsAtPause = fake.successfulFor('worker_step').length;
      // At most the step each task had in flight when the pause reached it (step 3) was answered.
      expect(stepsAtPause).toBeLessThanOrEqual(6);

      const paused = await handle.query(statusQuery);
      expect(paused.status).toBe('PAUSED');
      expect(paused.pause).toMatchObject({ by: 'user', reason: 'reviewing the first files', since: ack.pause!.since });
      await until('ReplannerStatus=PAUSED', async () =>
        (await handle.describe()).typedSearchAttributes.get(STATUS_KEY) === 'PAUSED' ? true : undefined,
      );
      const listed = JSON.parse((await cli('workflow', 'list', '--query', `ReplannerStatus='PAUSED'`)).stdout || '[]') as {
        execution: { workflowId: string };
      }[];
      expect(listed.map((w) => w.execution.workflowId)).toContain(runWorkflowId(runId));
      // Pausing again is acknowledged and keeps the first pause.
      const again = await handle.executeUpdate(pauseUpdate, { args: [{ reason: 'again' }] });
      expect(again).toMatchObject({ status: 'PAUSED', changed: false, pause: { reason: 'reviewing the first files' } });
      const decisionsBefore = JSON.stringify(await handle.query(decisionsQuery));
      const tasksBefore = JSON.stringify(paused.tasks);

      // Worker SIGKILL and server restart while paused.
      await w.crashAndRestart();
      const after = await until('status after the restart', async () => handle.query(statusQuery), 60_000);
      expect(after.status).toBe('PAUSED');
      expect(after.pause).toEqual(paused.pause);
      expect(after.replans).toEqual(paused.replans);
      expect(after.usage).toEqual(paused.usage);
      expect(JSON.stringify(after.tasks)).toBe(tasksBefore);
      expect(JSON.stringify(await handle.query(decisionsQuery))).toBe(decisionsBefore);
      await sleep(2000);
      expect(fake.requests.length).toBe(seen);

      // Resume with the temporal CLI.
      const resumed = JSON.parse((await cli('workflow', 'update', 'execute', '-w', runWorkflowId(runId), '--name', 'resume')).stdout) as {
        result: PauseAck;
      };
      expect(resumed.result).toMatchObject({ status: 'RUNNING', changed: true });
      const result = await handle.result();
      expect(result.status).toBe('DONE');
      for (const t of TASKS) for (const f of Object.keys(t.files!)) expect(fs.existsSync(path.join(w.workspace, f))).toBe(true);
      // Every step of every task was answered exactly once: none before the pause was asked again.
      for (const t of ['a', 'b']) {
        for (let step = 1; step <= 5; step++) {
          expect({ t, step, ok: stepRequests(t, step).filter((r) => r.status === 200).length }).toEqual({ t, step, ok: 1 });
        }
      }
      expect((await handle.describe()).typedSearchAttributes.get(STATUS_KEY)).toBe('DONE');
    } finally {
      await w.stop();
    }
  });
});
