import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/**
 * The client's retry of a failed call, made safe to close under: a test may leave a call that the
 * client retries after a backoff, and a retry whose connection was closed meanwhile throws from its
 * timer ("Channel has been shut down"), failing the whole suite after its tests passed. Once
 * `settled` is called nothing new is retried, and it returns when every retry already due has run.
 */
export function closableRetries(): { interceptor: ReturnType<typeof makeGrpcRetryInterceptor>; settled(): Promise<void> } {
  const defaults = defaultGrpcRetryOptions();
  let closing = false;
  let lastRetryAt = 0;
  return {
    interceptor: makeGrpcRetryInterceptor({
      retryableDecider: (attempt, status) => !closing && defaults.retryableDecider(attempt, status),
      delayFunction: (attempt, status) => {
        const ms = defaults.delayFunction(attempt, status);
        lastRetryAt = Math.max(lastRetryAt, Date.now() + ms);
        return ms;
      },
    }),
    async settled() {
      closing = true;
      const wait = lastRetryAt + 100 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    },
  };
}
