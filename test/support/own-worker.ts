// A worker of a test's own on its own task queue (the harness's worker serves another queue), with
// the jest run's workflow bundle and the harness's scripted model: a test stops it and starts another
// to hand a run to a worker with no cache of it, or to let messages pile up while none polls.
import { NativeConnection } from '@temporalio/worker';
import { createWorker } from '../../src/worker';
import { temporalAddress, type Harness } from './harness';

export async function ownWorker(h: Pick<Harness, 'fake'>, taskQueue: string): Promise<{ stop(): Promise<void> }> {
  const connection = await NativeConnection.connect({ address: temporalAddress() });
  const worker = await createWorker({
    connection,
    taskQueue,
    llm: { apiKey: 'k', baseURL: h.fake.baseURL, model: 'fake-model', timeoutMs: 10_000 },
    workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! },
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
