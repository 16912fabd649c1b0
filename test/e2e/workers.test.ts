// Issue 12, a worker you can trust: the CLI (in-process, the real main()) against the jest run's dev
// server, with two scripted OpenAI-compatible servers on two ports. No test worker: every worker
// here is one `replanner run` started (a detached process from the TypeScript sources).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { cli } from '../support/cli';
import { FakeOpenAI } from '../support/fake-openai';
import { runOutcome, temporalAddress, uniqueId, until } from '../support/harness';
import { scriptScenario } from '../support/scenario';
import { isOurWorker, readRecord, readRecords } from '../../src/client/workers';

let fakeA: FakeOpenAI;
let fakeB: FakeOpenAI;
let connection: Connection;
let client: Client;
const dirs: string[] = [];
const saved = { ...process.env };

const tmp = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};

/** A shell: its LLM settings in the environment while `fn` runs the CLI. */
async function inShell<T>(shell: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const before: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(shell)) {
    before[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const shellA = () => ({ OPENAI_BASE_URL: fakeA.baseURL, OPENAI_API_KEY: 'key-a', REPLANNER_MODEL: 'fake-model' });
const shellB = () => ({ OPENAI_BASE_URL: fakeB.baseURL, OPENAI_API_KEY: 'key-b', REPLANNER_MODEL: 'fake-model' });
const oneFile = (name: string) => ({ tasks: [{ id: 'one', title: `write ${name}`, files: { [name]: name } }] });
const bearer = (r: { headers: Record<string, string | string[] | undefined> }) => [r.headers.authorization ?? ''].flat().join(',');

beforeAll(async () => {
  [fakeA, fakeB] = await Promise.all([FakeOpenAI.start(), FakeOpenAI.start()]);
  connection = await Connection.connect({ address: temporalAddress() });
  client = new Client({ connection });
  // Routing is by endpoint + model: no explicit queue. Records and logs in a throwaway directory.
  delete process.env.REPLANNER_TASK_QUEUE;
  process.env.REPLANNER_WORKERS_DIR = tmp('replanner-workers-');
  process.env.REPLANNER_WORKFLOW_BUNDLE = process.env.REPLANNER_TEST_BUNDLE;
  process.env.REPLANNER_LOG_LEVEL = 'WARN';
});

afterAll(async () => {
  // Never leave a worker behind: stop them gracefully, then kill what is left.
  await cli('worker', 'stop', '--all').catch(() => undefined);
  for (const r of readRecords()) if (isOurWorker(r.pid)) process.kill(r.pid, 'SIGKILL');
  process.env = saved;
  await Promise.all([fakeA?.stop(), fakeB?.stop()]);
  await connection?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('issue 12 worker lifecycle', () => {
  /** On endpoint A, a run of one task writing `files`, started with the CLI from `shell` and paused at once; its id. */
  async function startPausedRun(shell: Record<string, string>, idPrefix: string, files: Record<string, string>): Promise<string> {
    fakeA.reset();
    scriptScenario(fakeA, { tasks: [{ id: 'one', title: 'write two files', files }], workerDelayMs: 300 });
    const id = uniqueId(idPrefix);
    expect((await inShell(shell, () => cli('run', 'write two files', '--workspace', tmp('replanner-ws-'), '--id', id))).code).toBe(0);
    expect((await inShell(shell, () => cli('pause', id))).code).toBe(0);
    return id;
  }

  it('two runs started from shells with different OPENAI_BASE_URL each reach their own endpoint and end DONE', async () => {
    scriptScenario(fakeA, oneFile('alpha.txt'));
    scriptScenario(fakeB, oneFile('beta.txt'));
    const [wsA, wsB] = [tmp('replanner-ws-'), tmp('replanner-ws-')];
    const [idA, idB] = [uniqueId('wa'), uniqueId('wb')];
    const a = await inShell(shellA(), () => cli('run', 'write alpha.txt', '--workspace', wsA, '--id', idA));
    expect(a.code).toBe(0);
    expect(a.err).toMatch(/Started a Replanner worker on task queue "replanner-[0-9a-f]{10}" \(model fake-model at http:\/\/127\.0\.0\.1:\d+\/v1\)/);
    const b = await inShell(shellB(), () => cli('run', 'write beta.txt', '--workspace', wsB, '--id', idB));
    expect(b.code).toBe(0);
    expect(b.err).toContain('Started a Replanner worker');

    const [doneA, doneB] = await Promise.all([
      runOutcome(client.workflow.getHandle(`run-${idA}`)),
      runOutcome(client.workflow.getHandle(`run-${idB}`)),
    ]);
    expect(doneA.status).toBe('DONE');
    expect(doneB.status).toBe('DONE');
    expect(fs.readFileSync(path.join(wsA, 'alpha.txt'), 'utf8')).toBe('alpha.txt');
    expect(fs.readFileSync(path.join(wsB, 'beta.txt'), 'utf8')).toBe('beta.txt');

    // Each endpoint saw only its own run's requests, with its shell's key.
    expect(fakeA.requests.length).toBeGreaterThan(3);
    expect(fakeB.requests.length).toBeGreaterThan(3);
    expect(fakeA.requests.filter((r) => /beta/.test(r.text))).toEqual([]);
    expect(fakeB.requests.filter((r) => /alpha/.test(r.text))).toEqual([]);
    expect(new Set(fakeA.requests.map(bearer))).toEqual(new Set(['Bearer key-a']));
    expect(new Set(fakeB.requests.map(bearer))).toEqual(new Set(['Bearer key-b']));

    // Two queues, one per endpoint; the runs' child workflows stay on their run's queue.
    const qA = (await client.workflow.getHandle(`run-${idA}`).describe()).taskQueue;
    const qB = (await client.workflow.getHandle(`run-${idB}`).describe()).taskQueue;
    expect(qA).not.toBe(qB);
    expect((await client.workflow.getHandle(`run-${idA}.task-one`).describe()).taskQueue).toBe(qA);

    // `worker status` shows both, alive, with their endpoint, model, pid and log — never a key.
    const status = await cli('worker', 'status', '--json');
    expect(status.code).toBe(0);
    const { workers } = JSON.parse(status.out);
    expect(workers.map((w: any) => [w.taskQueue, w.endpoint, w.alive]).sort()).toEqual(
      [
        [qA, fakeA.baseURL, true],
        [qB, fakeB.baseURL, true],
      ].sort(),
    );
    for (const w of workers) {
      expect(w).toMatchObject({ model: 'fake-model', pid: expect.any(Number), startedAt: expect.any(String), log: expect.stringMatching(/\.log$/) });
      expect(fs.readFileSync(w.log, 'utf8')).toContain(`replanner worker: task queue "${w.taskQueue}"`);
    }
    expect(status.out).not.toMatch(/key-a|key-b/);
    const human = await cli('worker', 'status');
    expect(human.out).toContain(`${qA}  alive  pid`);
  });

  it('a different key for the same endpoint restarts the auto-started worker; the run uses the new key', async () => {
    const queue = readRecords().find((r) => r.endpoint === fakeA.baseURL)!.taskQueue;
    const before = readRecord(queue)!;
    fakeA.reset();
    scriptScenario(fakeA, oneFile('gamma.txt'));
    const id = uniqueId('wk');
    const r = await inShell({ ...shellA(), OPENAI_API_KEY: 'key-a2' }, () =>
      cli('run', 'write gamma.txt', '--workspace', tmp('replanner-ws-'), '--wait', '--json', '--id', id),
    );
    expect({ code: r.code, err: r.err }).toMatchObject({ code: 0 });
    expect(JSON.parse(r.out).status).toBe('DONE');
    expect(r.err).toContain(`Restarted the worker on task queue "${queue}"`);
    expect(r.err).toContain('your OPENAI_API_KEY differs from the one it was started with');
    expect(r.err).not.toContain('key-a2');
    const after = readRecord(queue)!;
    expect(after.pid).not.toBe(before.pid);
    expect(isOurWorker(before.pid)).toBe(false);
    expect(fakeA.requests.length).toBeGreaterThan(3);
    expect(new Set(fakeA.requests.map(bearer))).toEqual(new Set(['Bearer key-a2']));
    // The old worker stopped gracefully and said so in the log.
    expect(fs.readFileSync(after.log, 'utf8')).toContain(`replanner worker: stopped (pid ${before.pid})`);

    // The same key again: no restart.
    const again = await inShell({ ...shellA(), OPENAI_API_KEY: 'key-a2' }, () =>
      cli('run', 'write gamma.txt', '--workspace', tmp('replanner-ws-'), '--wait', '--json'),
    );
    expect({ code: again.code, err: again.err }).toMatchObject({ code: 0 });
    expect(again.err).toBe('');
    expect(readRecord(queue)!.pid).toBe(after.pid);
  });

  it('a SIGKILLed auto-started worker is replaced at the next run at once (no hang on the dead poller)', async () => {
    const queue = readRecords().find((r) => r.endpoint === fakeA.baseURL)!.taskQueue;
    const killed = readRecord(queue)!;
    process.kill(killed.pid, 'SIGKILL');
    await until('the worker to die', async () => (isOurWorker(killed.pid) ? undefined : true), 10_000);
    fakeA.reset();
    scriptScenario(fakeA, oneFile('delta.txt'));
    const t0 = Date.now();
    const r = await inShell({ ...shellA(), OPENAI_API_KEY: 'key-a2' }, () =>
      cli('run', 'write delta.txt', '--workspace', tmp('replanner-ws-'), '--wait', '--json'),
    );
    const elapsed = Date.now() - t0;
    expect({ code: r.code, err: r.err }).toMatchObject({ code: 0 });
    expect(JSON.parse(r.out).status).toBe('DONE');
    expect(r.err).toContain(`in place of pid ${killed.pid}, which is gone`);
    expect(readRecord(queue)!.pid).not.toBe(killed.pid);
    // Before: `run --wait` trusted the dead poller, hung ~35 s and then failed. Now: a new worker
    // (a few seconds to start from the sources) and the run; the bound leaves room for a busy machine.
    expect(elapsed).toBeLessThan(60_000);
  });

  it('O1 resume from a shell with another key restarts the worker (the fix after a 401); the run ends DONE on the new key and replays', async () => {
    const queue = readRecords().find((r) => r.endpoint === fakeA.baseURL)!.taskQueue;
    const before = readRecord(queue)!;
    const shell = { ...shellA(), OPENAI_API_KEY: 'key-a2' };
    const id = await startPausedRun(shell, 'wr', { 'e1.txt': '1', 'e2.txt': '2' });
    // Calls in flight when the pause arrived finish (an activity already started may still send one).
    const quiet = () => until('no LLM call in flight', async () => (fakeA.requests.every((r) => r.finishedAt !== undefined) ? true : undefined));
    await quiet();
    await new Promise((r) => setTimeout(r, 1500));
    await quiet();
    const beforeResume = fakeA.requests.length;

    const resumed = await inShell({ ...shell, OPENAI_API_KEY: 'key-a3' }, () => cli('resume', id));
    expect(resumed.code).toBe(0);
    expect(resumed.err).toContain(
      `Restarted the worker on task queue "${queue}" (model fake-model at ${fakeA.baseURL}): your OPENAI_API_KEY differs`,
    );
    expect(resumed.out).toContain(`Run ${id} resumed.`);
    expect((await runOutcome(client.workflow.getHandle(`run-${id}`))).status).toBe('DONE');
    expect(readRecord(queue)!.pid).not.toBe(before.pid);
    const after = fakeA.requests.slice(beforeResume);
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(after.map(bearer))).toEqual(new Set(['Bearer key-a3']));
    // O1: the resume reaches the new worker cold, at times just after the paused run took in its Goal
    // phase's end (src/workflows/run/update-order.ts; test/workflows/update-order.test.ts makes that
    // case on purpose): its whole history replays.
    const history = await client.workflow.getHandle(`run-${id}`).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! } }, history, `run-${id}`);
  });

  it('a paused run whose worker was killed gets a new one from resume in a shell that routes to it; another shell is told what it needs (exit 3)', async () => {
    const queue = readRecords().find((r) => r.endpoint === fakeA.baseURL)!.taskQueue;
    const shell = { ...shellA(), OPENAI_API_KEY: 'key-a3' };
    const id = await startPausedRun(shell, 'wp', { 'f1.txt': '1', 'f2.txt': '2' });
    const killed = readRecord(queue)!;
    process.kill(killed.pid, 'SIGKILL');
    await until('the worker to die', async () => (isOurWorker(killed.pid) ? undefined : true), 10_000);

    const elsewhere = await inShell(shellB(), () => cli('resume', id));
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.err).toContain(`no worker polls the run's task queue "${queue}"`);
    expect(elsewhere.err).toContain(`OPENAI_BASE_URL=${fakeA.baseURL} REPLANNER_MODEL=fake-model`);

    const resumed = await inShell(shell, () => cli('resume', id));
    expect(resumed.code).toBe(0);
    expect(resumed.err).toContain(`in place of pid ${killed.pid}, which is gone`);
    expect(resumed.out).toContain(`Run ${id} resumed.`);
    expect((await runOutcome(client.workflow.getHandle(`run-${id}`))).status).toBe('DONE');
  });

  it('two runs started at the same moment for the same endpoint and model start one worker between them', async () => {
    fakeB.reset();
    scriptScenario(fakeB, oneFile('twin.txt'));
    const shell = { ...shellB(), REPLANNER_MODEL: 'fake-model-2' };
    const [r1, r2] = await inShell(shell, () =>
      Promise.all([
        cli('run', 'write twin.txt', '--workspace', tmp('replanner-ws-'), '--wait', '--json'),
        cli('run', 'write twin.txt', '--workspace', tmp('replanner-ws-'), '--wait', '--json'),
      ]),
    );
    expect([r1.code, r2.code]).toEqual([0, 0]);
    expect([r1.err, r2.err].filter((e) => e.includes('Started a Replanner worker'))).toHaveLength(1);
    expect(readRecords().filter((r) => r.model === 'fake-model-2')).toHaveLength(1);
  });

  it('worker stop stops one worker or all of them gracefully, with exit codes; --help', async () => {
    const queueB = readRecords().find((r) => r.endpoint === fakeB.baseURL)!;
    expect((await cli('worker', 'stop')).code).toBe(2);
    expect((await cli('worker', 'stop', 'q1', '--all')).code).toBe(2);
    const unknown = await cli('worker', 'stop', 'no-such-queue');
    expect(unknown.code).toBe(3);
    expect(unknown.err).toContain('no worker started by `run` is recorded for task queue "no-such-queue"');
    expect((await cli('worker', 'frobnicate')).code).toBe(2);
    const badIdle = await inShell({ ...shellA(), REPLANNER_WORKER_IDLE_EXIT: 'soon' }, () => cli('run', 'x', '--workspace', tmp('replanner-ws-')));
    expect(badIdle.code).toBe(2);
    expect(badIdle.err).toContain('REPLANNER_WORKER_IDLE_EXIT must be a duration like 15m, 90s or 1h, or off (got "soon")');
    const help = await cli('worker', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('npx replanner worker stop <queue>');

    const stop = await cli('worker', 'stop', queueB.taskQueue);
    expect(stop.code).toBe(0);
    expect(stop.out).toContain(`Stopped the worker on "${queueB.taskQueue}" (pid ${queueB.pid}).`);
    expect(isOurWorker(queueB.pid)).toBe(false);
    expect(readRecord(queueB.taskQueue)).toBeUndefined();

    const all = await cli('worker', 'stop', '--all', '--json');
    expect(all.code).toBe(0);
    expect(JSON.parse(all.out).stopped.map((s: any) => s.result)).toEqual(['stopped', 'stopped']);
    expect(readRecords()).toEqual([]);
    expect((await cli('worker', 'stop', '--all')).out).toContain('nothing to stop');
  });

  it('an auto-started worker exits by itself after REPLANNER_WORKER_IDLE_EXIT without work', async () => {
    fakeB.reset();
    scriptScenario(fakeB, oneFile('idle.txt'));
    const r = await inShell({ ...shellB(), REPLANNER_WORKER_IDLE_EXIT: '3s' }, () =>
      cli('run', 'write idle.txt', '--workspace', tmp('replanner-ws-'), '--wait', '--json'),
    );
    expect({ code: r.code, err: r.err }).toMatchObject({ code: 0 });
    expect(JSON.parse(r.out).status).toBe('DONE');
    const rec = readRecords().find((x) => x.endpoint === fakeB.baseURL)!;
    expect(rec).toBeDefined();
    await until('the idle worker to exit', async () => (isOurWorker(rec.pid) ? undefined : true), 30_000);
    const log = fs.readFileSync(rec.log, 'utf8');
    expect(log).toContain('replanner worker: exits after 3s without work');
    expect(log).toMatch(/no work for \d+s; exiting/);
    // It took its record with it.
    expect(readRecord(rec.taskQueue)).toBeUndefined();
  });
});
