// The one place that talks to an OpenAI-compatible server. Structured replies are validated by zod
// here, inside the activity that made the call, so a bad reply fails and retries that activity.
// M1: structured requests walk the fallback ladder (src/domain/llm-form.ts) from the rung the run
// reached: a server that rejects a form moves the call down at once, in the same activity.
import OpenAI, { APIError } from 'openai';
import { llmSpan } from '../telemetry';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  isFormRejection,
  nextRung,
  rungOf,
  TOOL_CALLS_FIX,
  toolCallWrittenAsText,
  TOP_RUNG,
  workerRejection,
  type LlmCallSettings,
  type LlmRung,
} from '../domain/llm-form';
import { classifyLlmError, LLM_BAD_REPLY, LLM_UNSUPPORTED, upstreamParts } from './errors';
import { withoutSecrets } from '../domain/failures';
import { httpTransport } from './http-transport';
import { PURPOSE_HEADER, type Purpose } from './purposes';
import { toStrictJsonSchema } from './strict-schema';
import type { TokenUsage } from '../domain/usage';
import { clipAfter } from '../domain/text';

export interface LlmSettings {
  apiKey: string;
  baseURL: string;
  model: string;
  /** Per-request timeout (a run's `llm.timeoutSeconds` overrides it per call). */
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
  /** M1: the rung to start at and the run's request timeout (set by the calling workflow). */
  llm?: LlmCallSettings;
}

export interface StructuredResult<T> {
  value: T;
  usage: TokenUsage;
  /** The raw assistant text, for callers that parse leniently themselves. */
  raw: string;
  /** The rung the request was answered at. */
  rung: LlmRung;
  /** The reply stopped at the run's reply cap (llm.maxReplyTokens): the cap. */
  cut?: number;
}

export interface ChatResult {
  message: OpenAI.Chat.Completions.ChatCompletionMessage;
  usage: TokenUsage;
  rung: LlmRung;
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

  /**
   * A chat completion with tools (the worker's loop). At the top rung the tools are strict
   * functions. A server that rejects tool calling, or a model that writes its calls as text
   * (toolCallWrittenAsText), fails with LlmUnsupported: the run pauses with the fix (M1).
   */
  async chat(opts: CallOptions & { messages: ChatCompletionMessageParam[]; tools?: ChatCompletionTool[] }): Promise<ChatResult> {
    let rung = startRung(opts);
    const tools = opts.tools ?? [];
    for (;;) {
      const offered = rung === TOP_RUNG ? tools.map(strictTool) : tools;
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        // tool_choice "auto" said explicitly: llama-cpp-python reads a missing one as "none" and never calls a tool.
        const withTools = offered.length ? { tools: offered, tool_choice: 'auto' as const } : {};
        completion = await this.send(opts, { model: this.settings.model, messages: opts.messages, ...withTools });
      } catch (err) {
        const form = tools.length ? formRejection(err) : undefined;
        if (form === undefined) throw this.classify(opts, err);
        const next = workerRejection(rung, form);
        if (next === 'unsupported') throw unsupported(opts.purpose, this.settings, `the server rejected a request offering tools: ${form}`, err);
        rung = next.next;
        continue;
      }
      const message = completion.choices[0]?.message;
      if (!message) throw badReply(opts.purpose, 'the reply has no choices');
      const names = tools.flatMap((t) => (t.type === 'function' ? [t.function.name] : []));
      const asText = !message.tool_calls?.length && message.content ? toolCallWrittenAsText(message.content, names) : undefined;
      if (asText) throw unsupported(opts.purpose, this.settings, `the model wrote a ${asText} call as text instead of a tool call`);
      return { message, usage: usageOf(completion), rung };
    }
  }

  /** A JSON reply validated against `schema`; schema violations are retryable activity failures. */
  async structured<T extends z.ZodType>(opts: CallOptions & { schema: T; system: string; user: string }): Promise<StructuredResult<z.output<T>>> {
    const r = await this.text(opts);
    try {
      return { ...r, value: parseStructured(opts.purpose, opts.schema, r.raw) };
    } catch (err) {
      // A reply cut at the run's reply cap says so, with the fix (the same reply is asked again first).
      if (r.cut && err instanceof ApplicationFailure) {
        throw badReply(
          opts.purpose,
          `${err.message.replace(/^LLM reply for \S+ was unusable: /, '')} (the reply was cut at llm.maxReplyTokens, ${r.cut} tokens: raise it)`,
        );
      }
      throw err;
    }
  }

  /**
   * Asks for JSON matching `schema` but returns the raw text unvalidated (X13's lenient parsing).
   * M1: from the rung the run reached down the ladder; a server rejecting the request's form moves
   * it down at once (no retry, no outage pause).
   */
  async text(opts: CallOptions & { schema: z.ZodType; system: string; user: string }): Promise<StructuredResult<string>> {
    let rung = startRung(opts);
    const schema = toStrictJsonSchema(opts.schema);
    for (;;) {
      try {
        const completion = await this.send(opts, structuredBody(this.settings.model, rung, opts.purpose, schema, opts));
        const raw = completion.choices[0]?.message?.content ?? '';
        const cut = completion.choices[0]?.finish_reason === 'length' ? maxReplyTokens(opts) : undefined;
        return { value: raw, raw, usage: usageOf(completion), rung, ...(cut ? { cut } : {}) };
      } catch (err) {
        const next = formRejection(err) !== undefined ? nextRung(rung) : undefined;
        if (!next || opts.signal?.aborted) throw this.classify(opts, err);
        rung = next;
      }
    }
  }

  /** One request; failures as the client threw them (the callers decide: ladder, or classify). */
  private async send(
    opts: CallOptions,
    body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
  ): Promise<OpenAI.Chat.Completions.ChatCompletion> {
    const max = maxReplyTokens(opts);
    // A span per request when tracing is on (src/telemetry.ts); a plain call otherwise.
    return llmSpan(
      opts.purpose,
      this.settings.model,
      () =>
        this.client.chat.completions.create(max ? { ...body, max_tokens: max } : body, {
          headers: { [PURPOSE_HEADER]: opts.purpose },
          signal: opts.signal,
          ...(requestTimeoutMs(opts) ? { timeout: requestTimeoutMs(opts) } : {}),
        }),
      (c) => ({ promptTokens: c.usage?.prompt_tokens, completionTokens: c.usage?.completion_tokens }),
    );
  }

  private classify(opts: CallOptions, err: unknown): unknown {
    // Aborted by its activity's cancellation: rethrow the cancellation itself, so Temporal records
    // the activity (and the task awaiting it) as cancelled, not as a failed "Request was aborted".
    if (opts.signal?.aborted) return (opts.signal.reason as unknown) ?? err;
    return classifyLlmError(err, { purpose: opts.purpose, baseURL: this.settings.baseURL, secrets: secretsOf(this.settings) });
  }
}

/** The API key, when it is long enough to be told from ordinary text (a short one is a test's). */
const secretsOf = (s: LlmSettings): string[] => (s.apiKey.length >= 8 ? [s.apiKey] : []);

/** Where a call starts: the workflow's rung (anything else, the top). */
const startRung = (opts: CallOptions): LlmRung => rungOf(opts.llm?.rung) ?? TOP_RUNG;

/** The run's request timeout when it is a sane one (1 s .. 1 h, as the config bounds it). */
function requestTimeoutMs(opts: CallOptions): number | undefined {
  const t = opts.llm?.timeoutMs;
  return typeof t === 'number' && Number.isFinite(t) && t >= 1000 && t <= 3_600_000 ? t : undefined;
}

/** The run's reply cap when it is a sane one (as the config bounds it). */
function maxReplyTokens(opts: CallOptions): number | undefined {
  const m = opts.llm?.maxReplyTokens;
  return typeof m === 'number' && Number.isInteger(m) && m >= 64 && m <= 1_000_000 ? m : undefined;
}

/** The rejection (status and message) when `err` is the server rejecting the request's form, else undefined. */
function formRejection(err: unknown): string | undefined {
  if (!(err instanceof APIError) || typeof err.status !== 'number') return undefined;
  return isFormRejection(err.status, err.message) ? `HTTP ${err.status}: ${err.message}` : undefined;
}

/** The request body of a structured call at `rung`. */
export function structuredBody(
  model: string,
  rung: LlmRung,
  name: string,
  schema: Record<string, unknown>,
  prompt: { system: string; user: string },
): OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming {
  const messages = (system: string): ChatCompletionMessageParam[] => [
    { role: 'system', content: system },
    { role: 'user', content: prompt.user },
  ];
  if (rung === 'json_schema') {
    return { model, messages: messages(prompt.system), response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } } };
  }
  // Below the top rung the schema is in the prompt too: a server may take the form but not the schema.
  const described = `${prompt.system}\n\nReply with one JSON object only (no prose, no code fence) that matches this JSON Schema:\n${JSON.stringify(schema)}`;
  if (rung === 'json_object') {
    // `schema` beside the type is not in OpenAI's API; llama.cpp servers constrain the reply with it.
    const response_format = { type: 'json_object', schema } as unknown as OpenAI.ResponseFormatJSONObject;
    return { model, messages: messages(described), response_format };
  }
  return { model, messages: messages(described) };
}

/** A tool offered as a strict function (its parameters are strict-valid: tools/definitions.ts). */
function strictTool(t: ChatCompletionTool): ChatCompletionTool {
  return t.type === 'function' ? { ...t, function: { ...t.function, strict: true } } : t;
}

/** `err`: the server's rejection, kept as the cause with its status and body in the details. */
function unsupported(purpose: string, settings: LlmSettings, why: string, err?: unknown): ApplicationFailure {
  const secrets = secretsOf(settings);
  const upstream = err === undefined ? undefined : upstreamParts(err, secrets);
  return ApplicationFailure.create({
    type: LLM_UNSUPPORTED,
    message: withoutSecrets(
      `the model ${settings.model} at ${settings.baseURL} cannot make tool calls (${purpose}: ${why}); ${TOOL_CALLS_FIX}`,
      secrets,
    ),
    nonRetryable: true,
    ...(upstream ? { details: [upstream.details], cause: upstream.cause } : {}),
  });
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
  return JSON.stringify(clipAfter(s, 200));
}

function usageOf(c: OpenAI.Chat.Completions.ChatCompletion): TokenUsage {
  return {
    promptTokens: c.usage?.prompt_tokens ?? 0,
    completionTokens: c.usage?.completion_tokens ?? 0,
    totalTokens: c.usage?.total_tokens ?? 0,
    calls: 1,
  };
}
