// The one retry table for every server the worker calls (the LLM server, GitHub, GitLab). From the
// facts of a failed request (its HTTP status, or why no response came, and the response's headers)
// to a decision: retry or not, how long the server asked us to wait, and the kind of trouble that
// the run's pause logic and the notifications act on. It reads statuses and headers,
// never message text: servers word their messages as they like.
//
// | facts                                                         | kind            | retry |
// | no response: refused, reset, timeout, DNS, other              | outage          | yes   |
// | connected, then too slow: no first token, stalled, total cap  | slow            | yes   |
// | no response: TLS (an untrusted certificate, https to http)    | access_rejected | no    |
// | 408, 409, 5xx                                                 | outage          | yes   |
// | 429; 403 with x-ratelimit-remaining: 0 or a retry-after       | rate_limit      | yes   |
// | 401, 403 (no rate-limit header), 404, 407                     | access_rejected | no    |
// | 400, 413, 422, any other 4xx                                  | bad_request     | no    |
// | no facts at all (not an HTTP failure), or a status < 400      | unexpected      | yes   |
// x-should-retry: true / false (sent by OpenAI-style servers) overrides the retry column; a retry it
// asks for on a 4xx makes the kind an outage. The wait: retry-after-ms, else retry-after (seconds or
// an HTTP date), else, for a rate limit whose remaining count is 0 or not given, its reset
// (x-ratelimit-reset on GitHub, ratelimit-reset on GitLab: epoch seconds, or seconds from now).
import { shortError } from './run/llm-outage';

/** What the trouble means for the caller: wait and retry, or tell the user. */
export type FailureKind = 'outage' | 'rate_limit' | 'access_rejected' | 'bad_request' | 'unexpected' | 'slow';

/** Which progress limit a connected request ran out of (src/domain/llm-timeouts.ts): the server is alive, not out. */
export type SlowKind = 'first_token' | 'stall' | 'total';

/** Why no response came. */
export type NetworkErrorKind = 'refused' | 'reset' | 'timeout' | 'dns' | 'tls' | 'other';

/** Response headers as the clients give them: a fetch Headers, or a plain record (any case of name). */
export type HeaderSource = { get(name: string): string | null } | Readonly<Record<string, unknown>>;

export interface UpstreamFacts {
  /** HTTP status; absent: no response came. */
  status?: number;
  /** Why no response came (when known). */
  network?: NetworkErrorKind;
  /** The request connected and then ran out of a progress limit (no status, no network failure). */
  slow?: SlowKind;
  headers?: HeaderSource;
  /** Now (epoch ms): HTTP dates and reset times are read against it. */
  nowMs: number;
}

export interface RetryDecision {
  kind: FailureKind;
  retryable: boolean;
  /** The wait the server asked for (only when retryable and the headers say). */
  retryAfterMs?: number;
}

/** A server's wait is believed up to a day; a longer (or absurd) one is read as a day. */
export const MAX_SERVER_WAIT_MS = 24 * 3_600_000;

const OUTAGE_STATUS = new Set([408, 409]);
const ACCESS_STATUS = new Set([401, 403, 404, 407]);

/** The retry table (see the file's head). */
export function decideRetry(f: UpstreamFacts): RetryDecision {
  let kind = kindOf(f);
  let retryable = kind === 'outage' || kind === 'rate_limit' || kind === 'unexpected' || kind === 'slow';
  const should = header(f.headers, 'x-should-retry')?.trim().toLowerCase();
  if (should === 'true' && !retryable) [kind, retryable] = ['outage', true];
  if (should === 'false') retryable = false;
  if (!retryable) return { kind, retryable };
  const wait = serverWaitMs(f.headers, kind, f.nowMs);
  return { kind, retryable, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
}

function kindOf(f: UpstreamFacts): FailureKind {
  const s = f.status;
  if (s === undefined) {
    if (f.slow !== undefined) return 'slow';
    if (f.network === undefined) return 'unexpected';
    return f.network === 'tls' ? 'access_rejected' : 'outage';
  }
  if (!Number.isInteger(s) || s < 400 || s > 599) return 'unexpected';
  if (s === 429 || (s === 403 && rateLimitSignalled(f.headers, f.nowMs))) return 'rate_limit';
  if (s >= 500 || OUTAGE_STATUS.has(s)) return 'outage';
  return ACCESS_STATUS.has(s) ? 'access_rejected' : 'bad_request';
}

/** GitHub answers a spent rate limit with a 403: remaining 0, or (secondary limits) a retry-after. */
function rateLimitSignalled(h: HeaderSource | undefined, nowMs: number): boolean {
  return remaining(h) === 0 || retryAfterMs(header(h, 'retry-after'), nowMs) !== undefined;
}

function remaining(h: HeaderSource | undefined): number | undefined {
  return seconds(header(h, 'x-ratelimit-remaining') ?? header(h, 'ratelimit-remaining'));
}

function serverWaitMs(h: HeaderSource | undefined, kind: FailureKind, nowMs: number): number | undefined {
  const ms = seconds(header(h, 'retry-after-ms'));
  const wait = ms ?? retryAfterMs(header(h, 'retry-after'), nowMs) ?? (kind === 'rate_limit' ? resetWaitMs(h, nowMs) : undefined);
  return wait === undefined ? undefined : Math.min(MAX_SERVER_WAIT_MS, Math.max(0, Math.round(wait)));
}

/** retry-after: delay-seconds, or an HTTP date (all three forms start with the day's name). */
function retryAfterMs(v: string | undefined, nowMs: number): number | undefined {
  const s = seconds(v);
  if (s !== undefined) return s * 1000;
  if (v === undefined || !/^\s*[A-Za-z]{3}/.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isFinite(at) ? at - nowMs : undefined;
}

/** A reset only counts when the limit is spent (a reset beside remaining > 0 is another limit's). */
function resetWaitMs(h: HeaderSource | undefined, nowMs: number): number | undefined {
  const left = remaining(h);
  if (left !== undefined && left > 0) return undefined;
  const reset = seconds(header(h, 'x-ratelimit-reset') ?? header(h, 'ratelimit-reset'));
  if (reset === undefined) return undefined;
  // Epoch seconds (GitHub, GitLab) are past 2001; a smaller number is seconds from now (IETF draft).
  return reset >= 1e9 ? reset * 1000 - nowMs : reset * 1000;
}

/** A non-negative decimal number of seconds (or ms); anything else (signs, exponents, words) is malformed. */
function seconds(v: string | undefined): number | undefined {
  const t = v?.trim();
  if (!t || !/^\d{1,15}(\.\d{1,9})?$/.test(t)) return undefined;
  return Number(t);
}

/** One header's value, whatever the source's case or form (an array: its first value). */
function header(h: HeaderSource | undefined, name: string): string | undefined {
  if (!h) return undefined;
  if (typeof h.get === 'function') {
    const v: unknown = (h as { get(n: string): unknown }).get(name);
    return typeof v === 'string' ? v : undefined;
  }
  const record = h as Readonly<Record<string, unknown>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : record[key];
  const first: unknown = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : typeof first === 'number' && Number.isFinite(first) ? String(first) : undefined;
}

// ---------------------------------------------------------------- facts from a thrown error

const NETWORK_CODES: Readonly<Record<string, NetworkErrorKind>> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  ERR_STREAM_PREMATURE_CLOSE: 'reset',
  UND_ERR_SOCKET: 'reset',
  ETIMEDOUT: 'timeout',
  ESOCKETTIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ERR_TLS_HANDSHAKE_TIMEOUT: 'timeout',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
};

/** Node's codes for a certificate the caller does not trust (or that does not name the host). */
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
 * Why a request got no response, from the error codes (and a timeout's name) along the error's
 * cause chain; undefined when none says. Duck-typed: an error may come from another realm.
 */
export function networkKindOf(err: unknown): NetworkErrorKind | undefined {
  let c: unknown = err;
  for (let depth = 0; typeof c === 'object' && c !== null && depth < 6; depth++) {
    const { name, cause } = c as { name?: unknown; cause?: unknown };
    const code = ownCode(c);
    if (typeof code === 'string') {
      // OpenSSL's ERR_SSL_* (wrong version number: https to a plain HTTP server) is configuration too.
      if (CERT_CODES.has(code) || code.startsWith('ERR_SSL_')) return 'tls';
      const kind = NETWORK_CODES[code];
      if (kind) return kind;
    }
    if (name === 'TimeoutError') return 'timeout';
    c = cause;
  }
  return undefined;
}

// ---------------------------------------------------------------- what a failure carries

/** The structured part of an upstream failure (an ApplicationFailure's details): no secret in it. */
export interface UpstreamFailureDetails {
  /** Who answered: 'llm', 'github', 'gitlab'. */
  upstream: string;
  kind: FailureKind;
  retryable: boolean;
  status?: number;
  network?: NetworkErrorKind;
  slow?: SlowKind;
  retryAfterMs?: number;
  /** The response's body, on one line, clipped, secrets replaced. */
  body?: string;
}

/** Bodies are kept short: a failure lives in the history and in `status`. */
export const MAX_BODY_CHARS = 500;

export function failureDetails(
  upstream: string,
  facts: Pick<UpstreamFacts, 'status' | 'network' | 'slow'>,
  decision: RetryDecision,
  body: unknown,
  secrets: readonly string[],
): UpstreamFailureDetails {
  const text = bodyText(body);
  return {
    upstream,
    kind: decision.kind,
    retryable: decision.retryable,
    ...(facts.status !== undefined ? { status: facts.status } : {}),
    ...(facts.network !== undefined ? { network: facts.network } : {}),
    ...(facts.slow !== undefined ? { slow: facts.slow } : {}),
    ...(decision.retryAfterMs !== undefined ? { retryAfterMs: decision.retryAfterMs } : {}),
    ...(text ? { body: shortError(withoutSecrets(text, secrets), MAX_BODY_CHARS) } : {}),
  };
}

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null || body === '') return undefined;
  if (typeof body === 'string') return body;
  try {
    return JSON.stringify(body);
  } catch {
    return undefined; // circular, or a BigInt: nothing to show
  }
}

/** Every secret value replaced (before any clipping, so no part of one survives a cut). */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}

/**
 * A copy of `err` to keep as a failure's cause: its name, code, message and stack (secrets
 * replaced) and its causes, nothing else. The original may hold its request, whose headers carry
 * the token, and the cause travels into the workflow's history.
 */
export function scrubbedError(err: unknown, secrets: readonly string[], depth = 0): Error {
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as Record<string, unknown>;
  const copy = new Error(withoutSecrets(typeof e.message === 'string' ? e.message : String(err), secrets));
  // The class's name where the error's says only "Error" (the openai client's classes do).
  const ctor = (e.constructor as { name?: unknown } | undefined)?.name;
  const name = e.name === 'Error' && typeof ctor === 'string' && ctor !== 'Object' ? ctor : e.name;
  if (typeof name === 'string' && name) copy.name = name;
  copy.stack = typeof e.stack === 'string' ? withoutSecrets(e.stack, secrets) : `${copy.name}: ${copy.message}`;
  const code = ownCode(e);
  if (code !== undefined) Object.assign(copy, { code });
  if (e.cause !== undefined && e.cause !== null && depth < 4) copy.cause = scrubbedError(e.cause, secrets, depth + 1);
  return copy;
}

/** An error's code held as a value (a getter may warn: @octokit's deprecated `code`). */
function ownCode(e: object): string | undefined {
  const v: unknown = Object.getOwnPropertyDescriptor(e, 'code')?.value;
  return typeof v === 'string' ? v : undefined;
}
