// The one place that talks to an OpenAI-compatible server. Structured replies are validated by zod
// here, inside the activity that made the call, so a bad reply fails and retries that activity.
// Structured requests walk the fallback ladder (src/domain/llm-form.ts) from the rung the run
// reached: a server that rejects a form moves the call down at once, in the same activity. Every
// request streams (./stream.ts), watched by its progress (src/domain/llm-timeouts.ts), until the
// server refuses streaming: then the call, and the run's later ones, ask for whole replies.
import OpenAI, { APIConnectionError, APIError } from 'openai';
import { llmSpan } from '../telemetry';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  isFormRejection,
  isStreamRefusal,
  nextRung,
  rungOf,
  TOOL_CALLS_FIX,
  toolCallWrittenAsText,
  TOP_RUNG,
  workerRejection,
  type LlmCallSettings,
  type LlmRung,
} from '../domain/llm-form';
import { estimateTokens, LIMIT_MAX_MS, resolveTimeouts, timeoutMessage, type LlmProgress, type LlmTimeouts } from '../domain/llm-timeouts';
import { classifyLlmError, LLM_BAD_REPLY, LLM_UNSUPPORTED, upstreamParts } from './errors';
import { withoutSecrets } from '../domain/failures';
import { CLOSED_BEFORE_REPLY, httpTransport } from './http-transport';
import { PURPOSE_HEADER, type Purpose } from './purposes';
import { EmptyStreamError, messageOf, promptChars, requestReply, type RawReply } from './stream';
import { toStrictJsonSchema } from './strict-schema';
import type { LlmSettings } from './settings';
import type { TokenUsage } from '../domain/usage';
import { clipAfter } from '../domain/text';

export type { RawReply } from './stream';

// The settings from the environment are apart (./settings.ts), so that the CLI reads them without
// loading the OpenAI client.
export { DEFAULT_MODEL, llmSettingsFromEnv, type LlmSettings } from './settings';

/** The limits of a call: the run's (from its activity input), else the worker's, else the defaults. */
export function limitsOf(settings: LlmSettings, call: LlmCallSettings | undefined): LlmTimeouts {
  return resolveTimeouts(
    {
      connectMs: call?.connectTimeoutMs,
      firstTokenMs: call?.firstTokenTimeoutMs,
      readTokensPerSecond: call?.readTokensPerSecond,
      stallMs: call?.stallTimeoutMs,
      totalMs: call?.timeoutMs,
    },
    { ...settings.limits, totalMs: settings.timeoutMs },
  );
}

export interface CallOptions {
  purpose: Purpose;
  /** The purpose header when it is not the purpose's own (doctor's probe of a run's prompt: `doctor_speed`). */
  purposeHeader?: string;
  signal?: AbortSignal;
  /** The rung to start at, streaming or not, and the run's limits (set by the calling workflow). */
  llm?: LlmCallSettings;
  /** What the call is doing (connecting, reading the prompt, writing), for the activity's heartbeat. */
  onProgress?: (p: LlmProgress) => void;
  /** Awaited as soon as a reply is complete, before it is checked (the journal). */
  onReply?: (r: RawReply) => Promise<void>;
}

/** What a result says about how it was asked for. */
interface AskedAs {
  /** The rung the request was answered at. */
  rung: LlmRung;
  /** false: the server does not stream (it refused, or answered whole). */
  stream?: false;
}

export interface StructuredResult<T> extends AskedAs {
  value: T;
  usage: TokenUsage;
  /** The raw assistant text, for callers that parse leniently themselves. */
  raw: string;
  /** The reply stopped at the run's reply cap (llm.maxReplyTokens): the cap. */
  cut?: number;
}

export interface ChatResult extends AskedAs {
  message: OpenAI.Chat.Completions.ChatCompletionMessage;
  usage: TokenUsage;
}

export class LlmGateway {
  private readonly client: OpenAI;

  constructor(readonly settings: LlmSettings) {
    // maxRetries 0: Temporal's activity retry policy is the only retry loop. The timeout is ours
    // (./stream.ts watches each request's progress); the client's would cut a slow, working model.
    this.client = new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL,
      maxRetries: 0,
      timeout: LIMIT_MAX_MS,
      fetch: httpTransport,
    });
  }

  /**
   * A chat completion with tools (the worker's loop). At the top rung the tools are strict
   * functions. A server that rejects tool calling, or a model that writes its calls as text
   * (toolCallWrittenAsText), fails with LlmUnsupported: the run pauses with the fix named.
   */
  async chat(opts: CallOptions & { messages: ChatCompletionMessageParam[]; tools?: ChatCompletionTool[] }): Promise<ChatResult> {
    let rung = startRung(opts);
    const asked = { stream: opts.llm?.stream !== false };
    const tools = opts.tools ?? [];
    for (;;) {
      const offered = rung === TOP_RUNG ? tools.map(strictTool) : tools;
      let reply: RawReply;
      try {
        // tool_choice "auto" said explicitly: llama-cpp-python reads a missing one as "none" and never calls a tool.
        const withTools = offered.length ? { tools: offered, tool_choice: 'auto' as const } : {};
        reply = await this.send(opts, { model: this.settings.model, messages: opts.messages, ...withTools }, asked);
      } catch (err) {
        const form = tools.length ? formRejection(err) : undefined;
        if (form === undefined || opts.signal?.aborted) throw this.classify(opts, err);
        const next = workerRejection(rung, form);
        if (next === 'unsupported') throw unsupported(opts.purpose, this.settings, `the server rejected a request offering tools: ${form}`, err);
        rung = next.next;
        continue;
      }
      const message = messageOf(reply);
      const names = tools.flatMap((t) => (t.type === 'function' ? [t.function.name] : []));
      const asText = !message.tool_calls?.length && message.content ? toolCallWrittenAsText(message.content, names) : undefined;
      if (asText) throw unsupported(opts.purpose, this.settings, `the model wrote a ${asText} call as text instead of a tool call`);
      return { message, usage: reply.usage, rung, ...(asked.stream ? {} : { stream: false as const }) };
    }
  }

  /** A JSON reply validated against `schema`; schema violations are retryable activity failures. */
  async structured<T extends z.ZodType>(opts: CallOptions & { schema: T; system: string; user: string }): Promise<StructuredResult<z.output<T>>> {
    const r = await this.text(opts);
    return { ...r, value: validateStructured(opts.purpose, opts.schema, r.raw, r.cut) };
  }

  /**
   * Asks for JSON matching `schema` but returns the raw text unvalidated (the caller parses leniently: JSON, or JSON in a code block, else "no replan").
   * From the rung the run reached down the ladder; a server rejecting the request's form moves
   * it down at once (no retry, no outage pause).
   */
  async text(opts: CallOptions & { schema: z.ZodType; system: string; user: string }): Promise<StructuredResult<string>> {
    let rung = startRung(opts);
    const asked = { stream: opts.llm?.stream !== false };
    const schema = toStrictJsonSchema(opts.schema);
    for (;;) {
      try {
        const reply = await this.send(opts, structuredBody(this.settings.model, rung, opts.purpose, schema, opts), asked);
        return { ...replyResult(reply, maxReplyTokens(opts)), rung, ...(asked.stream ? {} : { stream: false as const }) };
      } catch (err) {
        const next = formRejection(err) !== undefined ? nextRung(rung) : undefined;
        if (!next || opts.signal?.aborted) throw this.classify(opts, err);
        rung = next;
      }
    }
  }

  /**
   * One request; failures as the client threw them (the callers decide: ladder, or classify). A
   * server that refuses streaming is asked again at once without it, and `asked.stream` says so.
   */
  private async send(
    opts: CallOptions,
    body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
    asked: { stream: boolean },
  ): Promise<RawReply> {
    const max = maxReplyTokens(opts);
    const request = max ? { ...body, max_tokens: max } : body;
    const limits = limitsOf(this.settings, opts.llm);
    const promptTokens = estimateTokens(promptChars(request));
    for (;;) {
      try {
        // A span per request when tracing is on (src/telemetry.ts); a plain call otherwise.
        const reply = await llmSpan(
          opts.purpose,
          this.settings.model,
          () =>
            requestReply(
              this.client,
              request,
              {
                purpose: opts.purpose,
                headers: { [PURPOSE_HEADER]: opts.purposeHeader ?? opts.purpose },
                signal: opts.signal,
                timeouts: limits,
                stream: asked.stream,
                onProgress: opts.onProgress,
                onReply: opts.onReply,
                describe: (t) => timeoutMessage(t, this.settings.baseURL),
              },
              promptTokens,
            ),
          (r) => ({ promptTokens: r.usage.promptTokens, completionTokens: r.usage.completionTokens }),
        );
        if (!reply.streamed) asked.stream = false;
        return reply;
      } catch (err) {
        if (!asked.stream || opts.signal?.aborted || !streamRefused(err)) throw err;
        asked.stream = false;
      }
    }
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

/**
 * Whether `err` is the server refusing to stream (one more step down, see llm-form.ts): an error
 * naming streaming, a stream ended with nothing in it, or the connection closed on a streamed request
 * before any reply (llama-cpp-python, streaming a tool choice). Asked once more whole: a server that
 * is down fails that request too, and the call fails as an outage with it.
 */
const streamRefused = (err: unknown): boolean =>
  err instanceof EmptyStreamError ||
  (err instanceof APIConnectionError && (err.cause as Record<string, unknown> | undefined)?.[CLOSED_BEFORE_REPLY] === true) ||
  (err instanceof APIError && typeof err.status === 'number' && isStreamRefusal(err.status, err.message));

/** A structured call's result from its reply, unvalidated; `cut`: the reply stopped at the reply cap. */
function replyResult(reply: RawReply, cap: number | undefined): Omit<StructuredResult<string>, 'rung'> {
  const cut = reply.finishReason === 'length' ? cap : undefined;
  return { value: reply.content, raw: reply.content, usage: reply.usage, ...(cut ? { cut } : {}) };
}

/**
 * A structured reply validated (a retry re-validates a journaled reply this way too); a reply cut
 * at the run's reply cap says so, with the fix (the same reply is asked again first).
 */
export function validateStructured<T extends z.ZodType>(purpose: string, schema: T, raw: string, cut?: number): z.output<T> {
  try {
    return parseStructured(purpose, schema, raw);
  } catch (err) {
    if (cut && err instanceof ApplicationFailure) {
      throw badReply(
        purpose,
        `${err.message.replace(/^LLM reply for \S+ was unusable: /, '')} (the reply was cut at llm.maxReplyTokens, ${cut} tokens: raise it)`,
      );
    }
    throw err;
  }
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
