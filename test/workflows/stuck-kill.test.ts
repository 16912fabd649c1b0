// P9 B2: the stuck detector's window is the task workflow's state. The worker process is SIGKILLed
// between the 2nd and the 3rd repeat of a failing call (the 3rd step's LLM request hangs); a new
// worker replays the task and retries the step in flight, and the detector fires at the same count
// as without the crash: at the 3rd step, with no 4th step asked of the model.
import { parseConfig } from '../../src/domain/config';
import { answerConsultationUpdate, taskStatusQuery } from '../../src/workflows/messages';
import { DEFAULT_RUN_OPTIONS } from '../../src/workflows/options';
import { TaskWorkflow } from '../../src/workflows/task';
import { helloTask, HELLO_INSTRUCTION } from '../support/stuck-task';
import { FAST, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { scriptScenario, taskIdOf, workerStepsSoFar } from '../support/scenario';
import { startWorkerProcess as startWorker } from '../support/worker-proc';

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));

const taskQueue = uniqueId('stuck-kill');
const startWorkerProcess = () => startWorker({ address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL });

describe('P9 B2 the stuck window survives a worker SIGKILL', () => {
  it('P9 B2 the worker SIGKILLed between the 2nd and 3rd repeat: the detector fires at the 3rd step all the same', async () => {
    const id = uniqueId('stuck-kill');
    scriptScenario(h.fake, {
      tasks: [{ id, title: 'write hello.txt', profile: 'COMPLEX_REASONING' }],
      judge: () => ({ success: false, shouldContinue: true, reason: 'hello.txt is missing', missingRequirements: ['hello.txt'] }),
    });
    let hung = false;
    h.fake.always('worker_step', (req) => {
      // The 3rd step (two replies in its conversation) hangs the first time it is asked.
      if (workerStepsSoFar(req) === 2 && !hung) {
        hung = true;
        return { hangMs: 120_000 };
      }
      return { toolCalls: [{ name: 'list_dir', arguments: { path: 'output.txt' } }] };
    });
    let worker = await startWorkerProcess();
    const handle = await h.client.workflow.start(TaskWorkflow, {
      taskQueue,
      workflowId: `task-${id}`,
      args: [
        {
          run: { runId: id, workspace: h.workspace(), instruction: HELLO_INSTRUCTION },
          task: helloTask(id),
          steps: ['write hello.txt'],
          // A short heartbeat timeout: the step lost with the worker is retried within seconds (O4).
          options: { ...DEFAULT_RUN_OPTIONS, ...FAST, workerHeartbeatTimeoutMs: 3000, pacemaker: parseConfig({}).pacemaker },
        },
      ],
    });
    const workerCalls = () => h.fake.requestsFor('worker_step').filter((r) => taskIdOf(r) === id);

    await until('the 3rd step to be asked', async () => (workerCalls().some((r) => workerStepsSoFar(r) === 2) ? true : undefined));
    // Two failures so far: no note yet.
    expect((await handle.query(taskStatusQuery)).stuck).toBeUndefined();
    worker.child.kill('SIGKILL');
    expect((await worker.exited).signal).toBe('SIGKILL');
    worker = await startWorkerProcess();

    const status = await until(
      'the stuck consultation on the new worker',
      async () => {
        const s = await handle.query(taskStatusQuery);
        return s.consultation && s.stuck ? s : undefined;
      },
      90_000,
    );
    expect(status.stuck).toMatchObject({ pattern: 'same_failure', iteration: 1, step: 3, times: 1, wastedSteps: 2 });
    expect(status.stuck!.note).toMatch(/^stuck: list_dir output\.txt failed \(not found\) 3 times in a row/);
    // Counted at the model server: steps 1 and 2 once, step 3 twice (lost with the worker, then retried), no 4th.
    const perStep = new Map<number, number>();
    for (const r of workerCalls()) perStep.set(workerStepsSoFar(r), (perStep.get(workerStepsSoFar(r)) ?? 0) + 1);
    expect([...perStep.entries()].sort(([a], [b]) => a - b)).toEqual([
      [0, 1],
      [1, 1],
      [2, 2],
    ]);
    await handle.executeUpdate(answerConsultationUpdate, { args: [{ choice: 'stop' }] });
    expect((await handle.result()).state).toBe('BLOCKED');
    expect(workerCalls()).toHaveLength(4);
  });
});
