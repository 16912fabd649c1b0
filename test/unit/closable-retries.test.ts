// The test harness's client connection (test/support/closable-retries.ts): closing it while a call
// waits out the client's retry backoff must not throw "Channel has been shut down" from the retry's
// timer, which fails a whole suite after its tests passed (CI of stop 40, notification-outages).
import { Connection, type makeGrpcRetryInterceptor } from '@temporalio/client';
import { closableRetries } from '../support/closable-retries';
import { rejection, sleep } from '../support/promises';

/** A call to an address where nothing listens: UNAVAILABLE, which the client retries after a backoff. */
async function closeDuringBackoff(interceptor: ReturnType<typeof makeGrpcRetryInterceptor>, beforeClose: () => Promise<void>): Promise<unknown[]> {
  const thrown: unknown[] = [];
  const onUncaught = (e: unknown) => thrown.push(e);
  process.prependListener('uncaughtException', onUncaught);
  try {
    const connection = Connection.lazy({ address: '127.0.0.1:1', interceptors: [interceptor] });
    const call = connection.workflowService.getSystemInfo({});
    const failed = rejection(call);
    await sleep(60); // the first attempt has failed; its retry is due after ~100 ms
    await beforeClose();
    await connection.close();
    await failed;
    await sleep(1_500);
  } finally {
    process.removeListener('uncaughtException', onUncaught);
  }
  return thrown;
}

test('M1 the harness connection closed while a call waits for its retry: the call fails, nothing throws from a timer', async () => {
  const retries = closableRetries();
  expect(await closeDuringBackoff(retries.interceptor, () => retries.settled())).toEqual([]);
});
