// Maps OpenAI client failures onto Temporal retry semantics (DESIGN: Temporal owns retries).
// 408/409/429/5xx and network faults retry (retry-after → next retry delay); other 4xx do not,
// with a message a user can act on.
import { ApplicationFailure } from '@temporalio/common';
import { APIError, APIConnectionError } from 'openai';

export const LLM_RETRYABLE = 'LlmRetryableError';
export const LLM_REJECTED = 'LlmRequestRejected';
export const LLM_BAD_REPLY = 'LlmBadReply';

const RETRYABLE_STATUS = new Set([408, 409, 429]);

export function retryAfterMs(headers: Headers | Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const get = (k: string) => (typeof (headers as Headers).get === 'function' ? (headers as Headers).get(k) : (headers as Record<string, string>)[k]);
  const ms = get('retry-after-ms');
  if (ms && !Number.isNaN(Number(ms))) return Math.max(0, Number(ms));
  const s = get('retry-after');
  if (!s) return undefined;
  if (!Number.isNaN(Number(s))) return Math.max(0, Number(s) * 1000);
  const date = Date.parse(s);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function classifyLlmError(err: unknown, ctx: { purpose: string; baseURL: string }): ApplicationFailure {
  const where = `${ctx.purpose} request to ${ctx.baseURL}`;
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const detail = err.message;
    if (RETRYABLE_STATUS.has(status) || status >= 500) {
      // APIError's headers are generic (`any`); the client always sets a fetch Headers.
      const delay = retryAfterMs(err.headers as Headers | undefined);
      return ApplicationFailure.create({
        type: LLM_RETRYABLE,
        message: `${where} failed with HTTP ${status} (will retry): ${detail}`,
        nonRetryable: false,
        nextRetryDelay: delay !== undefined ? Math.max(delay, 100) : undefined,
      });
    }
    const hint =
      status === 401 || status === 403
        ? `OPENAI_API_KEY rejected by ${ctx.baseURL} (HTTP ${status}): check the key and its permissions`
        : status === 404
          ? `${ctx.baseURL} answered 404: check OPENAI_BASE_URL and REPLANNER_MODEL`
          : `${where} was rejected with HTTP ${status}`;
    return ApplicationFailure.create({ type: LLM_REJECTED, message: `${hint}. ${detail}`, nonRetryable: true });
  }
  if (err instanceof APIConnectionError) {
    return ApplicationFailure.create({
      type: LLM_RETRYABLE,
      message: `${where} could not connect or timed out (will retry): ${err.message}`,
      nonRetryable: false,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({ type: LLM_RETRYABLE, message: `${where} failed: ${message}`, nonRetryable: false });
}
