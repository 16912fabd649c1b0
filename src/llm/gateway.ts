// The one place that talks to an OpenAI-compatible server. Structured replies are validated by zod
// here, inside the activity that made the call, so a bad reply fails and retries that activity.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { classifyLlmError, LLM_BAD_REPLY } from './errors';
import { httpTransport } from './http-transport';
import { PURPOSE_HEADER, type Purpose } from './purposes';
import type { TokenUsage } from './usage';

export interface LlmSettings {
  apiKey: string;
  baseURL: string;
  model: string;
  /** Per-request timeout; keep it below the activity's startToCloseTimeout. */
  timeoutMs: number;
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-4o-mini';

/** Reads OPENAI_API_KEY, OPENAI_BASE_URL and REPLANNER_MODEL. */
export function llmSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LlmSettings {
  return {
    apiKey: env.OPENAI_API_KEY || 'not-set',
    baseURL: env.OPENAI_BASE_URL || DEFAULT_BASE_URL,
    model: env.REPLANNER_MODEL || DEFAULT_MODEL,
    timeoutMs: Number(env.REPLANNER_LLM_TIMEOUT_MS || 120_000),
  };
}

export interface CallOptions {
  purpose: Purpose;
  signal?: AbortSignal;
}

export interface StructuredResult<T> {
  value: T;
  usage: TokenUsage;
  /** The raw assistant text, for callers that parse leniently themselves. */
  raw: string;
}

export interface ChatResult {
  message: OpenAI.Chat.Completions.ChatCompletionMessage;
  usage: TokenUsage;
}

export class LlmGateway {
  private readonly client: OpenAI;

  constructor(readonly settings: LlmSettings) {
    // maxRetries 0: Temporal's activity retry policy is the only retry loop.
    this.client = new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL,
      maxRetries: 0,
      timeout: settings.timeoutMs,
      fetch: httpTransport,
    });
  }

  /** A chat completion with tools (the worker's loop). */
  async chat(opts: CallOptions & { messages: ChatCompletionMessageParam[]; tools?: ChatCompletionTool[] }): Promise<ChatResult> {
    const completion = await this.request(opts, {
      model: this.settings.model,
      messages: opts.messages,
      ...(opts.tools?.length ? { tools: opts.tools } : {}),
    });
    const message = completion.choices[0]?.message;
    if (!message) throw badReply(opts.purpose, 'the reply has no choices');
    return { message, usage: usageOf(completion) };
  }

  /** A JSON reply validated against `schema`; schema violations are retryable activity failures. */
  async structured<T extends z.ZodType>(opts: CallOptions & { schema: T; system: string; user: string }): Promise<StructuredResult<z.output<T>>> {
    const r = await this.text(opts);
    return { ...r, value: parseStructured(opts.purpose, opts.schema, r.raw) };
  }

  /** Asks for JSON matching `schema` but returns the raw text unvalidated (X13's lenient parsing). */
  async text(opts: CallOptions & { schema: z.ZodType; system: string; user: string }): Promise<StructuredResult<string>> {
    const completion = await this.request(opts, {
      model: this.settings.model,
      messages: [
        { role: 'system', content: opts.system },
        { role: 'user', content: opts.user },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: opts.purpose, schema: jsonSchemaOf(opts.schema), strict: false },
      },
    });
    const raw = completion.choices[0]?.message?.content ?? '';
    return { value: raw, raw, usage: usageOf(completion) };
  }

  private async request(
    opts: CallOptions,
    body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
  ): Promise<OpenAI.Chat.Completions.ChatCompletion> {
    try {
      return await this.client.chat.completions.create(body, {
        headers: { [PURPOSE_HEADER]: opts.purpose },
        signal: opts.signal,
      });
    } catch (err) {
      // Aborted by its activity's cancellation: rethrow the cancellation itself, so Temporal records
      // the activity (and the task awaiting it) as cancelled, not as a failed "Request was aborted".
      if (opts.signal?.aborted) throw (opts.signal.reason as unknown) ?? err;
      throw classifyLlmError(err, { purpose: opts.purpose, baseURL: this.settings.baseURL });
    }
  }
}

const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let js = schemaCache.get(schema);
  if (!js) {
    js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    delete js.$schema;
    schemaCache.set(schema, js);
  }
  return js;
}

/** JSON first, then JSON inside a markdown code block; then zod. */
export function parseStructured<T extends z.ZodType>(purpose: string, schema: T, raw: string): z.output<T> {
  const json = extractJson(raw);
  if (json === undefined) throw badReply(purpose, `the reply is not JSON: ${preview(raw)}`);
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw badReply(purpose, `the reply does not match the ${purpose} schema: ${issues}`);
  }
  return parsed.data;
}

export function extractJson(raw: string): unknown {
  const attempts = [raw.trim()];
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(raw);
  if (fenced?.[1] !== undefined) attempts.push(fenced[1].trim());
  for (const a of attempts) {
    if (!a) continue;
    try {
      return JSON.parse(a);
    } catch {
      /* try the next form */
    }
  }
  return undefined;
}

function badReply(purpose: string, why: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: LLM_BAD_REPLY,
    message: `LLM reply for ${purpose} was unusable: ${why}`,
    nonRetryable: false,
  });
}

function preview(s: string): string {
  return JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);
}

function usageOf(c: OpenAI.Chat.Completions.ChatCompletion): TokenUsage {
  return {
    promptTokens: c.usage?.prompt_tokens ?? 0,
    completionTokens: c.usage?.completion_tokens ?? 0,
    totalTokens: c.usage?.total_tokens ?? 0,
    calls: 1,
  };
}
