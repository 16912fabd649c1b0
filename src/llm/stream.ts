// One request to the server, watched by its progress (src/domain/llm-timeouts.ts). It streams
// (stream: true, usage at the end) unless the run learned the server does not; the reply (text,
// tool calls, usage) is assembled from the deltas. A watchdog gives up on a request that stops
// progressing: it aborts the request, which closes the connection, so the server stops generating
// (no retry ever queues behind our own abandoned work). The caller hears of each step (onProgress:
// the activity's heartbeat details) and of the complete reply before anything checks it (onReply:
// the journal), then the request's end is waited for.
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { firstTokenWaitMs, LIMIT_MAX_MS, wholeReplyWaitMs, type LlmProgress, type LlmTimeouts, type ProgressTimeout } from '../domain/llm-timeouts';
import type { TokenUsage } from '../domain/usage';
import { ON_CONNECTED } from './http-transport';

/** A reply as it came, before any check: what the journal keeps. */
export interface RawReply {
  content: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason?: string;
  usage: TokenUsage;
  /** false: the reply came whole, not streamed (the server does not stream). */
  streamed: boolean;
}

/** The request gave up on: which limit, and what had arrived. */
export class ProgressTimeoutError extends Error {
  constructor(
    readonly timeout: ProgressTimeout,
    message: string,
  ) {
    super(message);
    this.name = 'ProgressTimeoutError';
  }
}

/**
 * The server accepted the request to stream and ended the stream without a single chunk:
 * llama-cpp-python's chatml-function-calling does so for tools with tool_choice "auto" ("Automatic
 * streaming tool choice is not supported", in its log only). The gateway reads it as a refusal to stream.
 */
export class EmptyStreamError extends Error {
  constructor() {
    super('the server ended the streamed reply without sending anything');
    this.name = 'EmptyStreamError';
  }
}

export interface StreamRequest {
  purpose: string;
  headers: Record<string, string>;
  /** The activity's cancellation. */
  signal?: AbortSignal;
  timeouts: LlmTimeouts;
  /** false: ask for the whole reply at once. */
  stream: boolean;
  onProgress?: (p: LlmProgress) => void;
  /** Awaited as soon as the reply is complete (before the request's end and before any check). */
  onReply?: (r: RawReply) => Promise<void>;
  /** Words for a timeout: the server's address is in them. */
  describe: (t: ProgressTimeout) => string;
}

/** The prompt's size as sent, in characters: message contents and offered tools. */
export function promptChars(body: ChatCompletionCreateParamsNonStreaming): number {
  let n = 0;
  for (const m of body.messages) n += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content ?? '').length;
  return n + (body.tools ? JSON.stringify(body.tools).length : 0);
}

/** One request, streamed or whole, watched by its progress. */
export async function requestReply(
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  r: StreamRequest,
  promptTokens: number,
): Promise<RawReply> {
  const dog = watchdog(r, promptTokens);
  try {
    const options = {
      headers: r.headers,
      signal: dog.signal,
      // Our own limits watch the request; the client's single timeout would cut a slow, working model.
      timeout: LIMIT_MAX_MS,
      // The transport's own key (see http-transport.ts): the client copies fetchOptions into the request.
      fetchOptions: { [ON_CONNECTED]: dog.connected } as unknown as Record<string, never>,
    };
    if (!r.stream) return await dog.finish(wholeReply(await client.chat.completions.create(body, options), false));
    const { data, response } = await client.chat.completions
      .create({ ...body, stream: true, stream_options: { include_usage: true } }, options)
      .withResponse();
    // Connected at the latest when the headers came (a transport that could not say so earlier).
    dog.connected();
    // A server that ignores `stream` answers with one JSON body: a whole reply, and no streaming from then on.
    if (!/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
      return await dog.finish(wholeReply((await response.json()) as OpenAI.Chat.Completions.ChatCompletion, false));
    }
    return await assemble(data, dog, r, promptTokens);
  } catch (err) {
    throw dog.reason() ?? err;
  } finally {
    dog.stop();
  }
}

interface Watchdog {
  signal: AbortSignal;
  connected: () => void;
  /** A token arrived: the stall limit starts again. */
  token(tokens: number): void;
  /** The reply is complete: no limit applies any more but the request's end is still read (briefly). */
  complete(): void;
  /** A whole reply: told, then returned. */
  finish(reply: RawReply): Promise<RawReply>;
  /** The limit that struck, as an error, if one did (undefined: none, or the activity was cancelled). */
  reason(): Error | undefined;
  timedOut(): ProgressTimeout | undefined;
  stop(): void;
}

function watchdog(r: StreamRequest, promptTokens: number): Watchdog {
  const ctl = new AbortController();
  const started = Date.now();
  const t = r.timeouts;
  let struck: ProgressTimeout | undefined;
  let isConnected = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let tokens = 0;
  const progress = (state: LlmProgress['state'], extra: Partial<LlmProgress> = {}) =>
    r.onProgress?.({ purpose: r.purpose, state, promptTokens, since: started, ...extra });
  const arm = (ms: number, make: () => ProgressTimeout) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      struck = make();
      ctl.abort();
    }, ms);
  };
  const cancelled = () => ctl.abort(r.signal?.reason);
  if (r.signal?.aborted) ctl.abort(r.signal.reason);
  else r.signal?.addEventListener('abort', cancelled, { once: true });
  const total =
    t.totalMs === undefined ? undefined : setTimeout(() => ((struck = { kind: 'total', waitedMs: t.totalMs!, tokens }), ctl.abort()), t.totalMs);
  progress('connecting');
  arm(t.connectMs, () => ({ kind: 'connect', waitedMs: t.connectMs }));
  const wait = r.stream ? firstTokenWaitMs(t, promptTokens) : wholeReplyWaitMs(t, promptTokens);
  return {
    signal: ctl.signal,
    connected: () => {
      if (isConnected) return;
      isConnected = true;
      progress('reading');
      arm(wait, () => ({ kind: 'first_token', waitedMs: wait, promptTokens, streaming: r.stream }));
    },
    token(n) {
      tokens = n;
      progress('writing', { tokens: n });
      arm(t.stallMs, () => ({ kind: 'stall', waitedMs: t.stallMs, tokens }));
    },
    complete() {
      clearTimeout(total);
      // The rest (usage, the end of the stream) comes at once from a live server; a stall here loses nothing.
      arm(t.stallMs, () => ({ kind: 'stall', waitedMs: t.stallMs, tokens }));
    },
    async finish(reply) {
      clearTimeout(timer);
      clearTimeout(total);
      await r.onReply?.(reply);
      return reply;
    },
    reason: () => (struck && !r.signal?.aborted ? new ProgressTimeoutError(struck, r.describe(struck)) : undefined),
    timedOut: () => struck,
    stop() {
      clearTimeout(timer);
      clearTimeout(total);
      r.signal?.removeEventListener('abort', cancelled);
    },
  };
}

/** The deltas of a streamed reply put together; the reply is told to `onReply` once complete. */
async function assemble(chunks: AsyncIterable<ChatCompletionChunk>, dog: Watchdog, r: StreamRequest, promptTokens: number): Promise<RawReply> {
  const reply: RawReply = { content: '', toolCalls: [], usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 1 }, streamed: true };
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let chunksSeen = 0;
  let tokens = 0;
  let usage: TokenUsage | undefined;
  let told = false;
  const tell = async () => {
    if (told) return;
    told = true;
    dog.complete();
    reply.toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    reply.usage = usage ?? reply.usage;
    await r.onReply?.(reply);
  };
  for await (const chunk of chunks) {
    chunksSeen += 1;
    if (chunk.usage) usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    let carried = false;
    if (typeof delta?.content === 'string' && delta.content) {
      reply.content += delta.content;
      carried = true;
    }
    for (const d of delta?.tool_calls ?? []) {
      const c = calls.get(d.index) ?? { id: '', name: '', arguments: '' };
      if (d.id) c.id = d.id;
      if (d.function?.name) c.name += d.function.name;
      if (d.function?.arguments) c.arguments += d.function.arguments;
      calls.set(d.index, c);
      carried = true;
    }
    // Any chunk is progress (a role-only first one too: the prompt is read, writing began).
    if (!told && (carried || choice)) dog.token(carried ? ++tokens : tokens);
    if (choice?.finish_reason) reply.finishReason = choice.finish_reason;
    // Complete: the finish and the usage that follows it (include_usage) are both in.
    if (reply.finishReason && usage) await tell();
  }
  const struck = dog.timedOut();
  // A limit struck after the reply was complete: nothing is lost, the reply stands.
  if (struck && !told) throw dog.reason() ?? new Error('the request was abandoned');
  if (r.signal?.aborted) throw r.signal.reason ?? new Error('cancelled');
  if (chunksSeen === 0) throw new EmptyStreamError();
  if (!told) {
    // The stream ended without usage (llama-cpp-python ignores include_usage): the tokens counted, the prompt estimated.
    usage ??= { promptTokens, completionTokens: tokens, totalTokens: promptTokens + tokens, calls: 1 };
    await tell();
  }
  return reply;
}

function usageOf(u: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number }): TokenUsage {
  const prompt = u.prompt_tokens ?? 0;
  const completion = u.completion_tokens ?? 0;
  return { promptTokens: prompt, completionTokens: completion, totalTokens: u.total_tokens ?? prompt + completion, calls: 1 };
}

/** A whole (non-streamed) completion as a reply. */
function wholeReply(c: OpenAI.Chat.Completions.ChatCompletion, streamed: boolean): RawReply {
  const choice = c.choices?.[0];
  const message = choice?.message;
  return {
    content: message?.content ?? '',
    toolCalls: (message?.tool_calls ?? []).flatMap((t) =>
      t.type === 'function' ? [{ id: t.id, name: t.function.name, arguments: t.function.arguments }] : [],
    ),
    ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
    usage: usageOf(c.usage ?? {}),
    streamed,
  };
}

/** A reply as the assistant message of a chat completion (the worker's conversation). */
export function messageOf(r: RawReply): OpenAI.Chat.Completions.ChatCompletionMessage {
  return {
    role: 'assistant',
    content: r.content,
    refusal: null,
    ...(r.toolCalls.length
      ? { tool_calls: r.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  };
}
