// S3 / issue 23: one running run per workspace, enforced by Temporal (a lock workflow per workspace,
// src/workflows/workspace-lock.ts). Issue 28: the run is the root workflow and starts the lock as
// its own child (src/workflows/run/workspace.ts). Real `replanner run` processes against the dev
// server and a real worker; the LLM's goal reply hangs so every run is still running when the other
// start comes, and is cancelled right after.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { startRun } from '../../src/client/runs';
import { workspaceLockId, WorkspaceBusy } from '../../src/client/workspace-lock';
import { createWorker } from '../../src/worker';
import { temporalAddress, uniqueId, until, workflowExists, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';

let h: Harness;
harnessForCli((x) => (h = x));
beforeEach(() => h.fake.reset());

interface Proc {
  child: ChildProcess;
  id: string;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; out: string; err: string }>;
}

/** A `replanner run` process, loaded and waiting for the word to start. */
function runProcess(ws: string): Proc {
  const id = uniqueId('race');
  const child = spawn(
    process.execPath,
    ['-r', './test/support/ts-register.js', 'test/support/cli-on-go.ts', 'run', 'race me', '--workspace', ws, '--id', id],
    {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.includes('READY\n')) markReady();
  });
  const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, out, err: err.replace('READY\n', '') })),
  );
  return { child, id, ready, exited };
}

describe('S3 one running run per workspace, enforced by Temporal', () => {
  it('S3 two `replanner run` processes started together on one workspace, 20 times: exactly one run starts, the other exits 2 naming it', async () => {
    h.fake.always('goal_understanding', { hangMs: 120_000 });
    const pair = () => {
      const ws = h.workspace();
      return [runProcess(ws), runProcess(ws), ws] as const;
    };
    let next = pair();
    const started: string[] = [];
    /** A refused run is deleted: it waits for that before it fails, and a running execution is deleted at once. */
    const gone = async (workflowId: string): Promise<true | undefined> => ((await workflowExists(h.client, workflowId)) ? undefined : true);
    for (let round = 0; round < 20; round++) {
      const [a, b, ws] = next;
      await Promise.all([a.ready, b.ready]);
      // The next pair loads while this one races.
      if (round < 19) next = pair();
      a.child.stdin!.write('go\n');
      b.child.stdin!.write('go\n');
      const results = await Promise.all([a.exited, b.exited]);
      const codes = results.map((r) => r.code);
      expect([round, [...codes].sort()]).toEqual([round, [0, 2]]);
      const winner = codes[0] === 0 ? a : b;
      const loser = winner === a ? results[1] : results[0];
      const won = winner === a ? results[0] : results[1];
      expect(won.out).toContain(`Started run ${winner.id}`);
      expect([round, loser.err]).toEqual([round, expect.stringContaining(`already has a running run: ${winner.id}`)]);
      // The refused one started nothing: refused without a phase or a lock, and deleted (not left in the run list).
      const refused = `run-${(winner === a ? b : a).id}`;
      await until(`the refused ${refused} to be deleted`, () => gone(refused), 15_000);
      expect(await workflowExists(h.client, `${refused}.goal_understanding-1`)).toBe(false);
      // The run is the root; the workspace's lock is its child.
      expect([round, (await h.client.workflow.getHandle(`run-${winner.id}`).describe()).parentExecution]).toEqual([round, undefined]);
      const lock = await h.client.workflow.getHandle(await workspaceLockId(ws)).describe();
      expect([round, lock.status.name, lock.parentExecution?.workflowId]).toEqual([round, 'RUNNING', `run-${winner.id}`]);
      started.push(winner.id);
      await h.client.workflow.getHandle(`run-${winner.id}`).cancel();
    }
    for (const id of started) {
      await h.client.workflow
        .getHandle(`run-${id}`)
        .result()
        .catch(() => undefined);
    }
  }, 600_000);

  it('S3 a lock whose run was terminated while no worker served the lock is cleared by the next start; the workspace is never stranded', async () => {
    h.fake.always('goal_understanding', { hangMs: 120_000 });
    const ws = h.workspace();
    // A second worker on a queue of its own holds the first lock, then goes away.
    const connection = await NativeConnection.connect({ address: temporalAddress() });
    const queue = `lock-${uniqueId()}`;
    const other = await createWorker({
      connection,
      taskQueue: queue,
      llm: { apiKey: 'k', baseURL: h.fake.baseURL, model: 'fake-model', timeoutMs: 10_000 },
      workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! },
    });
    const running = other.run();
    const first = await startRun(h.client, { instruction: 'hold it', workspace: ws, taskQueue: queue, holdWorkspace: true });
    // Held: another start is refused naming it.
    await expect(startRun(h.client, { instruction: 'me too', workspace: ws, taskQueue: h.taskQueue, holdWorkspace: true })).rejects.toThrow(
      WorkspaceBusy,
    );
    other.shutdown();
    await running;
    await connection.close();
    await first.handle.terminate('stuck');
    // No worker saw the run end: the lock still runs.
    const lockId = await workspaceLockId(ws);
    expect((await h.client.workflow.getHandle(lockId).describe()).status.name).toBe('RUNNING');

    const second = await startRun(h.client, { instruction: 'after it', workspace: ws, taskQueue: h.taskQueue, holdWorkspace: true });
    const d = await second.handle.describe();
    expect(d.status.name).toBe('RUNNING');
    // The run is the root; the lock it cleared and took again is its child.
    expect(d.parentExecution).toBeUndefined();
    expect((await h.client.workflow.getHandle(lockId).describe()).parentExecution?.workflowId).toBe(second.handle.workflowId);
    await second.handle.cancel();
    await until('the lock to be released with its run', async () =>
      (await h.client.workflow.getHandle(lockId).describe()).status.name !== 'RUNNING' ? true : undefined,
    );
  });
});
