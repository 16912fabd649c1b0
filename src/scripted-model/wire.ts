// The OpenAI Chat Completions wire format as the scripted model speaks it: reading a request,
// writing JSON answers and OpenAI-shaped error bodies, and the bodies of servers that reject a
// request's form (strict json_schema, json_object), so the fallback ladder can be tried.
import type * as http from 'node:http';
import type { RecordedRequest, Reply } from './types';

/** A scripted reply's assistant message: its content and tool calls (ids from `nextId`); undefined: not a message reply. */
export function answerOf(
  reply: Reply,
  nextId: () => string,
): { content: string | null; toolCalls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] } | undefined {
  if ('toolCalls' in reply) {
    const toolCalls = reply.toolCalls.map((c) => ({
      id: nextId(),
      type: 'function' as const,
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : (JSON.stringify(c.arguments) ?? '{}') },
    }));
    return { content: reply.content ?? null, toolCalls };
  }
  // JSON.stringify(undefined) is undefined; send "null" so content stays a string.
  if ('json' in reply) return { content: JSON.stringify(reply.json) ?? 'null' };
  if ('content' in reply && typeof reply.content === 'string') return { content: reply.content };
  return undefined;
}

/** The usage an answer reports: the fixed one, else counted from the characters (about 4 a token; never zero, so accounting has something to add up). */
export function usageOf(
  rec: RecordedRequest,
  a: NonNullable<ReturnType<typeof answerOf>>,
  fixed: { prompt: number; completion: number } | undefined,
): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const promptChars = rec.messages.reduce((n, m) => n + m.content.length, 0);
  const completionChars =
    (a.content?.length ?? 0) + (a.toolCalls ?? []).reduce((n, c) => n + c.function.name.length + c.function.arguments.length, 0);
  const prompt_tokens = fixed ? fixed.prompt : Math.max(1, Math.ceil(promptChars / 4));
  const completion_tokens = fixed ? fixed.completion : Math.max(1, Math.ceil(completionChars / 4));
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** The fields of a chat request the server looks at, each unchecked. */
export interface ChatBody {
  messages?: unknown;
  stream?: unknown;
  tools?: unknown;
  model?: unknown;
  response_format?: { type?: unknown };
}

export function chatBodyOf(body: unknown): ChatBody {
  return typeof body === 'object' && body !== null ? body : {};
}

/** Returns false if the response could not be written (socket already gone). */
export function sendJson(res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): boolean {
  if (res.headersSent || res.writableEnded || res.destroyed) return false;
  const data = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(data)),
    ...headers,
  });
  res.end(data);
  return true;
}

/** OpenAI-shaped error body; type/code follow what the real API sends for these statuses. */
export function errorBody(status: number, message: string): { error: { message: string; type: string; code: string | null } } {
  let type = 'invalid_request_error';
  let code: string | null = null;
  if (status === 429) {
    type = 'requests';
    code = 'rate_limit_exceeded';
  } else if (status === 401) {
    code = 'invalid_api_key';
  } else if (status === 404) {
    code = 'not_found';
  } else if (status >= 500) {
    type = 'server_error';
  }
  return { error: { message, type, code } };
}

export type RejectedForm = 'json_schema' | 'json_object' | 'tools';

/**
 * The answer of a server that does not take this request's form, or undefined. 'http400': an
 * OpenAI-style 400 naming the field (for tools Ollama's "does not support tools"); 'llamacpp':
 * llama-cpp-python 0.3.16's HTTP 500 validation error for a json_schema response_format.
 */
export function rejectionOf(
  body: ChatBody,
  rejects: ReadonlySet<RejectedForm>,
  style: 'http400' | 'llamacpp',
): { status: number; body: unknown } | undefined {
  const format = body.response_format?.type;
  const offersTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (offersTools && rejects.has('tools')) {
    return { status: 400, body: errorBody(400, `registry.ollama.ai/library/${String(body.model)} does not support tools`) };
  }
  if ((format === 'json_schema' || format === 'json_object') && rejects.has(format)) {
    if (style === 'llamacpp') {
      const message = `1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': '${format}', 'ctx': {'expected': "'text' or 'json_object'"}}`;
      return { status: 500, body: { error: { message, type: 'internal_server_error' } } };
    }
    return { status: 400, body: errorBody(400, `Invalid parameter: 'response_format' of type '${format}' is not supported with this model.`) };
  }
  return undefined;
}

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('aborted')));
  });
}

/** Message content may be a string, null (assistant tool calls) or an array of parts. */
export function flattenMessages(raw: unknown): { role: string; content: string }[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((m: unknown) => {
    const msg = typeof m === 'object' && m !== null ? (m as { role?: unknown; content?: unknown }) : {};
    const role = typeof msg.role === 'string' ? msg.role : msg.role == null ? '' : safeStringify(msg.role);
    return { role, content: contentToText(msg.content) };
  });
}

function contentToText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .map((p: unknown) => (typeof p === 'string' ? p : typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : ''))
      .filter((s: string) => s !== '')
      .join('\n');
  }
  return '';
}

export function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export const modelOf = (body: ChatBody, models: string[]): string => (typeof body.model === 'string' ? body.model : (models[0] ?? 'scripted-replay'));

/** stream_options.include_usage: the usage comes as the stream's last chunk. */
export const includeUsage = (body: ChatBody): boolean =>
  (body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true;
