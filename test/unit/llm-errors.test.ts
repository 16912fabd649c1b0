// O2 / S4: the failures the LLM gateway throws, from a real local HTTP server through the real
// openai client and transport: decided by the retry table from status and headers (not message
// text), with the upstream's status and body in the details, the client's error as the cause, the
// server's wait as the next retry delay, and the API key nowhere in what Temporal would record.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure, defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { classifyLlmError, LLM_ACCESS_REJECTED, LLM_REJECTED, LLM_RETRYABLE, LLM_UNAVAILABLE, LLM_UNSUPPORTED } from '../../src/llm/errors';
import { LlmGateway } from '../../src/llm/gateway';
import { TOOL_DEFINITIONS } from '../../src/activities/tools';
import type { UpstreamFailureDetails } from '../../src/domain/failures';
import { llmTroubleOf } from '../../src/domain/run/llm-outage';
import { rejection } from '../support/promises';

const KEY = 'sk-unit-SECRET-key-0123456789abcdef';

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}
let answer: (req: http.IncomingMessage) => Answer;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const a = answer(req);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const gateway = (baseURL = base) => new LlmGateway({ apiKey: KEY, baseURL, model: 'm', timeoutMs: 5000 });
const fail = async (a: Answer | ((req: http.IncomingMessage) => Answer), baseURL?: string): Promise<ApplicationFailure> => {
  answer = typeof a === 'function' ? a : () => a;
  const err = await rejection(gateway(baseURL).chat({ purpose: 'judge', messages: [{ role: 'user', content: 'hi' }] }));
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
};
const details = (f: ApplicationFailure) => f.details?.[0] as UpstreamFailureDetails;
const apiError = (message: string, extra: Record<string, unknown> = {}) => ({ error: { message, type: 'server_error', ...extra } });

/** The failure as Temporal records it (history, worker log): every payload decoded to text. */
function recorded(f: ApplicationFailure): string {
  const proto = defaultFailureConverter.errorToFailure(f, defaultPayloadConverter);
  return JSON.stringify(proto, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v));
}

describe('O2 LLM failures carry structure', () => {
  it('O2 a 503 with retry-after: LlmUnavailable, Temporal waits that long, the status and body in the details, the client error as cause', async () => {
    const f = await fail({ status: 503, headers: { 'retry-after': '3' }, body: apiError('overloaded, come back later') });
    expect(f.type).toBe(LLM_UNAVAILABLE);
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe(3000);
    expect(f.message).toContain('LLM unavailable: judge request to');
    expect(f.message).toContain('HTTP 503');
    expect(details(f)).toMatchObject({ upstream: 'llm', kind: 'outage', retryable: true, status: 503, retryAfterMs: 3000 });
    expect(details(f).body).toContain('overloaded, come back later');
    expect(f.cause).toBeInstanceOf(Error);
    expect(f.cause?.name).toBe('InternalServerError');
    expect(f.cause?.message).toContain('overloaded');
    expect(llmTroubleOf(f.type ?? undefined)).toBe('unavailable');
  });

  it('O2 the same message text under another status decides nothing: a 400 saying "overloaded" is a bad request', async () => {
    const f = await fail({ status: 400, body: apiError('overloaded, service unavailable, try again') });
    expect(f.type).toBe(LLM_REJECTED);
    expect(f.nonRetryable).toBe(true);
    expect(details(f)).toMatchObject({ kind: 'bad_request', retryable: false, status: 400 });
  });

  it('O2 x-should-retry: false on a 503: not retried by Temporal, still an outage for the run (it pauses and probes)', async () => {
    const f = await fail({ status: 503, headers: { 'x-should-retry': 'false' }, body: apiError('down') });
    expect(f.type).toBe(LLM_UNAVAILABLE);
    expect(f.nonRetryable).toBe(true);
    expect(details(f)).toMatchObject({ kind: 'outage', retryable: false });
  });

  it('O2 x-should-retry: true on a 400: retried, as an outage', async () => {
    const f = await fail({ status: 400, headers: { 'x-should-retry': 'true', 'retry-after-ms': '250' }, body: apiError('try again') });
    expect(f.type).toBe(LLM_UNAVAILABLE);
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe(250);
  });

  it('O2 a 429 that asks for no wait still leaves a short one; a 403 with a spent rate limit is a rate limit, not a rejected key', async () => {
    expect((await fail({ status: 429, headers: { 'retry-after': '0' }, body: apiError('slow down') })).nextRetryDelay).toBe(100);
    const reset = String(Math.ceil(Date.now() / 1000) + 30);
    const f = await fail({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, body: apiError('quota') });
    expect(f.type).toBe(LLM_UNAVAILABLE);
    expect(details(f)).toMatchObject({ kind: 'rate_limit', status: 403 });
    expect(f.nextRetryDelay).toBeGreaterThan(25_000);
    const plain = await fail({ status: 403, body: apiError('no access to this model') });
    expect(plain.type).toBe(LLM_ACCESS_REJECTED);
    expect(plain.message).toContain('OPENAI_API_KEY rejected by');
  });

  it('O2 no response: the network kind in the details (a refused connection: an outage)', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const f = await fail({ status: 200 }, `http://127.0.0.1:${port}/v1`);
    expect(f.type).toBe(LLM_UNAVAILABLE);
    expect(f.message).toContain('ECONNREFUSED');
    expect(details(f)).toEqual({ upstream: 'llm', kind: 'outage', retryable: true, network: 'refused' });
  });

  it('O2 not an HTTP failure at all (a bug, a client surprise): unexpected, retried like a blip, never a pause', () => {
    const f = classifyLlmError(new TypeError('boom'), { purpose: 'judge', baseURL: base });
    expect(f.type).toBe(LLM_RETRYABLE);
    expect(f.nonRetryable).toBe(false);
    expect(details(f)).toEqual({ upstream: 'llm', kind: 'unexpected', retryable: true });
    expect(f.cause?.name).toBe('TypeError');
    expect(llmTroubleOf(f.type ?? undefined)).toBeUndefined();
  });

  it('M1 a server that rejects tool calling: LlmUnsupported keeps the rejection as cause and its status in the details', async () => {
    const f = await (async () => {
      answer = () => ({ status: 400, body: apiError('tools are not supported by this server') });
      const err = await rejection(gateway().chat({ purpose: 'worker_step', messages: [{ role: 'user', content: 'hi' }], tools: TOOL_DEFINITIONS }));
      return err as ApplicationFailure;
    })();
    expect(f.type).toBe(LLM_UNSUPPORTED);
    expect(details(f)).toMatchObject({ upstream: 'llm', status: 400 });
    expect(f.cause?.name).toBe('BadRequestError');
  });
});

describe('S4 no API key in any failure', () => {
  it.each([401, 403, 404, 422, 500, 503])(
    'S4 HTTP %i whose body echoes the Authorization header: the key is in no message, detail or cause',
    async (status) => {
      const f = await fail((req) => ({
        status,
        headers: { 'x-echo': String(req.headers.authorization) },
        body: apiError(`bad request for ${String(req.headers.authorization)}`, { key: KEY }),
      }));
      const text = recorded(f);
      expect(text).toContain(String(status));
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(0, 20));
    },
  );

  it('S4 a tool-calling rejection that echoes the key: not in the LlmUnsupported failure either', async () => {
    answer = (req) => ({ status: 400, body: apiError(`tools are not supported (${String(req.headers.authorization)})`) });
    const err = await rejection(gateway().chat({ purpose: 'worker_step', messages: [{ role: 'user', content: 'hi' }], tools: TOOL_DEFINITIONS }));
    expect((err as ApplicationFailure).type).toBe(LLM_UNSUPPORTED);
    expect(recorded(err as ApplicationFailure)).not.toContain(KEY);
  });
});
