// M1 (issue 31): every request streams, watched by its progress, against the scripted model's real
// HTTP server through the real `openai` client and the worker's transport. Limits are scaled down
// (seconds, not minutes) where the point is the same; the workflow tests show the defaults. A limit
// is 1 s at the least (the config's bound), so the tests that wait for one to strike take that long;
// the paces around them are as short as still shows the point.
import { z } from 'zod';
import { ApplicationFailure } from '@temporalio/common';
import { LlmGateway, type RawReply } from '../../src/llm/gateway';
import { LLM_SLOW, LLM_UNAVAILABLE } from '../../src/llm/errors';
import { TOOL_DEFINITIONS } from '../../src/activities/tools';
import type { LlmCallSettings } from '../../src/domain/llm-form';
import type { LlmProgress } from '../../src/domain/llm-timeouts';
import { FakeOpenAI } from '../support/fake-openai';
import { until as untilEvery } from '../support/promises';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await FakeOpenAI.start({ logUnscripted: false });
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const gateway = () => new LlmGateway({ apiKey: 'k', baseURL: fake.baseURL, model: 'm' });
const Schema = z.object({ answer: z.string() });
const fast: LlmCallSettings = { connectTimeoutMs: 2000, firstTokenTimeoutMs: 1000, readTokensPerSecond: 100_000, stallTimeoutMs: 1000 };
const ask = (llm: LlmCallSettings = fast, more: { onProgress?: (p: LlmProgress) => void; onReply?: (r: RawReply) => Promise<void> } = {}) =>
  gateway().structured({ purpose: 'reflection', schema: Schema, system: 'answer in JSON', user: 'q', llm, ...more });
/** Waits for what the fake server saw, looking every 20 ms. */
const until = <T>(what: string, probe: () => Promise<T | undefined>) => untilEvery(what, probe, 5000, 20);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ApplicationFailure,
  );

describe('M1 streamed replies', () => {
  it('M1 a structured reply streams (stream: true, usage included) and is put together from its deltas', async () => {
    fake.always('reflection', { pace: { tokens: 7 }, then: { json: { answer: 'yes, streamed' } } });
    fake.usage('reflection', { prompt: 321, completion: 7 });
    const r = await ask();
    expect(r.value).toEqual({ answer: 'yes, streamed' });
    expect(r.usage).toEqual({ promptTokens: 321, completionTokens: 7, totalTokens: 328, calls: 1 });
    expect(r.stream).toBeUndefined();
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(fake.requests[0]!.tokensSent).toBe(7);
  });

  it('M1 tool calls are put together from their deltas (name, then argument pieces)', async () => {
    fake.always('worker_step', { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a long enough content to be cut' } }] });
    const r = await gateway().chat({ purpose: 'worker_step', messages: [{ role: 'user', content: 'go' }], tools: TOOL_DEFINITIONS, llm: fast });
    expect(r.message.tool_calls).toEqual([
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'a long enough content to be cut' }) },
      },
    ]);
    expect(fake.requests[0]!.tokensSent).toBeGreaterThan(3);
  });

  it('M1 a server that refuses streaming: the same call asks again without it and says so; a call told so asks whole at once', async () => {
    fake.always('reflection', { json: { answer: 'whole' } });
    fake.streaming = 'refuse';
    const r = await ask();
    expect(r.value).toEqual({ answer: 'whole' });
    expect(r.stream).toBe(false);
    expect(fake.requests.map((q) => [q.stream, q.status])).toEqual([
      [true, 400],
      [false, 200],
    ]);
    fake.requests.length = 0;
    const again = await ask({ ...fast, stream: false });
    expect(again.stream).toBe(false);
    expect(fake.requests.map((q) => [q.stream, q.status])).toEqual([[false, 200]]);
  });

  it('M1 a server that ignores `stream` and answers whole: used as it is, and no streaming from then on', async () => {
    fake.always('reflection', { json: { answer: 'whole anyway' } });
    fake.streaming = 'ignore';
    const r = await ask();
    expect(r.value).toEqual({ answer: 'whole anyway' });
    expect(r.stream).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it('M1 the call says what it does while it streams: connecting, reading the prompt, writing N tokens', async () => {
    fake.always('reflection', { pace: { firstTokenMs: 100, tokenMs: 20, tokens: 5 }, then: { json: { answer: 'progress' } } });
    const seen: LlmProgress[] = [];
    await ask(fast, { onProgress: (p) => seen.push(p) });
    const states = seen.map((p) => p.state);
    expect(states.slice(0, 3)).toEqual(['connecting', 'reading', 'writing']);
    expect(new Set(states.slice(2))).toEqual(new Set(['writing']));
    expect(seen.map((p) => p.tokens ?? 0).filter((n) => n > 0)).toEqual([1, 2, 3, 4, 5, 5]);
    expect(seen.at(-1)).toMatchObject({ purpose: 'reflection', tokens: 5 });
    expect(seen[1]!.promptTokens).toBeGreaterThan(0);
  });

  it('M1 a slow model that keeps writing is progress: 5 tokens 400 ms apart pass a 1 s stall limit (2 s in all)', async () => {
    fake.always('reflection', { pace: { firstTokenMs: 400, tokenMs: 400, tokens: 5 }, then: { json: { answer: 'slow but alive' } } });
    const started = Date.now();
    const r = await ask();
    expect(r.value).toEqual({ answer: 'slow but alive' });
    expect(Date.now() - started).toBeGreaterThan(1900);
    expect(fake.requests).toHaveLength(1);
  });

  it('M1 no first token within the limit (scaled by the prompt): a slow failure naming it, the connection closed so the server stops', async () => {
    // The short prompt ('q') waits 10 s for its first token, the long one 1.5 s. The three calls run at once.
    const long = { purpose: 'reflection' as const, schema: Schema, system: 's', user: 'x'.repeat(400) };
    fake.always('reflection', (q) =>
      q.text.endsWith(long.user)
        ? { pace: { firstTokenMs: 1500 }, then: { json: { answer: 'read slowly' } } }
        : { pace: { firstTokenMs: 10_000 }, then: { json: { answer: 'too late' } } },
    );
    const started = Date.now();
    const short = failure(ask());
    // The first-token wait grows with the prompt: at 20 tokens/s a prompt of ~100 more tokens adds ~5 s;
    // at the fast limit's 100,000 tokens/s it stays 1 s, and 1.5 s is too late.
    const readSlowly = gateway().structured({ ...long, llm: { ...fast, readTokensPerSecond: 20 } });
    const readFast = failure(gateway().structured({ ...long, llm: fast }));
    const err = await short;
    expect(Date.now() - started).toBeLessThan(4000);
    expect(err?.type).toBe(LLM_SLOW);
    expect(err?.nonRetryable).toBe(false);
    expect(err?.message).toMatch(
      /^reflection request to http:\/\/127\.0\.0\.1:\d+\/v1: connected, no first token after 1 s for a \d+-token prompt; a slow model needs a longer llm\.firstTokenTimeoutSeconds/,
    );
    const asked = fake.requests.find((q) => !q.text.endsWith(long.user))!;
    await until('the server to see the connection closed', async () => (asked.closedByClient ? true : undefined));
    expect(asked.tokensSent).toBeUndefined();
    expect((await readSlowly).value).toEqual({ answer: 'read slowly' });
    expect((await readFast)?.message).toMatch(/no first token after 1 s for a 10\d-token prompt/);
  });

  it('M1 a reply that stalls mid-way: a slow failure naming the tokens so far; the connection is closed', async () => {
    fake.always('reflection', { pace: { tokens: 10, tokenMs: 10, stallAfter: 6, stallMs: 10_000 }, then: { json: { answer: 'stalls mid-way' } } });
    const err = await failure(ask());
    expect(err?.type).toBe(LLM_SLOW);
    expect(err?.message).toContain(
      'the reply stalled after 6 tokens (no token for 1 s); a model that pauses mid-reply needs a longer llm.stallTimeoutSeconds',
    );
    await until('the server to see the connection closed', async () => (fake.requests[0]!.closedByClient ? true : undefined));
    expect(fake.requests[0]!.tokensSent).toBe(6);
    expect(fake.requests[0]!.status).toBeUndefined();
  });

  it('M1 the reply is told (the journal) the moment it is complete, before the stream ends', async () => {
    fake.always('reflection', { pace: { holdEndMs: 600 }, then: { json: { answer: 'told early' } } });
    let toldAt = 0;
    let told: RawReply | undefined;
    const r = await ask(fast, {
      onReply: async (reply) => {
        toldAt = Date.now();
        told = reply;
      },
    });
    const ended = Date.now();
    expect(told?.content).toBe(JSON.stringify({ answer: 'told early' }));
    expect(told?.usage.totalTokens).toBeGreaterThan(0);
    expect(ended - toldAt).toBeGreaterThan(400);
    expect(r.value).toEqual({ answer: 'told early' });
  });

  it('M1 a server that closes the connection mid-reply is an outage (LlmUnavailable)', async () => {
    fake.always('reflection', { pace: { tokens: 20, tokenMs: 100 }, then: { json: { answer: 'cut off by the server' } } });
    const asked = failure(ask());
    // Looked at every 20 ms: the fake server once recorded its own dropping of a connection as the
    // client's when the response's 'close' came after the listener had closed (2 runs in 12).
    await until('a few tokens', async () => ((fake.requests[0]?.tokensSent ?? 0) >= 3 ? true : undefined));
    await fake.refuseConnections();
    const err = await asked;
    await fake.acceptConnections();
    expect(err?.type).toBe(LLM_UNAVAILABLE);
    expect(fake.requests[0]!.closedByClient).toBeFalsy();
  });

  it('M1 a cancelled call (its activity cancelled) aborts the request: the server sees the connection closed', async () => {
    fake.always('reflection', { pace: { tokens: 50, tokenMs: 50 }, then: { json: { answer: 'never finished' } } });
    const ctl = new AbortController();
    const asked = gateway()
      .structured({ purpose: 'reflection', schema: Schema, system: 's', user: 'u', llm: fast, signal: ctl.signal })
      .catch((e: unknown) => e);
    await until('a few tokens', async () => ((fake.requests[0]?.tokensSent ?? 0) >= 3 ? true : undefined));
    ctl.abort(new Error('activity cancelled'));
    expect(((await asked) as Error).message).toBe('activity cancelled');
    await until('the server to see the connection closed', async () => (fake.requests[0]!.closedByClient ? true : undefined));
    const sent = fake.requests[0]!.tokensSent ?? 0;
    // Five token periods on, the server has written nothing more.
    await new Promise((r) => setTimeout(r, 250));
    expect(fake.requests[0]!.tokensSent).toBe(sent);
  });
});
