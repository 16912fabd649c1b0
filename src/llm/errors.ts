// Maps OpenAI client failures onto Temporal retry semantics (Temporal owns retries). Whether a
// failure is retried, and how long to wait, is the retry table's (src/domain/failures.ts); here its
// kind becomes the failure type the workflows read, so LLM trouble pauses a run rather than fail it:
// - outage or rate limit (no response, 408/409/429/5xx): LlmUnavailable, retried a few times by
//   Temporal (a blip; the server's wait → next retry delay); past those the workflow pauses the run
//   and keeps probing (src/workflows/llm-trouble.ts);
// - access rejected (401/403/404/407, or a TLS failure: an untrusted certificate, https to a plain
//   HTTP server): LlmAccessRejected, not retried; the run pauses with the fix named and
//   `replanner resume` retries;
// - bad request (any other 4xx): LlmRequestRejected, a real rejection of that request, not retried;
// - unexpected (not an HTTP failure: a bug, an unexpected body): LlmRetryableError, retried like a
//   blip, never a pause;
// - slow (connected, then no first token, a stalled reply, or the total cap: ./stream.ts): LlmSlow,
//   retried like a blip; past those the run pauses with the setting to raise named. Never an outage:
//   a slow model is alive. A connection that could not be made in time is an outage.
// Every failure keeps the client's error as its cause and the upstream's status and body in its
// details, with the API key replaced everywhere. No message says "will retry": whether anything
// retries is the workflow's decision.
import { ApplicationFailure } from '@temporalio/common';
import { APIError, APIConnectionError, APIConnectionTimeoutError } from 'openai';

import {
  decideRetry,
  failureDetails,
  networkKindOf,
  scrubbedError,
  withoutSecrets,
  type FailureKind,
  type NetworkErrorKind,
  type RetryDecision,
  type UpstreamFailureDetails,
} from '../domain/failures';
import { LLM_ACCESS_REJECTED, LLM_SLOW, LLM_UNAVAILABLE, LLM_UNSUPPORTED } from '../domain/run/llm-outage';
import { timeoutFix } from '../domain/llm-timeouts';
import { oneLine } from '../domain/text';
import { ProgressTimeoutError } from './stream';
import { replannerCommand } from '../domain/printed-commands';

/** How a paused run goes on once its worker is fixed. */
const RESUME = replannerCommand('resume', '<runId>');

export { LLM_ACCESS_REJECTED, LLM_SLOW, LLM_UNAVAILABLE, LLM_UNSUPPORTED };
export const LLM_REJECTED = 'LlmRequestRejected';
export const LLM_BAD_REPLY = 'LlmBadReply';
/** Anything else thrown by the client (a bug, an unexpected body): retried like a blip, never a pause. */
export const LLM_RETRYABLE = 'LlmRetryableError';

const TYPE_OF: Readonly<Record<FailureKind, string>> = {
  outage: LLM_UNAVAILABLE,
  rate_limit: LLM_UNAVAILABLE,
  access_rejected: LLM_ACCESS_REJECTED,
  bad_request: LLM_REJECTED,
  unexpected: LLM_RETRYABLE,
  slow: LLM_SLOW,
};

/** A retry sooner than this is no retry-after worth the name (a server's "0"). */
const MIN_RETRY_DELAY_MS = 100;

/** What to do about a 401/403/404, in words a user can act on. */
function accessFix(status: number, baseURL: string): string {
  if (status === 404) {
    return `${baseURL} answered HTTP 404: check OPENAI_BASE_URL and REPLANNER_MODEL, restart the worker with the right values, then \`${RESUME}\``;
  }
  return `OPENAI_API_KEY rejected by ${baseURL} (HTTP ${status}): set the right key (and its permissions), restart the worker with it, then \`${RESUME}\``;
}

export interface LlmErrorContext {
  purpose: string;
  baseURL: string;
  /** Values no message, detail or cause may hold (the API key). */
  secrets?: readonly string[];
}

/** What the client's error says, as the retry table reads it. */
interface LlmFacts {
  status?: number;
  network?: NetworkErrorKind;
  slow?: 'first_token' | 'stall' | 'total';
  headers?: Headers;
  body?: unknown;
}

function factsOf(err: unknown): LlmFacts {
  if (err instanceof APIError && typeof err.status === 'number') {
    // APIError's headers are generic (`any`); the client always sets a fetch Headers.
    return { status: err.status, headers: err.headers as Headers | undefined, body: err.error };
  }
  // A progress limit: no connection in time is no response (an outage); past it, the server is alive.
  if (err instanceof ProgressTimeoutError) return err.timeout.kind === 'connect' ? { network: 'timeout' } : { slow: err.timeout.kind };
  // APIConnectionTimeoutError is a subclass: a timeout is no response too.
  if (err instanceof APIConnectionTimeoutError) return { network: 'timeout' };
  if (err instanceof APIConnectionError) return { network: tlsProblem(err) ? 'tls' : (networkKindOf(err) ?? 'other') };
  // A streamed reply cut by the connection (reset, closed mid-reply) fails while it is read, not as a connection error.
  const network = networkKindOf(err);
  return network ? { network } : {};
}

/** The parts of a failure made from a client error: the table's decision, its details, the scrubbed cause. */
export function upstreamParts(
  err: unknown,
  secrets: readonly string[] = [],
): { facts: LlmFacts; decision: RetryDecision; details: UpstreamFailureDetails; cause: Error } {
  const facts = factsOf(err);
  const decision = decideRetry({ ...facts, nowMs: Date.now() });
  return { facts, decision, details: failureDetails('llm', facts, decision, facts.body, secrets), cause: scrubbedError(err, secrets) };
}

export function classifyLlmError(err: unknown, ctx: LlmErrorContext): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const secrets = ctx.secrets ?? [];
  const { facts, decision, details, cause } = upstreamParts(err, secrets);
  const wait = decision.retryAfterMs;
  return ApplicationFailure.create({
    type: TYPE_OF[decision.kind],
    message: withoutSecrets(messageOf(err, facts, decision.kind, ctx), secrets),
    nonRetryable: !decision.retryable,
    ...(wait !== undefined ? { nextRetryDelay: Math.max(wait, MIN_RETRY_DELAY_MS) } : {}),
    details: [details],
    cause,
  });
}

/** The failure's message: what happened and, where the user must act, the fix. */
function messageOf(err: unknown, facts: LlmFacts, kind: FailureKind, ctx: LlmErrorContext): string {
  const where = `${ctx.purpose} request to ${ctx.baseURL}`;
  const text = err instanceof Error ? err.message : String(err);
  if (err instanceof ProgressTimeoutError) {
    // The words of the limit that struck (src/domain/llm-timeouts.ts), and the setting to raise.
    if (err.timeout.kind === 'connect') return `LLM unavailable: ${ctx.purpose} request: ${text}`;
    return `${where}: ${text}; ${timeoutFix(err.timeout)}`;
  }
  if (facts.status !== undefined) {
    const s = facts.status;
    if (kind === 'outage' || kind === 'rate_limit') return `LLM unavailable: ${where} failed with HTTP ${s}: ${text}`;
    if (kind === 'access_rejected') return `${accessFix(s, ctx.baseURL)}. ${text}`;
    if (kind === 'bad_request') return `${where} was rejected with HTTP ${s}. ${text}`;
    return `${where} failed: ${text}`;
  }
  if (facts.network === 'tls') {
    const tls = err instanceof APIConnectionError ? tlsProblem(err) : undefined;
    return tls ? `${where} failed TLS (${tls.detail}): ${tls.fix}` : `${where} failed TLS: ${text}`;
  }
  if (facts.network !== undefined) {
    const cause = (err as { cause?: unknown }).cause;
    return `LLM unavailable: ${where} could not connect or timed out: ${text}${cause instanceof Error ? ` (${cause.message})` : ''}`;
  }
  return `${where} failed: ${text}`;
}

/**
 * The TLS failure behind a connection error, with the fix a user can apply: an https URL to a plain
 * HTTP server, or a certificate the worker does not trust. Undefined for any other connection error.
 */
export function tlsProblem(err: APIConnectionError): { detail: string; fix: string } | undefined {
  const restart = `restart the worker, then \`${RESUME}\``;
  // Duck-typed, not `instanceof Error`: the socket's error may come from another realm (a vm context).
  let c: unknown = err.cause;
  for (let depth = 0; typeof c === 'object' && c !== null && depth < 5; depth++) {
    const { code, message, cause } = c as { code?: unknown; message?: unknown; cause?: unknown };
    const text = typeof message === 'string' ? oneLine(message) : '';
    const certCode = typeof code === 'string' && !code.startsWith('ERR_SSL_') && networkKindOf({ code }) === 'tls';
    // The message as well as the code: the client copies an error from another realm without its code.
    if (certCode || /certificate/i.test(text)) {
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
