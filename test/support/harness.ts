// Per test file: a fake OpenAI server, a client, and a real Worker on its own task queue, all
// against the jest run's shared dev server.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplicationFailure, Client, Connection, WorkflowFailedError, WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import type { RunResult } from '../../src/workflows/run';
import { NativeConnection, Runtime, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { hasWorker } from '../../src/client/backend';
import { createWorker, type ReplannerWorker } from '../../src/worker';
import type { RunOptions } from '../../src/workflows/options';
import { FakeOpenAI } from './fake-openai';
import { closableRetries } from './closable-retries';
import { until } from './promises';

let runtimeInstalled = false;
/** The SDK's log quiet (REPLANNER_TEST_LOG=1: INFO), installed once per jest worker. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger(process.env.REPLANNER_TEST_LOG === '1' ? 'INFO' : 'ERROR') });
  } catch {
    /* already installed by another harness in this jest worker */
  }
}

export interface Harness {
  fake: FakeOpenAI;
  client: Client;
  taskQueue: string;
  worker: ReplannerWorker;
  /** A fresh throwaway workspace directory. */
  workspace(files?: Record<string, string>): string;
  stop(): Promise<void>;
}

/** Options that keep tests fast: short retry intervals. */
export const FAST: Partial<RunOptions> = { llmRetryInitialMs: 100, llmMaxAttempts: 3 };

export function temporalAddress(): string {
  const a = process.env.TEMPORAL_ADDRESS;
  if (!a) throw new Error('TEMPORAL_ADDRESS is not set: run tests through jest (global setup starts the dev server)');
  return a;
}

/** `llmTimeoutMs`: the worker's total cap per LLM request (default 10 s; null: none, the progress limits alone, as in production). */
export async function startHarness(
  opts: {
    llmTimeoutMs?: number | null;
    apiKey?: string;
    /** Worker settings (e.g. no workflow cache), applied last. */ workerOverrides?: Partial<WorkerOptions>;
  } = {},
): Promise<Harness> {
  quietRuntime();
  const fake = await FakeOpenAI.start();
  const address = temporalAddress();
  const nativeConnection = await NativeConnection.connect({ address });
  const retries = closableRetries();
  const connection = await Connection.connect({ address, interceptors: [retries.interceptor] });
  const client = new Client({ connection });
  const taskQueue = `test-${randomUUID()}`;
  const bundle = process.env.REPLANNER_TEST_BUNDLE;
  const worker = await createWorker({
    connection: nativeConnection,
    taskQueue,
    llm: {
      apiKey: opts.apiKey ?? 'test-key',
      baseURL: fake.baseURL,
      model: 'fake-model',
      ...(opts.llmTimeoutMs === null ? {} : { timeoutMs: opts.llmTimeoutMs ?? 10_000 }),
    },
    workflowBundle: bundle ? { codePath: bundle } : undefined,
    ...(opts.workerOverrides ? { overrides: opts.workerOverrides } : {}),
  });
  const running = worker.run();
  // Tests that go through the CLI would otherwise see "no worker" and start one of their own.
  const backend = { client, connection, address, namespace: 'default', taskQueue, close: async () => undefined };
  await until('the test worker to poll its task queue', async () => ((await hasWorker(backend)) ? true : undefined), 30_000);
  const dirs: string[] = [];
  return {
    fake,
    client,
    taskQueue,
    worker,
    workspace(files = {}) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-ws-'));
      dirs.push(dir);
      for (const [rel, content] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.writeFileSync(path.join(dir, rel), content);
      }
      return dir;
    },
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await fake.stop();
      await retries.settled();
      await connection.close();
      await nativeConnection.close();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/**
 * The run's final result, also for a run that ended BLOCKED or FAILED: those end as failed
 * workflows (RunBlocked / RunFailed) with the result in the failure's details.
 */
export async function runOutcome(handle: WorkflowHandle): Promise<RunResult> {
  try {
    return (await handle.result()) as RunResult;
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (err instanceof WorkflowFailedError && cause instanceof ApplicationFailure && cause.details?.[0]) {
      return cause.details[0] as RunResult;
    }
    throw err;
  }
}

/** Whether a workflow of that id exists (any status). */
export async function workflowExists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

/** The failure message at the bottom of a workflow failure chain. */
export async function failureOf(handle: WorkflowHandle): Promise<string> {
  try {
    await handle.result();
  } catch (err) {
    let e: unknown = err;
    const parts: string[] = [];
    while (e instanceof Error) {
      parts.push(e.message);
      e = (e as { cause?: unknown }).cause;
    }
    return parts.join(' <- ');
  }
  throw new Error(`workflow ${handle.workflowId} did not fail`);
}

export function uniqueId(prefix = 't'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

// The waits live apart (./promises.ts), so that a unit test can use them without loading the worker's SDK.
export { sleep, until } from './promises';
