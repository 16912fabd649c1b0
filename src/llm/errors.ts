// Maps OpenAI client failures onto Temporal retry semantics (DESIGN: Temporal owns retries).
// SPEC O2, as a table:
// - the LLM is unavailable (connection refused, timeouts, 408/409/429/5xx): LlmUnavailable, retried
//   a few times by Temporal (a blip; retry-after → next retry delay); past those the workflow pauses
//   the run and keeps probing (src/workflows/llm-trouble.ts);
// - access rejected (401/403/404): LlmAccessRejected, not retried; the run pauses with the fix named
//   and `replanner resume` retries;
// - any other 4xx: LlmRequestRejected, a real rejection of that request, not retried.
// No message here says "will retry": whether anything retries is the workflow's decision.
import { ApplicationFailure } from '@temporalio/common';
import { APIError, APIConnectionError } from 'openai';

import { LLM_ACCESS_REJECTED, LLM_UNAVAILABLE } from '../domain/run/llm-outage';

export { LLM_ACCESS_REJECTED, LLM_UNAVAILABLE };
export const LLM_REJECTED = 'LlmRequestRejected';
export const LLM_BAD_REPLY = 'LlmBadReply';
/** Anything else thrown by the client (a bug, an unexpected body): retried like a blip, never a pause. */
export const LLM_RETRYABLE = 'LlmRetryableError';

const UNAVAILABLE_STATUS = new Set([408, 409, 429]);
const ACCESS_STATUS = new Set([401, 403, 404]);

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

/** What to do about a 401/403/404, in words a user can act on. */
export function accessFix(status: number, baseURL: string): string {
  if (status === 404) {
    return `${baseURL} answered HTTP 404: check OPENAI_BASE_URL and REPLANNER_MODEL, restart the worker with the right values, then \`replanner resume <runId>\``;
  }
  return `OPENAI_API_KEY rejected by ${baseURL} (HTTP ${status}): set the right key (and its permissions), restart the worker with it, then \`replanner resume <runId>\``;
}

export function classifyLlmError(err: unknown, ctx: { purpose: string; baseURL: string }): ApplicationFailure {
  const where = `${ctx.purpose} request to ${ctx.baseURL}`;
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const detail = err.message;
    if (UNAVAILABLE_STATUS.has(status) || status >= 500) {
      // APIError's headers are generic (`any`); the client always sets a fetch Headers.
      const delay = retryAfterMs(err.headers as Headers | undefined);
      return ApplicationFailure.create({
        type: LLM_UNAVAILABLE,
        message: `LLM unavailable: ${where} failed with HTTP ${status}: ${detail}`,
        nonRetryable: false,
        nextRetryDelay: delay !== undefined ? Math.max(delay, 100) : undefined,
      });
    }
    if (ACCESS_STATUS.has(status)) {
      return ApplicationFailure.create({ type: LLM_ACCESS_REJECTED, message: `${accessFix(status, ctx.baseURL)}. ${detail}`, nonRetryable: true });
    }
    return ApplicationFailure.create({ type: LLM_REJECTED, message: `${where} was rejected with HTTP ${status}. ${detail}`, nonRetryable: true });
  }
  // APIConnectionTimeoutError is a subclass: a timeout is an outage too.
  if (err instanceof APIConnectionError) {
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return ApplicationFailure.create({
      type: LLM_UNAVAILABLE,
      message: `LLM unavailable: ${where} could not connect or timed out: ${err.message}${cause}`,
      nonRetryable: false,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({ type: LLM_RETRYABLE, message: `${where} failed: ${message}`, nonRetryable: false });
}
