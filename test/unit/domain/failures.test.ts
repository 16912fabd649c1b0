// O2 / X10: the one retry table (src/domain/failures.ts), row by row: every status class, every
// header form the servers send (retry-after-ms, retry-after in seconds and as an HTTP date, GitHub's
// x-ratelimit-* and GitLab's ratelimit-*, x-should-retry), malformed headers, and the facts read
// from thrown errors (network kinds, a scrubbed cause, bounded secret-free details).
import {
  decideRetry,
  failureDetails,
  MAX_BODY_CHARS,
  MAX_SERVER_WAIT_MS,
  networkKindOf,
  scrubbedError,
  withoutSecrets,
  type NetworkErrorKind,
} from '../../../src/domain/failures';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const at = (status: number | undefined, headers?: Record<string, string>) => decideRetry({ status, headers, nowMs: NOW });

describe('O2 X10 the retry table: statuses', () => {
  it.each([
    [500, 'outage'],
    [502, 'outage'],
    [503, 'outage'],
    [504, 'outage'],
    [599, 'outage'],
    [408, 'outage'],
    [409, 'outage'],
    [429, 'rate_limit'],
  ] as const)('O2 HTTP %i: %s, retried (no wait given: Temporal backoff)', (status, kind) => {
    expect(at(status)).toEqual({ kind, retryable: true });
  });

  it.each([401, 403, 404, 407])('O2 HTTP %i: access rejected, needs the user, not retried', (status) => {
    expect(at(status)).toEqual({ kind: 'access_rejected', retryable: false });
  });

  it.each([400, 405, 410, 413, 415, 422, 451, 499])('O2 HTTP %i: a bad request, not retried', (status) => {
    expect(at(status)).toEqual({ kind: 'bad_request', retryable: false });
  });

  it.each([200, 204, 301, 304, 600, 999, 0, -1, 500.5, Number.NaN])(
    'O2 status %s is no HTTP failure the table knows: unexpected, retried',
    (status) => {
      expect(at(status)).toEqual({ kind: 'unexpected', retryable: true });
    },
  );

  it('O2 a 4xx with retry-after is still refused (nothing to wait for)', () => {
    expect(at(400, { 'retry-after': '5' })).toEqual({ kind: 'bad_request', retryable: false });
    expect(at(401, { 'retry-after': '5' })).toEqual({ kind: 'access_rejected', retryable: false });
  });
});

describe('O2 X10 the retry table: no response', () => {
  it.each(['refused', 'reset', 'timeout', 'dns', 'other'] as const)('O2 %s: an outage, retried', (network) => {
    expect(decideRetry({ network, nowMs: NOW })).toEqual({ kind: 'outage', retryable: true });
  });

  it('O2 TLS (an untrusted certificate, https to plain HTTP): access rejected, the user fixes it', () => {
    expect(decideRetry({ network: 'tls', nowMs: NOW })).toEqual({ kind: 'access_rejected', retryable: false });
  });

  it('O2 no facts at all (not an HTTP failure): unexpected, retried like a blip', () => {
    expect(decideRetry({ nowMs: NOW })).toEqual({ kind: 'unexpected', retryable: true });
  });
});

describe('O2 X10 the retry table: the wait the server asks for', () => {
  it('O2 retry-after in seconds (whole or decimal), with any spacing and header case', () => {
    expect(at(503, { 'retry-after': '7' })).toEqual({ kind: 'outage', retryable: true, retryAfterMs: 7000 });
    expect(at(429, { 'Retry-After': ' 1.5 ' })).toMatchObject({ retryAfterMs: 1500 });
    expect(at(429, { 'RETRY-AFTER': '0' })).toMatchObject({ retryAfterMs: 0 });
  });

  it('O2 retry-after as an HTTP date (IMF-fixdate, RFC 850, asctime); a past date is no wait', () => {
    expect(at(503, { 'retry-after': 'Sun, 01 Mar 2026 12:00:30 GMT' })).toMatchObject({ retryAfterMs: 30_000 });
    expect(at(503, { 'retry-after': 'Sunday, 01-Mar-26 12:01:00 GMT' })).toMatchObject({ retryAfterMs: 60_000 });
    expect(at(503, { 'retry-after': 'Sun Mar  1 12:00:10 2026' }).retryAfterMs).toBeDefined();
    expect(at(429, { 'retry-after': 'Sun, 01 Mar 2026 11:00:00 GMT' })).toMatchObject({ retryAfterMs: 0 });
  });

  it('O2 retry-after-ms (OpenAI) comes before retry-after', () => {
    expect(at(429, { 'retry-after-ms': '250', 'retry-after': '9' })).toMatchObject({ retryAfterMs: 250 });
    expect(at(500, { 'retry-after-ms': 'soon', 'retry-after': '2' })).toMatchObject({ retryAfterMs: 2000 });
  });

  it.each(['-5', 'soon', '', '   ', '1e3', '0x10', 'Infinity', 'NaN', '5 seconds', '12abc', '2026-03-01', '99999999999999999'])(
    'O2 a malformed retry-after (%j) is ignored: no wait, still retried',
    (v) => {
      expect(at(503, { 'retry-after': v })).toEqual({ kind: 'outage', retryable: true });
      expect(at(429, { 'retry-after-ms': v })).toEqual({ kind: 'rate_limit', retryable: true });
    },
  );

  it('O2 an absurd wait is read as a day at most', () => {
    expect(at(429, { 'retry-after': '999999999' })).toMatchObject({ retryAfterMs: MAX_SERVER_WAIT_MS });
    expect(at(503, { 'retry-after': 'Fri, 01 Jan 2100 00:00:00 GMT' })).toMatchObject({ retryAfterMs: MAX_SERVER_WAIT_MS });
  });

  it('X10 GitHub: a spent limit waits for x-ratelimit-reset (epoch seconds)', () => {
    const reset = String(NOW / 1000 + 42);
    expect(at(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset })).toEqual({
      kind: 'rate_limit',
      retryable: true,
      retryAfterMs: 42_000,
    });
    // A reset already past: try now.
    expect(at(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 - 5) })).toMatchObject({ retryAfterMs: 0 });
    // retry-after, when both are sent, is the nearer promise: it wins.
    expect(at(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset, 'retry-after': '3' })).toMatchObject({ retryAfterMs: 3000 });
  });

  it('X10 GitLab: ratelimit-reset (epoch seconds), any header case; a small reset is seconds from now', () => {
    expect(at(429, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(NOW / 1000 + 20) })).toMatchObject({ retryAfterMs: 20_000 });
    expect(at(429, { 'ratelimit-reset': '15' })).toMatchObject({ retryAfterMs: 15_000 });
  });

  it('X10 a reset beside remaining > 0 belongs to another limit: no wait from it', () => {
    expect(at(429, { 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(NOW / 1000 + 600) })).toEqual({
      kind: 'rate_limit',
      retryable: true,
    });
  });

  it('X10 a reset only counts for a rate limit (GitHub sends it on every answer, a 500 included)', () => {
    expect(at(500, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 600) })).toEqual({ kind: 'outage', retryable: true });
  });

  it.each(['soon', '-1', '', '1.2.3', 'Sun, 01 Mar 2026 12:00:30 GMT'])('X10 a malformed reset (%j) is ignored', (v) => {
    expect(at(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': v })).toEqual({ kind: 'rate_limit', retryable: true });
  });
});

describe('X10 GitHub 403: a rate limit or a refusal, by its headers', () => {
  const reset = String(NOW / 1000 + 30);
  it('X10 403 with x-ratelimit-remaining 0: a rate limit, waiting for its reset', () => {
    expect(at(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset })).toEqual({
      kind: 'rate_limit',
      retryable: true,
      retryAfterMs: 30_000,
    });
    expect(at(403, { 'x-ratelimit-remaining': '0' })).toEqual({ kind: 'rate_limit', retryable: true });
  });

  it('X10 403 with retry-after (a secondary rate limit): a rate limit, waiting that long', () => {
    expect(at(403, { 'retry-after': '60', 'x-ratelimit-remaining': '4000' })).toEqual({ kind: 'rate_limit', retryable: true, retryAfterMs: 60_000 });
  });

  it('X10 403 without rate-limit headers, or with remaining left, or a malformed retry-after: access rejected', () => {
    expect(at(403)).toEqual({ kind: 'access_rejected', retryable: false });
    expect(at(403, { 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': reset })).toEqual({ kind: 'access_rejected', retryable: false });
    expect(at(403, { 'x-ratelimit-remaining': 'zero' })).toEqual({ kind: 'access_rejected', retryable: false });
    expect(at(403, { 'retry-after': 'later' })).toEqual({ kind: 'access_rejected', retryable: false });
  });
});

describe('O2 x-should-retry: the server has the last word on retrying', () => {
  it('O2 false: a 5xx, 429 or no-facts failure is not retried (its kind stays)', () => {
    expect(at(503, { 'x-should-retry': 'false', 'retry-after': '5' })).toEqual({ kind: 'outage', retryable: false });
    expect(at(429, { 'X-Should-Retry': ' FALSE ' })).toEqual({ kind: 'rate_limit', retryable: false });
  });

  it('O2 true: a 4xx is retried, as an outage, with the wait it gives', () => {
    expect(at(400, { 'x-should-retry': 'true', 'retry-after': '2' })).toEqual({ kind: 'outage', retryable: true, retryAfterMs: 2000 });
    expect(at(401, { 'x-should-retry': 'true' })).toEqual({ kind: 'outage', retryable: true });
    expect(at(503, { 'x-should-retry': 'true' })).toEqual({ kind: 'outage', retryable: true });
  });

  it('O2 any other value is ignored', () => {
    expect(at(400, { 'x-should-retry': 'yes' })).toEqual({ kind: 'bad_request', retryable: false });
    expect(at(503, { 'x-should-retry': '0' })).toEqual({ kind: 'outage', retryable: true });
  });
});

describe('O2 X10 header sources', () => {
  it('O2 a fetch Headers, a record with array or number values, and undefined values read alike', () => {
    expect(decideRetry({ status: 429, headers: new Headers({ 'Retry-After': '4' }), nowMs: NOW })).toMatchObject({ retryAfterMs: 4000 });
    expect(decideRetry({ status: 429, headers: { 'retry-after': ['6', '9'] }, nowMs: NOW })).toMatchObject({ retryAfterMs: 6000 });
    expect(decideRetry({ status: 429, headers: { 'retry-after': 8 }, nowMs: NOW })).toMatchObject({ retryAfterMs: 8000 });
    expect(decideRetry({ status: 429, headers: { 'retry-after': undefined }, nowMs: NOW })).toEqual({ kind: 'rate_limit', retryable: true });
    expect(decideRetry({ status: 429, headers: { 'retry-after': { bad: 1 } }, nowMs: NOW })).toEqual({ kind: 'rate_limit', retryable: true });
  });
});

describe('O2 facts from thrown errors', () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'reset'],
    ['EPIPE', 'reset'],
    ['ERR_STREAM_PREMATURE_CLOSE', 'reset'],
    ['ETIMEDOUT', 'timeout'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['ERR_TLS_HANDSHAKE_TIMEOUT', 'timeout'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
  ] as [string, NetworkErrorKind][])('O2 code %s → %s, found down the cause chain', (code, kind) => {
    expect(networkKindOf(coded(code))).toBe(kind);
    expect(networkKindOf(new Error('fetch failed', { cause: new Error('wrapped', { cause: coded(code) }) }))).toBe(kind);
  });

  it("O2 a timeout signal's TimeoutError; nothing known: undefined (never read from the message)", () => {
    expect(networkKindOf(new DOMException('The operation timed out', 'TimeoutError'))).toBe('timeout');
    expect(networkKindOf(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBeUndefined();
    expect(networkKindOf('ECONNREFUSED')).toBeUndefined();
    expect(networkKindOf(undefined)).toBeUndefined();
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(networkKindOf(loop)).toBeUndefined();
  });
});

describe('O2 X10 S4 what a failure carries', () => {
  const SECRET = 'sk-test-SECRET-0123456789abcdef';

  it('S4 the cause is a copy: name, code, message, stack and causes, every secret replaced, nothing else', () => {
    const inner = Object.assign(new Error(`socket closed for Bearer ${SECRET}`), { code: 'ECONNRESET' });
    const outer = Object.assign(new Error(`request failed: ${SECRET}`, { cause: inner }), {
      name: 'RequestError',
      request: { headers: { authorization: `token ${SECRET}` } },
    });
    const copy = scrubbedError(outer, [SECRET]);
    expect(copy).toBeInstanceOf(Error);
    expect(copy.name).toBe('RequestError');
    expect(copy.message).toBe('request failed: [redacted]');
    expect(copy.stack).toContain('request failed: [redacted]');
    expect((copy.cause as Error & { code?: string }).code).toBe('ECONNRESET');
    expect((copy.cause as Error).message).toBe('socket closed for Bearer [redacted]');
    expect('request' in copy).toBe(false);
    expect(JSON.stringify([copy.message, copy.stack, (copy.cause as Error).stack])).not.toContain(SECRET);
    expect(scrubbedError('plain text', []).message).toBe('plain text');
  });

  it('O2 details: the table decision, status or network, the body on one line, clipped, secrets replaced', () => {
    const d = decideRetry({ status: 429, headers: { 'retry-after': '3' }, nowMs: NOW });
    const body = { error: { message: `rate limited for key ${SECRET}\n  try later`, pad: 'x'.repeat(2000) } };
    const details = failureDetails('llm', { status: 429 }, d, body, [SECRET]);
    expect(details).toMatchObject({ upstream: 'llm', kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 3000 });
    expect(details.body!.length).toBeLessThanOrEqual(MAX_BODY_CHARS);
    expect(details.body).toContain('rate limited for key [redacted]');
    expect(failureDetails('llm', { status: 500 }, d, 'line one\n\n  line two', []).body).toBe('line one line two');
    expect(JSON.stringify(details)).not.toContain(SECRET);
    expect(failureDetails('github', { network: 'refused' }, decideRetry({ network: 'refused', nowMs: NOW }), undefined, [])).toEqual({
      upstream: 'github',
      kind: 'outage',
      retryable: true,
      network: 'refused',
    });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(failureDetails('gitlab', { status: 500 }, decideRetry({ status: 500, nowMs: NOW }), circular, []).body).toBeUndefined();
  });

  it('S4 a secret cut by the clip leaves no part behind (replaced before clipping)', () => {
    const text = `${'a'.repeat(MAX_BODY_CHARS - 10)}${SECRET}`;
    const details = failureDetails('llm', { status: 500 }, decideRetry({ status: 500, nowMs: NOW }), text, [SECRET]);
    expect(details.body).not.toContain(SECRET.slice(0, 9));
    expect(withoutSecrets(`${SECRET}/${SECRET}`, [SECRET, ''])).toBe('[redacted]/[redacted]');
  });
});
