// M1: the gateway against a real HTTP server: the ladder walked within one call, the rung it ended
// on returned, and a run's llm.timeoutSeconds as the request's total cap.
import { z } from 'zod';
import { ApplicationFailure } from '@temporalio/common';
import { LlmGateway } from '../../src/llm/gateway';
import { LLM_SLOW, LLM_UNAVAILABLE, LLM_UNSUPPORTED } from '../../src/llm/errors';
import { TOOL_DEFINITIONS } from '../../src/activities/tools';
import { parseConfig } from '../../src/domain/config';
import { FakeOpenAI } from '../support/fake-openai';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await FakeOpenAI.start({ logUnscripted: false });
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const gateway = () => new LlmGateway({ apiKey: 'k', baseURL: fake.baseURL, model: 'm', timeoutMs: 10_000 });
const Schema = z.object({ answer: z.string(), note: z.string().nullish() });
const ask = (llm?: { rung?: 'json_schema' | 'json_object' | 'prompt'; timeoutMs?: number; maxReplyTokens?: number }) =>
  gateway().structured({ purpose: 'reflection', schema: Schema, system: 'answer in JSON', user: 'q', ...(llm ? { llm } : {}) });

describe('M1 the gateway walks the fallback ladder', () => {
  it('M1 json_schema rejected → the same call answers through json_object and says so', async () => {
    fake.always('reflection', { json: { answer: 'yes', note: null } });
    fake.rejects.add('json_schema');
    const r = await ask();
    expect(r.value).toEqual({ answer: 'yes', note: null });
    expect(r.rung).toBe('json_object');
    expect(fake.requests.map((q) => [q.body.response_format?.type, q.status])).toEqual([
      ['json_schema', 400],
      ['json_object', 200],
    ]);
    expect(fake.requests[1]!.body.response_format.schema.required).toEqual(['answer', 'note']);
  });

  it('M1 a call that starts at a remembered rung never asks the rejected forms again', async () => {
    fake.always('reflection', { json: { answer: 'yes' } });
    const r = await ask({ rung: 'prompt' });
    expect(r.rung).toBe('prompt');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body.response_format).toBeUndefined();
    expect(fake.requests[0]!.messages[0]!.content).toContain('matches this JSON Schema');
  });

  it('M1 a 500 that does not name the form is an outage (LlmUnavailable), not a rung down', async () => {
    fake.always('reflection', { status: 500, message: 'upstream crashed' });
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe(LLM_UNAVAILABLE);
    expect(fake.requests).toHaveLength(1);
  });

  it('M1 llm.timeoutSeconds is the total cap of the call (bounded in the config): a connected, slow server is not an outage', async () => {
    fake.always('reflection', { hangMs: 5000, then: { json: { answer: 'late' } } });
    const started = Date.now();
    const err = await ask({ timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect((err as ApplicationFailure).type).toBe(LLM_SLOW);
    expect((err as ApplicationFailure).message).toMatch(/the request passed its total cap of 1 s after 0 tokens; raise llm\.timeoutSeconds/);
    expect(parseConfig({ llm: { timeoutSeconds: 600 } }).llm.timeoutSeconds).toBe(600);
    expect(() => parseConfig({ llm: { timeoutSeconds: 0 } })).toThrow(/llm\.timeoutSeconds: must be a number of seconds between 1 and 3600/);
    expect(() => parseConfig({ llm: { timeoutSeconds: 99999 } })).toThrow(/llm\.timeoutSeconds/);
    expect(() => parseConfig({ llm: { timeout: 5 } })).toThrow(/llm\.timeout: unknown key/);
  });

  it('M1 llm.maxReplyTokens is sent as max_tokens on every request of the call (bounded in the config); absent, none is sent', async () => {
    fake.always('reflection', { json: { answer: 'yes' } });
    fake.rejects.add('json_schema');
    await ask({ maxReplyTokens: 400 });
    expect(fake.requests.map((q) => q.body.max_tokens)).toEqual([400, 400]);
    fake.reset();
    fake.always('reflection', { json: { answer: 'yes' } });
    await ask();
    expect(fake.requests[0]!.body.max_tokens).toBeUndefined();
    expect(parseConfig({ llm: { maxReplyTokens: 512 } }).llm.maxReplyTokens).toBe(512);
    expect(() => parseConfig({ llm: { maxReplyTokens: 10 } })).toThrow(
      /llm\.maxReplyTokens: must be a whole number of tokens between 64 and 1000000/,
    );
    expect(() => parseConfig({ llm: { maxReplyTokens: 100.5 } })).toThrow(/llm\.maxReplyTokens/);
  });

  it('M1 a reply cut at llm.maxReplyTokens that does not parse says so, with the fix', async () => {
    fake.always('reflection', { content: '{"answer": "a long answ', finishReason: 'length' });
    const err = await ask({ maxReplyTokens: 64 }).catch((e: unknown) => e);
    expect((err as ApplicationFailure).message).toMatch(/the reply was cut at llm\.maxReplyTokens, 64 tokens: raise it/);
  });

  const work = (rung?: 'json_schema' | 'json_object') =>
    gateway().chat({
      purpose: 'worker_step',
      messages: [{ role: 'user', content: 'go' }],
      tools: TOOL_DEFINITIONS,
      ...(rung ? { llm: { rung } } : {}),
    });

  it('M1 a server that rejects tools: LlmUnsupported with the fix at the first request, nothing more asked', async () => {
    fake.always('worker_step', { toolCalls: [{ name: 'list_dir', arguments: {} }] });
    fake.rejects.add('tools');
    const err = (await work().catch((e: unknown) => e)) as ApplicationFailure;
    expect(err.type).toBe(LLM_UNSUPPORTED);
    expect(err.nonRetryable).toBe(true);
    expect(err.message).toContain('does not support tools');
    expect(err.message).toContain('--tool-call-parser');
    expect(fake.requests).toHaveLength(1);
  });

  it('M1 a rejection that does not name tools: once more without strict functions, then LlmUnsupported', async () => {
    fake.always('worker_step', { status: 400, message: 'bad request' });
    const err = (await work().catch((e: unknown) => e)) as ApplicationFailure;
    expect(err.type).toBe(LLM_UNSUPPORTED);
    expect(fake.requests.map((r) => r.body.tools[0].function.strict)).toEqual([true, undefined]);
  });

  it('M1 a model that writes its tool call as text instead of a tool call: LlmUnsupported; a plain summary is a reply', async () => {
    fake.script('worker_step', { content: '```json\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "A"}}\n```' });
    fake.script('worker_step', { content: 'All done: a.txt is written.' });
    const err = (await work('json_object').catch((e: unknown) => e)) as ApplicationFailure;
    expect(err.type).toBe(LLM_UNSUPPORTED);
    expect(err.message).toContain('wrote a write_file call as text');
    const r = await work('json_object');
    expect(r.message.content).toBe('All done: a.txt is written.');
    expect(r.rung).toBe('json_object');
  });
});
