// Issue 11 / O2: the worker's HTTP transport for the OpenAI client (src/llm/http-transport.ts)
// against a real local HTTP server: what fetch would do with compressed and redirected replies, the
// failures the error mapping relies on (refused, cut off, aborted, timed out), and kept-alive sockets.
// Every FakeOpenAI scenario also runs through it (fake-openai.test.ts).
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import OpenAI, { APIConnectionError, APIUserAbortError } from 'openai';
import { classifyLlmError, LLM_ACCESS_REJECTED, LLM_UNAVAILABLE } from '../../src/llm/errors';
import { httpTransport } from '../../src/llm/http-transport';
import { rejection } from '../support/promises';

const completion = (content: string) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });

let server: http.Server;
let base: string;
let connections = 0;
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;

beforeAll(async () => {
  server = http.createServer((req, res) => handler(req, res));
  server.on('connection', () => (connections += 1));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = (opts: { timeout?: number } = {}) => new OpenAI({ apiKey: 'k', baseURL: base, maxRetries: 0, fetch: httpTransport, ...opts });
const ask = (c = client(), signal?: AbortSignal) =>
  c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal });

describe('httpTransport', () => {
  it('sends the body and headers; decodes a gzip reply; keeps one connection alive for several requests', async () => {
    const seen: { body: string; auth?: string; type?: string }[] = [];
    handler = (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ body, auth: req.headers.authorization, type: req.headers['content-type'] });
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-request-id': 'req-1' });
        res.end(zlib.gzipSync(completion('zipped')));
      });
    };
    const before = connections;
    const c = client();
    for (let i = 0; i < 3; i += 1) {
      const r = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `n${i}` }] }).withResponse();
      expect(r.data.choices[0]?.message.content).toBe('zipped');
      expect(r.request_id).toBe('req-1');
    }
    expect(connections - before).toBe(1);
    expect(seen).toHaveLength(3);
    expect(JSON.parse(seen[2]!.body)).toMatchObject({ model: 'm', messages: [{ role: 'user', content: 'n2' }] });
    expect(seen[0]).toMatchObject({ auth: 'Bearer k', type: 'application/json' });
  });

  it('follows a redirect as fetch does (method and body kept for 307)', async () => {
    handler = (req, res) => {
      if (req.url === '/v1/chat/completions') {
        res.writeHead(307, { location: '/moved/chat/completions' });
        res.end();
        return;
      }
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(completion(`${req.method} ${JSON.parse(body).messages[0].content}`));
      });
    };
    expect((await ask()).choices[0]?.message.content).toBe('POST hi');
  });

  it('O2: a refused connection is a connection error that names the cause, classified as the LLM being unavailable', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const c = new OpenAI({ apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0, fetch: httpTransport });
    const err = await rejection(ask(c));
    expect(err).toBeInstanceOf(APIConnectionError);
    const failure = classifyLlmError(err, { purpose: 'judge', baseURL: 'http://x' });
    expect(failure.type).toBe(LLM_UNAVAILABLE);
    expect(failure.message).toContain('ECONNREFUSED');
    // The socket's code survives the client (even from another realm): the retry table's fact.
    expect(failure.details?.[0]).toMatchObject({ kind: 'outage', network: 'refused' });
  });

  it('O2: a reply cut off mid-body is a connection error, never a truncated answer', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write(completion('cut').slice(0, 40));
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const err = await rejection(ask());
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(classifyLlmError(err, { purpose: 'judge', baseURL: 'http://x' }).details?.[0]).toMatchObject({ kind: 'outage', network: 'reset' });
  });

  it("an abort by the caller is the client's user abort; a slow server past the timeout is a connection error", async () => {
    handler = (_req, res) => {
      setTimeout(() => {
        if (!res.destroyed) res.end(completion('late'));
      }, 5000).unref();
    };
    const ac = new AbortController();
    const pending = rejection(ask(client(), ac.signal));
    setTimeout(() => ac.abort(), 50);
    expect(await pending).toBeInstanceOf(APIUserAbortError);
    // The client's own timeout aborts the transport's request (APIConnectionTimeoutError outside
    // jest; under jest the abort's DOMException may come from another realm: accept the base class).
    const t0 = Date.now();
    expect(await rejection(ask(client({ timeout: 150 })))).toBeInstanceOf(APIConnectionError);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('speaks TLS to an https base URL (a plain HTTP server there is a connection error naming the TLS failure)', async () => {
    handler = (_req, res) => res.end(completion('plain'));
    const c = new OpenAI({ apiKey: 'k', baseURL: base.replace('http:', 'https:'), maxRetries: 0, fetch: httpTransport });
    const err = await rejection(ask(c));
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(String((err as APIConnectionError).cause)).toMatch(/SSL|TLS|EPROTO|wrong version/i);
    // O2: the worker's configuration, not an outage: no probing; the fix is named (http://).
    const failure = classifyLlmError(err, { purpose: 'judge', baseURL: 'https://x' });
    expect(failure.type).toBe(LLM_ACCESS_REJECTED);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/failed TLS .*use http:\/\/ in OPENAI_BASE_URL.*replanner resume/);
    expect(failure.details?.[0]).toMatchObject({ kind: 'access_rejected', retryable: false, network: 'tls' });
  });

  it('O2: a certificate the worker does not trust is a configuration error naming NODE_EXTRA_CA_CERTS, not an outage', async () => {
    const dir = path.join(__dirname, '../fixtures/tls');
    const tls = https.createServer(
      { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) },
      (_req, res) => res.end(completion('secure')),
    );
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    try {
      const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/v1`;
      const err = await rejection(ask(new OpenAI({ apiKey: 'k', baseURL: url, maxRetries: 0, fetch: httpTransport })));
      expect(err).toBeInstanceOf(APIConnectionError);
      const failure = classifyLlmError(err, { purpose: 'judge', baseURL: url });
      expect(failure.type).toBe(LLM_ACCESS_REJECTED);
      // Node's code, kept by the transport across realms, and its message.
      expect(failure.message).toContain('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate');
      expect(failure.details?.[0]).toMatchObject({ kind: 'access_rejected', network: 'tls' });
      expect(failure.message).toContain('NODE_EXTRA_CA_CERTS');
      // A refused connection stays an outage (probed, the run resumes by itself).
      const refused = await rejection(ask(new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:1/v1', maxRetries: 0, fetch: httpTransport })));
      expect(classifyLlmError(refused, { purpose: 'judge', baseURL: 'http://127.0.0.1:1' }).type).toBe(LLM_UNAVAILABLE);
    } finally {
      tls.closeAllConnections();
      await new Promise((r) => tls.close(r));
    }
  });

  it('gives anything but a plain request to the global fetch', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('via fetch');
    };
    const r = await httpTransport(new Request(`${base}/x`));
    expect(await r.text()).toBe('via fetch');
  });
});
