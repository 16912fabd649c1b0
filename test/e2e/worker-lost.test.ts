// V4 / V5: a run's worker SIGKILLed while a task runs, with `replanner watch` open in a process of
// its own, as a user has it. `status` keeps the task RUNNING, marked "worker lost, retrying" (it
// read the memo, which is written when a task ends, and showed the task READY); the open watch says
// that no worker has picked up the run's work and starts one as `run` does; the lost step is tried
// again on it and the run ends DONE, the task never shown READY on the way.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { isOurWorker, readRecords } from '../../src/client/workers';
import { cli } from '../support/cli';
import { statusOf } from '../support/cli-runs';
import { FakeOpenAI } from '../support/fake-openai';
import { temporalAddress, uniqueId, until } from '../support/harness';
import { tempDirsForSuite } from '../support/suite-hooks';
import { scriptScenario, workerReply, workerStepsSoFar, type ScenarioTask } from '../support/scenario';
import { killAllWorkers, killWorker, startWorkerProcess } from '../support/worker-proc';

const root = path.resolve(__dirname, '../..');
const saved = { ...process.env };
let fake: FakeOpenAI;

// Registered first, so it runs before the temporary folders (the workers' records) are removed.
afterAll(async () => {
  for (const r of readRecords()) if (isOurWorker(r.pid)) process.kill(r.pid, 'SIGKILL');
  await killAllWorkers();
  process.env = saved;
  await fake?.stop();
});
const tmp = tempDirsForSuite();

beforeAll(async () => {
  fake = await FakeOpenAI.start();
  // The CLI's shell: routed to the test's queue, the worker it starts with the prebuilt bundle and
  // its records in a throwaway directory; an open watch tells of a silent queue after 3 s.
  Object.assign(process.env, {
    REPLANNER_TASK_QUEUE: uniqueId('lost'),
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'test-key',
    REPLANNER_MODEL: 'fake-model',
    REPLANNER_WORKERS_DIR: tmp('replanner-workers-'),
    REPLANNER_WORKFLOW_BUNDLE: process.env.REPLANNER_TEST_BUNDLE,
    REPLANNER_LOG_LEVEL: 'WARN',
    REPLANNER_NO_WORKER_NOTICE: '3s',
  });
});

it('V4 V5 a worker SIGKILLed mid-task: status keeps the task RUNNING marked worker lost; the open watch says no worker picks up the work, starts one, and the run ends DONE', async () => {
  const task: ScenarioTask = { id: 'slow', title: 'write slow', files: { 'slow.txt': 'S' } };
  scriptScenario(fake, { tasks: [task] });
  // The task's first worker request never gets its reply: the worker dies waiting for it.
  let hung = false;
  fake.always('worker_step', (req) => {
    const reply = workerReply(task, workerStepsSoFar(req));
    if (hung) return reply;
    hung = true;
    return { hangMs: 10 * 60_000, then: reply };
  });
  const worker = await startWorkerProcess({ address: temporalAddress(), taskQueue: process.env.REPLANNER_TASK_QUEUE!, llmBaseURL: fake.baseURL });
  const id = uniqueId('lost');
  const started = await cli('run', 'write slow', '--workspace', tmp('replanner-ws-'), '--id', id);
  expect([started.code, started.err]).toEqual([0, '']);

  // `replanner watch` in a process of its own, as a user has it open.
  const watch = spawn(process.execPath, ['-r', './test/support/ts-register.js', 'test/support/cli-main.ts', 'watch', id], {
    cwd: root,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  watch.stdout.on('data', (d: Buffer) => (out += d.toString()));
  watch.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => watch.on('exit', (c) => resolve(c)));
  try {
    await until('the task to run, its worker waiting for the model', async () => (hung ? true : undefined), 90_000);
    await until('the watch to show the task running', async () => (out.includes('[~] slow RUNNING') ? true : undefined), 90_000);

    await killWorker(worker);
    // No live worker now: status reads what the run recorded, and the task's own workflow.
    const text = await cli('status', id);
    expect(text.out).toMatch(/^ {2}\[~\] slow: write slow\n {6}worker lost, retrying/m);
    expect((await statusOf(id)).tasks.find((t) => t.id === 'slow')).toMatchObject({
      state: 'RUNNING',
      workerLost: expect.stringMatching(/^worker lost, retrying/),
    });

    // The open watch notices, says so in one line, and starts a worker as `run` does.
    await until(
      'the watch to tell of the silent queue',
      async () => (/no worker has picked up this run's work for \d+ s; starting one/.test(out) ? true : undefined),
      60_000,
    );
    await until('the watch to start a worker', async () => (err.includes('Started a Replanner worker on task queue') ? true : undefined), 120_000);

    // The lost step is tried again on it; on the way the task is never READY again.
    const seen = new Set<string>();
    const final = await until(
      'the run to end',
      async () => {
        const s = await statusOf(id);
        seen.add(s.tasks.find((t) => t.id === 'slow')?.state ?? '?');
        return s.status === 'DONE' ? s : undefined;
      },
      120_000,
    );
    expect(final.tasks.find((t) => t.id === 'slow')?.state).toBe('DONE');
    expect(seen.has('READY')).toBe(false);
    expect(await exited).toBe(0);
    expect(out).toContain('[x] slow DONE');

    // V5: with every worker gone, a watch of the ended run does not wait for a worker to read its
    // log (none polls); it shows the run from its status at once.
    for (const r of readRecords()) if (isOurWorker(r.pid)) process.kill(r.pid, 'SIGKILL');
    await killAllWorkers();
    await until('the workers to be gone', async () => (readRecords().some((r) => isOurWorker(r.pid)) ? undefined : true), 30_000);
    const ended = await cli('watch', id);
    expect(ended.out).toContain("(the run's event log cannot be read: no worker is running to read an ended run;");
    expect(ended.out).toContain('Run ' + id + ': DONE');
  } finally {
    watch.kill('SIGKILL');
  }
}, 300_000);
