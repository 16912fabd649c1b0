// For the tests that crash a run's world mid-run: a dev server of the test's own (its own database
// file, so it can be stopped and started again), the scripted model, one worker process on a fresh
// task queue, a client and a workspace. `crashAndRestart` is the crash; `stop` removes all of it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort, OwnDevServer } from './dev-server';
import { FakeOpenAI } from './fake-openai';
import { sleep, uniqueId } from './harness';
import { killAllWorkers, killWorker, startWorkerProcess } from './worker-proc';

export interface OwnServerRun {
  server: OwnDevServer;
  fake: FakeOpenAI;
  client: Client;
  taskQueue: string;
  /** The run's workspace, a fresh temporary folder. */
  workspace: string;
  /** SIGKILLs the worker, stops the server (SIGTERM) and starts both again on the same database. */
  crashAndRestart(): Promise<void>;
  stop(): Promise<void>;
}

/** `name` names the temporary folder and the task queue. */
export async function startOwnServerRun(name: string): Promise<OwnServerRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `replanner-${name}-`));
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-ws-'));
  const server = new OwnDevServer(path.join(dir, 'temporal.db'), await freePort());
  await server.start();
  const fake = await FakeOpenAI.start();
  const taskQueue = uniqueId(name);
  const workerParams = { address: server.address, taskQueue, llmBaseURL: fake.baseURL };
  let worker = await startWorkerProcess(workerParams);
  const connection = await Connection.connect({ address: server.address });
  return {
    server,
    fake,
    client: new Client({ connection }),
    taskQueue,
    workspace,
    async crashAndRestart() {
      await killWorker(worker);
      await server.stop('SIGTERM');
      await sleep(500);
      await server.start();
      worker = await startWorkerProcess(workerParams);
    },
    async stop() {
      await killAllWorkers();
      await connection.close();
      await fake.stop();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
}
