import OpenAI, { APIError, APIConnectionError } from 'openai';
import { httpTransport } from '../../src/llm/http-transport';
import { FakeOpenAI, lastUserMessage, type RecordedRequest } from '../support/fake-openai';
import { rejection } from '../support/promises';

// The fake is shared by every workflow test and the offline demo; these tests pin
// down that the real `openai` v6 client sees it exactly like the real API. Each runs twice: with the
// client's own fetch and with the worker's transport (src/llm/http-transport.ts), which must keep
// every answer and every failure the same.
let transport: { fetch?: typeof httpTransport } = {};

function client(fake: FakeOpenAI, purpose = 'judge', opts: { timeout?: number } = {}): OpenAI {
  return new OpenAI({
    apiKey: 'test',
    baseURL: fake.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-replanner-purpose': purpose },
    ...transport,
    ...opts,
  });
}

function ask(c: OpenAI, text = 'hello') {
  return c.chat.completions.create({ model: 'test-model', messages: [{ role: 'user', content: text }] });
}

describe.each([
  ["the client's fetch", {}],
  ['httpTransport', { fetch: httpTransport }],
])('FakeOpenAI through %s', (_name, t) => {
  let fake: FakeOpenAI;
  beforeAll(() => {
    transport = t;
  });

  beforeEach(async () => {
    fake = await FakeOpenAI.start({ logUnscripted: false });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test('listens on a random 127.0.0.1 port with a /v1 baseURL', () => {
    expect(fake.port).toBeGreaterThan(0);
    expect(fake.baseURL).toBe(`http://127.0.0.1:${fake.port}/v1`);
  });

  test('json reply becomes stringified assistant content with usage and model', async () => {
    fake.script('judge', { json: { verdict: 'pass', score: 0.9 } });
    const r = await ask(client(fake), 'judge this');
    expect(r.object).toBe('chat.completion');
    expect(r.id).toMatch(/^chatcmpl-\d+$/);
    expect(r.model).toBe('test-model');
    expect(r.choices[0]?.finish_reason).toBe('stop');
    expect(JSON.parse(r.choices[0]?.message.content ?? '')).toEqual({ verdict: 'pass', score: 0.9 });
    expect(r.usage?.prompt_tokens).toBe(Math.ceil('judge this'.length / 4));
    expect(r.usage?.completion_tokens).toBeGreaterThan(0);
    expect(r.usage?.total_tokens).toBe((r.usage?.prompt_tokens ?? 0) + (r.usage?.completion_tokens ?? 0));
  });

  test('raw content is passed through untouched', async () => {
    const fenced = '```json\n{"ok":true}\n```';
    fake.script('judge', { content: fenced }, { content: '{not json' });
    const c = client(fake);
    expect((await ask(c)).choices[0]?.message.content).toBe(fenced);
    expect((await ask(c)).choices[0]?.message.content).toBe('{not json');
  });

  test('tool calls: object arguments stringified, string arguments kept, finish_reason tool_calls', async () => {
    fake.script('worker_step', {
      toolCalls: [
        { name: 'search', arguments: { q: 'temporal' } },
        { name: 'raw', arguments: '{"broken":' },
      ],
    });
    const r = await ask(client(fake, 'worker_step'));
    const choice = r.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const calls = (choice?.message.tool_calls ?? []).map((c) => {
      if (c.type !== 'function') throw new Error('expected a function tool call');
      return { id: c.id, name: c.function.name, args: c.function.arguments };
    });
    expect(calls.map((c) => [c.name, c.args])).toEqual([
      ['search', '{"q":"temporal"}'],
      ['raw', '{"broken":'],
    ]);
    expect(calls[0]?.id).toMatch(/^call_\d+$/);
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
  });

  test('429 with retry-after surfaces as APIError with status and header', async () => {
    fake.script('judge', { status: 429, message: 'slow down', headers: { 'retry-after': '1' } });
    const err = await rejection(ask(client(fake)));
    expect(err).toBeInstanceOf(APIError);
    const e = err as APIError;
    expect(e.status).toBe(429);
    expect(e.headers?.get('retry-after')).toBe('1');
    expect(e.message).toContain('slow down');
    expect(e.code).toBe('rate_limit_exceeded');
    expect(fake.requestsFor('judge')[0]?.status).toBe(429);
  });

  test('500 surfaces as APIError with status 500', async () => {
    fake.script('judge', { status: 500 });
    const err = await rejection(ask(client(fake)));
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(500);
    expect(fake.successfulFor('judge')).toHaveLength(0);
  });

  test('hang exceeds the client timeout; the request is closed out and stop() returns', async () => {
    fake.script('judge', { hangMs: 60_000 });
    const err = await rejection(ask(client(fake, 'judge', { timeout: 200 })));
    // Outside jest this is an APIConnectionTimeoutError. Under jest the abort's DOMException
    // comes from another realm, so the client cannot recognise it and reports the base
    // APIConnectionError ("Connection error.") instead; accept either.
    expect(err).toBeInstanceOf(APIConnectionError);
    const [rec] = fake.requestsFor('judge');
    expect(rec?.status).toBeUndefined();
    // The client's abort closes the socket, which ends the wait on our side too.
    await waitFor(() => rec?.finishedAt !== undefined);
    await fake.stop(); // must not wait for the 60 s timer (jest would time out)
  });

  test('stop() releases a request that is still hanging', async () => {
    fake.script('judge', { hangMs: 60_000 });
    const pending = rejection(ask(client(fake)));
    await waitFor(() => fake.requests.length === 1);
    await fake.stop();
    expect(await pending).toBeInstanceOf(Error);
    expect(fake.requests[0]?.finishedAt).toBeDefined();
    expect(fake.requests[0]?.status).toBeUndefined();
  });

  test('hang then a real reply', async () => {
    fake.script('judge', { hangMs: 20, then: { json: { late: true } } });
    const r = await ask(client(fake));
    expect(JSON.parse(r.choices[0]?.message.content ?? '')).toEqual({ late: true });
  });

  test('delayed replies overlap: maxConcurrency is 2 for two parallel calls, 1 when sequential', async () => {
    fake.script('worker_step', { delayMs: 150, then: { json: 1 } }, { delayMs: 150, then: { json: 2 } });
    const c = client(fake, 'worker_step');
    const results = await Promise.all([ask(c, 'a'), ask(c, 'b')]);
    expect(results.map((r) => JSON.parse(r.choices[0]?.message.content ?? '')).sort()).toEqual([1, 2]);
    expect(fake.maxConcurrency('worker_step')).toBe(2);
    expect(fake.maxConcurrency()).toBe(2);

    fake.always('judge', { delayMs: 10, then: { json: 'ok' } });
    const j = client(fake, 'judge');
    await ask(j);
    await ask(j);
    expect(fake.maxConcurrency('judge')).toBe(1);
    expect(fake.maxConcurrency('nothing')).toBe(0);
  });

  test('function responders see the recorded request; FIFO queue, then always(), then fallback()', async () => {
    const seen: RecordedRequest[] = [];
    fake
      .script(
        'goal_understanding',
        (req) => {
          seen.push(req);
          return { json: { echo: lastUserMessage(req) } };
        },
        { content: 'second' },
      )
      .always('goal_understanding', { content: 'default' })
      .fallback((req) => (req.purpose === 'other' ? { content: `fallback:${req.purpose}` } : undefined));

    const c = client(fake, 'goal_understanding');
    const r1 = await c.chat.completions.create({
      model: 'm',
      messages: [
        { role: 'system', content: 'You are a planner.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Build a' },
            { type: 'text', text: 'thing' },
          ],
        },
      ],
    });
    expect(JSON.parse(r1.choices[0]?.message.content ?? '')).toEqual({ echo: 'Build a\nthing' });
    expect(seen[0]?.purpose).toBe('goal_understanding');
    expect(seen[0]?.body.model).toBe('m');
    expect(seen[0]?.headers['x-replanner-purpose']).toBe('goal_understanding');
    expect(seen[0]?.messages).toEqual([
      { role: 'system', content: 'You are a planner.' },
      { role: 'user', content: 'Build a\nthing' },
    ]);
    expect(seen[0]?.text).toBe('You are a planner.\nBuild a\nthing');

    expect((await ask(c)).choices[0]?.message.content).toBe('second');
    expect((await ask(c)).choices[0]?.message.content).toBe('default');
    expect((await ask(c)).choices[0]?.message.content).toBe('default');
    expect((await ask(client(fake, 'other'))).choices[0]?.message.content).toBe('fallback:other');
    expect(fake.remaining()).toBe(0);
  });

  test('requestsFor / successfulFor / requests record everything in order, including failures', async () => {
    fake.script('judge', { status: 503 }, { json: true });
    fake.script('worker_step', { content: 'x' });
    const j = client(fake, 'judge');
    await rejection(ask(j, 'one'));
    await ask(j, 'two');
    await ask(client(fake, 'worker_step'), 'three');

    expect(fake.requests.map((r) => [r.seq, r.purpose, r.status])).toEqual([
      [1, 'judge', 503],
      [2, 'judge', 200],
      [3, 'worker_step', 200],
    ]);
    expect(fake.requestsFor('judge').map(lastUserMessage)).toEqual(['one', 'two']);
    expect(fake.successfulFor('judge').map(lastUserMessage)).toEqual(['two']);
    for (const r of fake.requests) {
      expect(r.finishedAt).toBeGreaterThanOrEqual(r.startedAt);
    }
  });

  test('reset clears scripts, defaults, fallback and recorded requests', async () => {
    fake
      .script('judge', { content: 'queued' })
      .always('judge', { content: 'default' })
      .fallback(() => ({ content: 'fb' }));
    await ask(client(fake));
    const requests = fake.requests;
    fake.reset();
    expect(fake.requests).toHaveLength(0);
    expect(fake.requests).toBe(requests);
    expect(fake.remaining()).toBe(0);
    const err = await rejection(ask(client(fake)));
    expect((err as APIError).status).toBe(400);
  });

  test('unscripted purpose is a non-retryable 400 naming the purpose', async () => {
    const err = await rejection(ask(client(fake, 'replan')));
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(400);
    expect((err as APIError).message).toContain('fake-openai: no scripted reply for purpose "replan"');
    expect(fake.requestsFor('replan')).toHaveLength(1);
  });

  test('logUnscripted (default on) reports the missing purpose on console.error', async () => {
    const loud = await FakeOpenAI.start();
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await rejection(ask(client(loud, 'replan')));
      expect(spy).toHaveBeenCalledWith('fake-openai: no scripted reply for purpose "replan"');
    } finally {
      spy.mockRestore();
      await loud.stop();
    }
  });

  test('missing purpose header is a 400', async () => {
    const c = new OpenAI({ apiKey: 'test', baseURL: fake.baseURL, maxRetries: 0, ...transport });
    const err = await rejection(ask(c));
    expect((err as APIError).status).toBe(400);
    expect((err as APIError).message).toContain('missing x-replanner-purpose header');
  });

  test('GET /v1/models lists models; unknown routes are 404; /chat/completions without /v1 works', async () => {
    const models = await client(fake).models.list();
    expect(models.data.length).toBeGreaterThan(0);

    const notFound = await fetch(`http://127.0.0.1:${fake.port}/v1/nope`);
    expect(notFound.status).toBe(404);

    fake.script('judge', { json: { ok: 1 } });
    const res = await fetch(`http://127.0.0.1:${fake.port}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-replanner-purpose': 'judge' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('{"ok":1}');
  });

  test('a throwing responder becomes a 500 carrying its message', async () => {
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      fake.script('judge', () => {
        throw new Error('boom');
      });
      const err = await rejection(ask(client(fake)));
      expect((err as APIError).status).toBe(500);
      expect((err as APIError).message).toContain('boom');
    } finally {
      spy.mockRestore();
    }
  });

  test('O2 refuseConnections: the client sees a connection error (a request in flight too); acceptConnections serves again on the same port', async () => {
    fake.always('judge', { json: { ok: true } });
    fake.script('slow', { hangMs: 10_000, then: { json: { late: true } } });
    const inFlight = rejection(ask(client(fake, 'slow')));
    await waitFor(() => fake.requestsFor('slow').length === 1);
    await fake.refuseConnections();
    expect(fake.refusingConnections).toBe(true);
    expect(await inFlight).toBeInstanceOf(APIConnectionError);
    expect(await rejection(ask(client(fake)))).toBeInstanceOf(APIConnectionError);
    await fake.acceptConnections();
    expect(fake.refusingConnections).toBe(false);
    expect(fake.baseURL).toBe(`http://127.0.0.1:${fake.port}/v1`);
    const r = await ask(client(fake));
    expect(r.choices[0]?.message.content).toBe('{"ok":true}');
  });

  test('O2 refuseConnectionsFor(ms) refuses for that long, then listens again by itself', async () => {
    fake.always('judge', { json: { ok: true } });
    const t0 = Date.now();
    const { back } = await fake.refuseConnectionsFor(400);
    expect(await rejection(ask(client(fake)))).toBeInstanceOf(APIConnectionError);
    await back;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
    expect((await ask(client(fake))).choices).toHaveLength(1);
  });

  test('O2 apiKey: a request with another Bearer key is answered 401 invalid_api_key (recorded); the right key is served', async () => {
    fake.always('judge', { json: { ok: true } });
    fake.apiKey = 'good-key';
    const err = await rejection(ask(client(fake)));
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(401);
    expect((err as APIError).code).toBe('invalid_api_key');
    expect(fake.requestsFor('judge').map((r) => r.status)).toEqual([401]);
    const good = new OpenAI({
      apiKey: 'good-key',
      baseURL: fake.baseURL,
      maxRetries: 0,
      defaultHeaders: { 'x-replanner-purpose': 'judge' },
      ...transport,
    });
    expect((await ask(good)).choices).toHaveLength(1);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error('waitFor: condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('FakeOpenAI rejection modes (M1)', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await FakeOpenAI.start({ logUnscripted: false });
    fake.always('judge', { json: { ok: true } });
  });
  afterAll(() => fake.stop());
  const c = () => new OpenAI({ apiKey: 'test', baseURL: fake.baseURL, maxRetries: 0, defaultHeaders: { 'x-replanner-purpose': 'judge' } });
  const create = (extra: Record<string, unknown>) =>
    c().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'JSON please' }], ...extra } as never) as Promise<unknown>;
  const jsonSchema = { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } } };

  it("M1 mimics llama-cpp-python 0.3.16: a json_schema response_format → HTTP 500 naming ('body', 'response_format', 'type'); json_object with a schema → 200", async () => {
    fake.rejects.add('json_schema');
    fake.rejectStyle = 'llamacpp';
    const err = (await rejection(create(jsonSchema))) as APIError;
    expect(err.status).toBe(500);
    expect(err.message).toContain("('body', 'response_format', 'type')");
    expect(err.message).toContain("Input should be 'text' or 'json_object'");
    expect((err.error as { type?: string }).type).toBe('internal_server_error');
    await expect(create({ response_format: { type: 'json_object', schema: { type: 'object' } } })).resolves.toBeDefined();
    fake.reset();
  });

  it('M1 rejects json_object and tools with a 400 when told, and consumes no scripted reply', async () => {
    fake.always('judge', { json: { ok: true } });
    fake.script('judge', { json: { first: true } });
    fake.rejects.add('json_object');
    fake.rejects.add('tools');
    expect(((await rejection(create({ response_format: { type: 'json_object' } }))) as APIError).status).toBe(400);
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
    const noTools = (await rejection(create({ tools }))) as APIError;
    expect(noTools.status).toBe(400);
    expect(noTools.message).toContain('does not support tools');
    expect(fake.remaining('judge')).toBe(1);
    fake.reset();
  });
});
