/**
 * A real HTTP server speaking the OpenAI Chat Completions API, scripted per
 * `x-replanner-purpose` header.
 *
 * Why a real server instead of mocking the `openai` module: workflow tests run
 * activities in a real Temporal worker, and the offline demo runs the real
 * binary. Only a socket-level fake exercises the real client (timeouts, retry
 * headers, error classes) exactly as production does. It must not import jest,
 * because the demo imports it too.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply =
  /** assistant content = JSON.stringify(json) */
  | { json: unknown }
  /** raw assistant content (malformed JSON, markdown-fenced JSON, prose...); finishReason 'length': cut at max_tokens */
  | { content: string; finishReason?: 'stop' | 'length' }
  /** assistant tool_calls; object arguments are JSON.stringified, strings are sent as is */
  | { toolCalls: { name: string; arguments: unknown }[]; content?: string }
  /** HTTP error with an OpenAI-style {error:{message,type,code}} body */
  | { status: number; message?: string; headers?: Record<string, string> }
  /** wait, then answer with `then` (default a 500); released early by stop() or a client abort */
  | { hangMs: number; then?: Reply }
  /** answer after a delay, e.g. to make requests overlap */
  | { delayMs: number; then: Reply };

export type Responder = Reply | ((req: RecordedRequest) => Reply);

export interface RecordedRequest {
  seq: number;
  purpose: string;
  /** parsed JSON request body (undefined if it was not valid JSON) */
  body: any;
  headers: Record<string, string | string[] | undefined>;
  /** Date.now() when the request arrived */
  startedAt: number;
  /** Date.now() when the response was written, or when the connection went away unanswered */
  finishedAt?: number;
  /** HTTP status we answered with; undefined if never answered (client abort, stop()) */
  status?: number;
  /** body.messages with content flattened to text */
  messages: { role: string; content: string }[];
  /** all message contents joined by '\n', for prompt assertions */
  text: string;
  /** The token usage the answer reported (successful answers only). */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export interface FakeOpenAIOptions {
  port?: number;
  host?: string;
  /**
   * console.error a request that found no scripted reply. Defaults to true: the
   * resulting 400 is often swallowed into a workflow failure far from its cause,
   * and the log line is the quickest way to see which purpose was not scripted.
   */
  logUnscripted?: boolean;
  /** A fixed latency before every chat-completions answer, whatever the purpose (benchmarks). Default 0. */
  latencyMs?: number;
}

/** Per-request bookkeeping so waits end as soon as the client (or the server) goes away. */
interface RequestCtx {
  closed: boolean;
  cancels: Set<() => void>;
}

const PURPOSE_HEADER = 'x-replanner-purpose';

export class FakeOpenAI {
  readonly baseURL: string;
  readonly port: number;
  /** Every chat-completions request, in arrival order, including failed ones. Same array across reset(). */
  readonly requests: RecordedRequest[] = [];

  private readonly queues = new Map<string, Responder[]>();
  private readonly defaults = new Map<string, Responder>();
  private readonly usages = new Map<string, { prompt: number; completion: number }>();
  private fallbackResponder: ((req: RecordedRequest) => Reply | undefined) | undefined;
  /** Cancels every pending hang/delay; stop() calls them so it never waits on a timer. */
  private readonly cancellers = new Set<() => void>();
  private seq = 0;
  private completionSeq = 0;
  private toolCallSeq = 0;
  private stopping: Promise<void> | undefined;
  /**
   * Fixed latency added before every chat-completions answer of any purpose (on top of a scripted
   * delay), so a benchmark sees the same LLM time on every call. Settable between runs.
   */
  latencyMs = 0;

  /**
   * M1: request forms this server rejects, like a real server without them: `json_schema` (a
   * response_format of that type), `json_object` (of that type) and `tools` (any request offering
   * tools). A rejected request consumes no scripted reply. `rejectStyle` picks the answer:
   * 'http400' (an OpenAI-style 400 naming the field; for tools Ollama's "does not support tools"),
   * or 'llamacpp' (llama-cpp-python 0.3.16's HTTP 500 validation error for a json_schema response_format).
   */
  readonly rejects = new Set<'json_schema' | 'json_object' | 'tools'>();
  rejectStyle: 'http400' | 'llamacpp' = 'http400';

  /** When set, a chat request whose `Authorization` is not `Bearer <apiKey>` is answered 401 (a wrong OPENAI_API_KEY). */
  apiKey: string | undefined;
  /** Set while the listener is closed (refuseConnections): clients see ECONNREFUSED. */
  private refusing: { reopen?: ReturnType<typeof setTimeout> } | undefined;

  private constructor(
    private readonly server: http.Server,
    private readonly host: string,
    port: number,
    private readonly logUnscripted: boolean,
  ) {
    this.port = port;
    // IPv6 literals need brackets inside a URL.
    const urlHost = host.includes(':') ? `[${host}]` : host;
    this.baseURL = `http://${urlHost}:${port}/v1`;
  }

  static async start(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
    const host = opts.host ?? '127.0.0.1';
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const fake = new FakeOpenAI(server, host, port, opts.logUnscripted ?? true);
    fake.latencyMs = opts.latencyMs ?? 0;
    // Attached after construction; no request can be dispatched before this
    // synchronous continuation finishes, so none is missed.
    server.on('request', (req, res) => {
      fake.handle(req, res).catch((err: unknown) => {
        // A bug in the fake itself: answer something rather than leave the client hanging.
        console.error('fake-openai: internal error', err);
        sendJson(res, 500, errorBody(500, `fake-openai internal error: ${String(err)}`));
      });
    });
    return fake;
  }

  // ---------------------------------------------------------------- scripting

  /** Queue replies for a purpose; each is consumed by exactly one request, FIFO. */
  script(purpose: string, ...replies: Responder[]): this {
    const q = this.queues.get(purpose) ?? [];
    q.push(...replies);
    this.queues.set(purpose, q);
    return this;
  }

  /**
   * The token usage every answer of a purpose reports (purpose '*': every purpose without its own);
   * without one, usage is computed from the characters (about 4 per token).
   */
  usage(purpose: string, tokens: { prompt: number; completion: number }): this {
    this.usages.set(purpose, tokens);
    return this;
  }

  /** Tokens reported by the successful answers so far (for one purpose or all). */
  tokensUsed(purpose?: string): number {
    return this.requests.filter((r) => purpose === undefined || r.purpose === purpose).reduce((n, r) => n + (r.usage?.total_tokens ?? 0), 0);
  }

  /** Reply used for a purpose whenever its queue is empty (never consumed). */
  always(purpose: string, responder: Responder): this {
    this.defaults.set(purpose, responder);
    return this;
  }

  /** Last resort for any purpose; return undefined to fall through to the "unscripted" 400. */
  fallback(responder: (req: RecordedRequest) => Reply | undefined): this {
    this.fallbackResponder = responder;
    return this;
  }

  /** Clear scripts, defaults, fallback, refused forms and recorded requests (the `requests` array is emptied in place). */
  reset(): void {
    this.queues.clear();
    this.defaults.clear();
    this.fallbackResponder = undefined;
    this.usages.clear();
    this.rejects.clear();
    this.rejectStyle = 'http400';
    this.requests.length = 0;
  }

  /** Number of queued (scripted, not yet consumed) replies, for one purpose or all. */
  remaining(purpose?: string): number {
    if (purpose !== undefined) return this.queues.get(purpose)?.length ?? 0;
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  // ---------------------------------------------------------------- inspection

  requestsFor(purpose: string): RecordedRequest[] {
    return this.requests.filter((r) => r.purpose === purpose);
  }

  successfulFor(purpose: string): RecordedRequest[] {
    return this.requests.filter((r) => r.purpose === purpose && r.status === 200);
  }

  /**
   * Max number of requests in flight at once, by a sweep over [startedAt, finishedAt].
   * Requests still in flight count as open-ended. At equal timestamps a finish is
   * processed before a start, so strictly sequential calls that share a millisecond
   * are not mistaken for overlap.
   */
  maxConcurrency(purpose?: string): number {
    const rs = purpose === undefined ? this.requests : this.requestsFor(purpose);
    const events: [number, number][] = [];
    for (const r of rs) {
      events.push([r.startedAt, 1]);
      events.push([r.finishedAt ?? Number.POSITIVE_INFINITY, -1]);
    }
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let cur = 0;
    let max = 0;
    for (const [, d] of events) {
      cur += d;
      if (cur > max) max = cur;
    }
    return max;
  }

  // ---------------------------------------------------------------- lifecycle

  /** Close the server and every socket, releasing hanging requests. Idempotent. */
  stop(): Promise<void> {
    if (!this.stopping) {
      if (this.refusing?.reopen) clearTimeout(this.refusing.reopen);
      this.stopping = new Promise<void>((resolve) => {
        for (const cancel of [...this.cancellers]) cancel();
        // Requests left unanswered end now; their sockets' 'close' events may only
        // fire after close() resolves, too late for an assertion right after stop().
        const now = Date.now();
        for (const r of this.requests) if (r.finishedAt === undefined) r.finishedAt = now;
        // close() alone would wait for keep-alive and hanging connections.
        this.server.close(() => resolve());
        this.server.closeAllConnections();
      });
    }
    return this.stopping;
  }

  // ---------------------------------------------------------------- outages

  /**
   * The endpoint goes away: the listener closes and every open connection is dropped, so clients
   * see ECONNREFUSED (requests in flight fail) until acceptConnections() listens on the same port.
   */
  async refuseConnections(): Promise<void> {
    if (this.refusing || this.stopping) return;
    this.refusing = {};
    for (const cancel of [...this.cancellers]) cancel();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** The endpoint is back on the same port (and base URL). */
  async acceptConnections(): Promise<void> {
    if (!this.refusing || this.stopping) return;
    if (this.refusing.reopen) clearTimeout(this.refusing.reopen);
    this.refusing = undefined;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /** Refuses connections now, and accepts them again after `ms`; resolves once refusing. `back` resolves when listening again. */
  async refuseConnectionsFor(ms: number): Promise<{ back: Promise<void> }> {
    await this.refuseConnections();
    const back = new Promise<void>((resolve, reject) => {
      if (!this.refusing) return resolve();
      this.refusing.reopen = setTimeout(() => {
        if (this.refusing) this.refusing.reopen = undefined;
        this.acceptConnections().then(resolve, reject);
      }, ms);
    });
    return { back };
  }

  /** True while connections are refused. */
  get refusingConnections(): boolean {
    return this.refusing !== undefined;
  }

  // ---------------------------------------------------------------- HTTP

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const startedAt = Date.now();
    const path = (req.url ?? '').split('?')[0];

    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(res, 200, {
        object: 'list',
        data: ['fake-model', 'gpt-4o-mini'].map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake-openai' })),
      });
      return;
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      sendJson(res, 404, errorBody(404, `fake-openai: unknown route ${req.method ?? '?'} ${path}`));
      return;
    }

    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      return; // client went away mid-body; nothing to answer
    }

    let body: any;
    let bodyValid = true;
    try {
      body = JSON.parse(raw);
    } catch {
      bodyValid = false;
    }
    const header = req.headers[PURPOSE_HEADER];
    const purpose = (Array.isArray(header) ? header[0] : header) ?? '';
    const messages = flattenMessages(body?.messages);
    const rec: RecordedRequest = {
      seq: ++this.seq,
      purpose,
      body,
      headers: { ...req.headers },
      startedAt,
      messages,
      text: messages.map((m) => m.content).join('\n'),
    };
    // Recorded before answering, so a test can observe requests still in flight.
    this.requests.push(rec);

    const ctx: RequestCtx = { closed: false, cancels: new Set() };
    res.on('close', () => {
      ctx.closed = true;
      for (const cancel of [...ctx.cancels]) cancel();
      // Unanswered (client timeout/abort, stop()): still mark the end so maxConcurrency is right.
      if (rec.finishedAt === undefined) rec.finishedAt = Date.now();
    });

    const fail = (status: number, message: string) => this.send(rec, res, status, errorBody(status, message));
    if (!bodyValid) return fail(400, 'fake-openai: request body is not valid JSON');
    if (!purpose) return fail(400, `missing ${PURPOSE_HEADER} header`);
    if (body?.stream) return fail(400, 'fake-openai: streaming is not supported');
    if (!Array.isArray(body?.messages)) return fail(400, 'fake-openai: body.messages must be an array');
    if (this.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return fail(401, 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.');
    }

    const rejected = this.rejection(body);
    if (rejected) return this.send(rec, res, rejected.status, rejected.body);

    let reply: Reply | undefined;
    try {
      reply = this.pick(rec);
    } catch (err) {
      // A throwing responder is a test bug; surface it as a 500 with the message.
      const msg = err instanceof Error ? err.message : String(err);
      console.error(`fake-openai: responder for purpose "${purpose}" threw:`, err);
      return fail(500, `fake-openai: responder threw: ${msg}`);
    }
    if (!reply) {
      const msg = `fake-openai: no scripted reply for purpose "${purpose}"`;
      if (this.logUnscripted) console.error(msg);
      // 400 is non-retryable for the client and for our activities, so the test fails fast.
      return fail(400, msg);
    }
    await this.deliver(rec, res, ctx, reply);
  }

  /** M1: the answer of a server that does not take this request's form (see `rejects`), or undefined. */
  private rejection(body: any): { status: number; body: unknown } | undefined {
    const format: unknown = body?.response_format?.type;
    const offersTools = Array.isArray(body?.tools) && body.tools.length > 0;
    if (offersTools && this.rejects.has('tools')) {
      return { status: 400, body: errorBody(400, `registry.ollama.ai/library/${String(body?.model)} does not support tools`) };
    }
    if ((format === 'json_schema' || format === 'json_object') && this.rejects.has(format)) {
      if (this.rejectStyle === 'llamacpp') {
        const message = `1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': '${format}', 'ctx': {'expected': "'text' or 'json_object'"}}`;
        return { status: 500, body: { error: { message, type: 'internal_server_error' } } };
      }
      return { status: 400, body: errorBody(400, `Invalid parameter: 'response_format' of type '${format}' is not supported with this model.`) };
    }
    return undefined;
  }

  /** Queue first, then the purpose default, then the global fallback. */
  private pick(rec: RecordedRequest): Reply | undefined {
    const q = this.queues.get(rec.purpose);
    const responder: Responder | undefined = q && q.length > 0 ? q.shift() : this.defaults.get(rec.purpose);
    if (responder !== undefined) return typeof responder === 'function' ? responder(rec) : responder;
    return this.fallbackResponder?.(rec);
  }

  private async deliver(rec: RecordedRequest, res: http.ServerResponse, ctx: RequestCtx, first: Reply): Promise<void> {
    let reply: Reply = first;
    if (this.latencyMs > 0 && !(await this.sleep(this.latencyMs, ctx))) return;
    // Unwrap (possibly nested) waits; give up silently if the client or server went away.
    for (;;) {
      if ('hangMs' in reply) {
        if (!(await this.sleep(reply.hangMs, ctx))) return;
        reply = reply.then ?? { status: 500, message: 'fake-openai: hang elapsed' };
      } else if ('delayMs' in reply) {
        if (!(await this.sleep(reply.delayMs, ctx))) return;
        reply = reply.then;
      } else break;
    }

    if ('status' in reply) {
      const message = reply.message ?? `fake-openai: scripted HTTP ${reply.status}`;
      this.send(rec, res, reply.status, errorBody(reply.status, message), reply.headers);
      return;
    }

    let content: string | null;
    let toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] | undefined;
    if ('toolCalls' in reply) {
      content = reply.content ?? null;
      toolCalls = reply.toolCalls.map((c) => ({
        id: `call_${++this.toolCallSeq}`,
        type: 'function' as const,
        function: {
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : (JSON.stringify(c.arguments) ?? '{}'),
        },
      }));
    } else if ('json' in reply) {
      // JSON.stringify(undefined) is undefined; send "null" so content stays a string.
      content = JSON.stringify(reply.json) ?? 'null';
    } else if ('content' in reply && typeof reply.content === 'string') {
      content = reply.content;
    } else {
      this.send(rec, res, 500, errorBody(500, `fake-openai: invalid scripted reply ${safeStringify(reply)}`));
      return;
    }

    const promptChars = rec.messages.reduce((n, m) => n + m.content.length, 0);
    const completionChars = (content?.length ?? 0) + (toolCalls ?? []).reduce((n, c) => n + c.function.name.length + c.function.arguments.length, 0);
    // Deterministic and never zero, so token accounting code has something to add up.
    const fixed = this.usages.get(rec.purpose) ?? this.usages.get('*');
    const prompt_tokens = fixed ? fixed.prompt : Math.max(1, Math.ceil(promptChars / 4));
    const completion_tokens = fixed ? fixed.completion : Math.max(1, Math.ceil(completionChars / 4));
    rec.usage = { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };

    const message: Record<string, unknown> = { role: 'assistant', content, refusal: null };
    if (toolCalls) message.tool_calls = toolCalls;
    this.send(rec, res, 200, {
      id: `chatcmpl-${++this.completionSeq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: typeof rec.body?.model === 'string' ? rec.body.model : 'fake-model',
      choices: [
        {
          index: 0,
          message,
          logprobs: null,
          finish_reason: toolCalls ? 'tool_calls' : 'finishReason' in reply && reply.finishReason ? reply.finishReason : 'stop',
        },
      ],
      usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
    });
  }

  /** Resolves true when the time elapsed, false when cancelled by client close or stop(). */
  private sleep(ms: number, ctx: RequestCtx): Promise<boolean> {
    if (ctx.closed || this.stopping) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const finish = (elapsed: boolean) => {
        clearTimeout(timer);
        this.cancellers.delete(cancel);
        ctx.cancels.delete(cancel);
        resolve(elapsed);
      };
      const cancel = () => finish(false);
      const timer = setTimeout(() => finish(true), Math.max(0, ms));
      this.cancellers.add(cancel);
      ctx.cancels.add(cancel);
    });
  }

  private send(rec: RecordedRequest, res: http.ServerResponse, status: number, payload: unknown, headers?: Record<string, string>): void {
    if (!sendJson(res, status, payload, { 'x-request-id': `req_${rec.seq}`, ...headers })) return;
    rec.status = status;
    rec.finishedAt = Date.now();
  }
}

/** Text of the last user message ('' if none). */
export function lastUserMessage(req: RecordedRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m && m.role === 'user') return m.content;
  }
  return '';
}

// ------------------------------------------------------------------ helpers

/** Returns false if the response could not be written (socket already gone). */
function sendJson(res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): boolean {
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
function errorBody(status: number, message: string): { error: { message: string; type: string; code: string | null } } {
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

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('aborted')));
  });
}

/** Message content may be a string, null (assistant tool calls) or an array of parts. */
function flattenMessages(raw: unknown): { role: string; content: string }[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((m: any) => ({ role: String(m?.role ?? ''), content: contentToText(m?.content) }));
}

function contentToText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .map((p: any) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : ''))
      .filter((s: string) => s !== '')
      .join('\n');
  }
  return '';
}

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
