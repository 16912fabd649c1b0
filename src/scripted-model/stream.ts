// A streamed answer (stream: true) as OpenAI's Chat Completions API sends it: server-sent events,
// one chunk per token — the role, content pieces, tool calls (name first, then argument pieces),
// the finish reason, the usage when stream_options.include_usage asks for it, then [DONE]. A pace
// makes it a slow model's: a long wait for the first token (reading the prompt), a gap per token,
// a stall mid-reply, the stream's end held back after the reply.
import type * as http from 'node:http';
import type { Pace, Reply } from './types';

export interface StreamedAnswer {
  id: string;
  model: string;
  content: string | null;
  toolCalls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  includeUsage: boolean;
}

export interface StreamHooks {
  /** Waits `ms`; false when the client went away (or the server stops) meanwhile. */
  sleep(ms: number): Promise<boolean>;
  /** Each token written (its count so far). */
  onToken(n: number): void;
  /** The whole reply and its usage are written (the end may still be held back). */
  onReplied(): void;
  /** The server closes the connection itself (pace.closeAfter). */
  onClose(): void;
}

/** `text` cut into `n` pieces (at least one character each, the last takes the rest). */
export function pieces(text: string, n: number): string[] {
  if (!text) return [];
  const count = Math.max(1, Math.min(text.length, Math.floor(n)));
  const size = Math.floor(text.length / count);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(text.slice(i * size, i === count - 1 ? undefined : (i + 1) * size));
  return out;
}

const defaultPieces = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** Writes the answer as a stream; resolves true when it ended normally, false when the client left. */
export async function streamAnswer(res: http.ServerResponse, a: StreamedAnswer, pace: Pace, hooks: StreamHooks): Promise<boolean> {
  if (res.headersSent || res.writableEnded || res.destroyed) return false;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  const created = Math.floor(Date.now() / 1000);
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id: a.id, object: 'chat.completion.chunk', created, model: a.model, choices, ...extra })}\n\n`);
  const delta = (d: Record<string, unknown>, finish: string | null = null) => send([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  const units: Record<string, unknown>[] = [];
  for (const p of pieces(a.content ?? '', pace.tokens ?? defaultPieces(a.content ?? ''))) units.push({ content: p });
  for (const [index, c] of (a.toolCalls ?? []).entries()) {
    units.push({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] });
    for (const p of pieces(c.function.arguments, defaultPieces(c.function.arguments)))
      units.push({ tool_calls: [{ index, function: { arguments: p } }] });
  }
  if (pace.firstTokenMs && !(await hooks.sleep(pace.firstTokenMs))) return false;
  delta({ role: 'assistant', content: '' });
  const close = () => {
    hooks.onClose();
    res.destroy();
    return false;
  };
  for (const [i, u] of units.entries()) {
    if (i === pace.closeAfter) return close();
    if (i > 0 && pace.tokenMs && !(await hooks.sleep(pace.tokenMs))) return false;
    if (pace.stallAfter !== undefined && i === pace.stallAfter && pace.stallMs && !(await hooks.sleep(pace.stallMs))) return false;
    if (res.destroyed) return false;
    delta(u);
    hooks.onToken(i + 1);
  }
  delta({}, a.finishReason);
  if (a.includeUsage) send([], { usage: a.usage });
  hooks.onReplied();
  if (pace.holdEndMs && !(await hooks.sleep(pace.holdEndMs))) return false;
  if (res.destroyed) return false;
  res.end('data: [DONE]\n\n');
  return true;
}

/** How long a paced answer takes when it is sent whole (every wait of the pace, one gap per token). */
export function paceTotalMs(p: Pace, reply: Reply): number {
  const content = 'json' in reply ? (JSON.stringify(reply.json) ?? '') : 'content' in reply && typeof reply.content === 'string' ? reply.content : '';
  const tokens = p.tokens ?? defaultPieces(content);
  return (p.firstTokenMs ?? 0) + (p.tokenMs ?? 0) * Math.max(0, tokens - 1) + (p.stallMs ?? 0) + (p.holdEndMs ?? 0);
}
