// Maps OpenAI client failures onto Temporal retry semantics (DESIGN: Temporal owns retries).
// SPEC O2, as a table:
// - the LLM is unavailable (connection refused, timeouts, 408/409/429/5xx): LlmUnavailable, retried
//   a few times by Temporal (a blip; retry-after → next retry delay); past those the workflow pauses
//   the run and keeps probing (src/workflows/llm-trouble.ts);
// - access rejected (401/403/404): LlmAccessRejected, not retried; the run pauses with the fix named
//   and `replanner resume` retries;
// - any other 4xx: LlmRequestRejected, a real rejection of that request, not retried;
// - a TLS failure (an untrusted certificate, https to a plain HTTP server): LlmAccessRejected like a
//   wrong key: the worker's configuration, fixed by the user, then `replanner resume`.
// No message here says "will retry": whether anything retries is the workflow's decision.
import { ApplicationFailure } from '@temporalio/common';
import { APIError, APIConnectionError } from 'openai';

import { LLM_ACCESS_REJECTED, LLM_UNAVAILABLE, LLM_UNSUPPORTED } from '../domain/run/llm-outage';

export { LLM_ACCESS_REJECTED, LLM_UNAVAILABLE, LLM_UNSUPPORTED };
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
  // A TLS failure is the worker's configuration, not an outage: no retry or probe would fix it.
  const tls = err instanceof APIConnectionError ? tlsProblem(err) : undefined;
  if (tls) {
    return ApplicationFailure.create({ type: LLM_ACCESS_REJECTED, message: `${where} failed TLS (${tls.detail}): ${tls.fix}`, nonRetryable: true });
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

/** Node's codes for a certificate the worker does not trust (or that does not name the host). */
const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * The TLS failure behind a connection error, with the fix a user can apply: an https URL to a plain
 * HTTP server, or a certificate the worker does not trust. Undefined for any other connection error.
 */
export function tlsProblem(err: APIConnectionError): { detail: string; fix: string } | undefined {
  const restart = 'restart the worker, then `replanner resume <runId>`';
  // Duck-typed, not `instanceof Error`: the socket's error may come from another realm (a vm context).
  let c: unknown = err.cause;
  for (let depth = 0; typeof c === 'object' && c !== null && depth < 5; depth++) {
    const { code, message, cause } = c as { code?: unknown; message?: unknown; cause?: unknown };
    const text = typeof message === 'string' ? message.replace(/\s+/g, ' ').trim() : '';
    // The code, or the message alone: the client copies an error from another realm without its code.
    if ((typeof code === 'string' && CERT_CODES.has(code)) || /certificate/i.test(text)) {
      return {
        detail: typeof code === 'string' ? `${code}: ${text}` : text,
        fix: `the server's certificate is not trusted by the worker: give its CA certificate in NODE_EXTRA_CA_CERTS (or fix OPENAI_BASE_URL's host name), ${restart}`,
      };
    }
    const plain = /wrong version number|packet length too long|unknown protocol/i.exec(text);
    if (plain) {
      return {
        detail: `${typeof code === 'string' ? `${code}: ` : ''}${plain[0]}`,
        fix: `the server does not speak TLS at this address: use http:// in OPENAI_BASE_URL (or the server's TLS port), ${restart}`,
      };
    }
    c = cause;
  }
  return undefined;
}
