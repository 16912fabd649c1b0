/**
 * A real HTTP server speaking the OpenAI Chat Completions API, its replies scripted per
 * `x-replanner-purpose` header: the offline demo, the client example and the tests run the real
 * `openai` client (timeouts, retry headers, error classes) against it, exactly as against a live
 * model. It must not import jest.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PURPOSE_HEADER } from '../llm/purposes';
import type { Pace, RecordedRequest, Reply, Responder, ScriptedModelOptions } from './types';
import { paceTotalMs, streamAnswer } from './stream';
import {
  answerOf,
  chatBodyOf,
  errorBody,
  flattenMessages,
  readBody,
  rejectionOf,
  safeStringify,
  sendJson,
  usageOf,
  modelOf,
  includeUsage,
  type ChatBody,
  type RejectedForm,
} from './wire';

/** Per-request bookkeeping so waits end as soon as the client (or the server) goes away. */
interface RequestCtx {
  closed: boolean;
  /** The server closed the connection on purpose (a scripted crash), not the client. */
  serverClosed?: boolean;
  cancels: Set<() => void>;
}

/** What a listening server is made of (ScriptedModel.listen). */
interface Listening {
  server: http.Server;
  host: string;
  port: number;
  opts: ScriptedModelOptions;
}

export class ScriptedModel {
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
  protected readonly server: http.Server;
  protected readonly host: string;
  private readonly logUnscripted: boolean;
  private readonly label: string;
  private readonly models: string[];
  /**
   * Fixed latency added before every chat-completions answer of any purpose (on top of a scripted
   * delay), so a benchmark sees the same LLM time on every call. Settable between runs.
   */
  latencyMs: number;

  /**
   * Request forms this server rejects, like a real server without them: `json_schema` (a
   * response_format of that type), `json_object` (of that type) and `tools` (any request offering
   * tools). A rejected request consumes no scripted reply. `rejectStyle` picks the answer (see rejectionOf).
   */
  readonly rejects = new Set<RejectedForm>();
  rejectStyle: 'http400' | 'llamacpp' = 'http400';

  /** When set, a chat request whose `Authorization` is not `Bearer <apiKey>` is answered 401 (a wrong OPENAI_API_KEY). */
  apiKey: string | undefined;

  /**
   * What a request with stream: true gets: 'on' a streamed answer (as OpenAI sends it), 'refuse'
   * an HTTP 400 "streaming is not supported" (consuming no scripted reply), 'ignore' a whole JSON answer.
   */
  streaming: 'on' | 'refuse' | 'ignore' = 'on';

  /** Called the moment a whole reply (and its usage) has been written, before a held-back end (tests: "the reply has arrived"). */
  onReplied: ((req: RecordedRequest) => void) | undefined;

  protected constructor(l: Listening) {
    this.server = l.server;
    this.host = l.host;
    this.port = l.port;
    this.logUnscripted = l.opts.logUnscripted ?? true;
    this.latencyMs = l.opts.latencyMs ?? 0;
    this.label = l.opts.label ?? 'scripted-model';
    this.models = l.opts.models ?? ['scripted-replay'];
    // IPv6 literals need brackets inside a URL.
    const urlHost = l.host.includes(':') ? `[${l.host}]` : l.host;
    this.baseURL = `http://${urlHost}:${l.port}/v1`;
  }

  static async start(opts: ScriptedModelOptions = {}): Promise<ScriptedModel> {
    return new ScriptedModel(await ScriptedModel.listen(opts)).attach();
  }

  protected static async listen(opts: ScriptedModelOptions): Promise<Listening> {
    const host = opts.host ?? '127.0.0.1';
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return { server, host, port: (server.address() as AddressInfo).port, opts };
  }

  /** Starts answering. Called right after construction: no request is dispatched before this synchronous continuation ends. */
  protected attach(): this {
    this.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      this.handle(req, res).catch((err: unknown) => {
        // A bug in the server itself: answer something rather than leave the client hanging.
        console.error(`${this.label}: internal error`, err);
        sendJson(res, 500, errorBody(500, `${this.label} internal error: ${String(err)}`));
      });
    });
    return this;
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
    this.streaming = 'on';
    this.onReplied = undefined;
    this.requests.length = 0;
  }

  /** Number of queued (scripted, not yet consumed) replies, for one purpose or all. */
  remaining(purpose?: string): number {
    if (purpose !== undefined) return this.queues.get(purpose)?.length ?? 0;
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  // ---------------------------------------------------------------- lifecycle

  /** Close the server and every socket, releasing hanging requests. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= new Promise<void>((resolve) => {
      this.cancelWaits();
      // Requests left unanswered end now; their sockets' 'close' events may only
      // fire after close() resolves, too late for an assertion right after stop().
      const now = Date.now();
      for (const r of this.requests) if (r.finishedAt === undefined) r.finishedAt = now;
      // close() alone would wait for keep-alive and hanging connections.
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.stopping;
  }

  /** Set from refuseConnections until acceptConnections: connections closed then are not the clients' doing. */
  protected closingAll = false;

  protected get stopped(): boolean {
    return this.stopping !== undefined;
  }

  /** Ends every pending hang and delay (their requests go unanswered). */
  protected cancelWaits(): void {
    for (const cancel of [...this.cancellers]) cancel();
  }

  // ---------------------------------------------------------------- HTTP

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const startedAt = Date.now();
    const path = (req.url ?? '').split('?')[0];

    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(res, 200, { object: 'list', data: this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: this.label })) });
      return;
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      sendJson(res, 404, errorBody(404, `${this.label}: unknown route ${req.method ?? '?'} ${path}`));
      return;
    }

    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      return; // client went away mid-body; nothing to answer
    }

    let parsed: unknown;
    let bodyValid = true;
    try {
      parsed = JSON.parse(raw);
    } catch {
      bodyValid = false;
    }
    const body = chatBodyOf(parsed);
    const header = req.headers[PURPOSE_HEADER];
    const purpose = (Array.isArray(header) ? header[0] : header) ?? '';
    const messages = flattenMessages(body.messages);
    const rec: RecordedRequest = {
      seq: ++this.seq,
      purpose,
      body: parsed,
      headers: { ...req.headers },
      startedAt,
      messages,
      text: messages.map((m) => m.content).join('\n'),
    };
    // Recorded before answering, so a test can observe requests still in flight.
    this.requests.push(rec);

    const ctx: RequestCtx = { closed: false, cancels: new Set() };
    res.on('close', () => {
      // Closed by the client before the answer ended (not by stop() or refuseConnections()).
      if (!res.writableEnded && !this.stopping && !this.closingAll && !ctx.serverClosed) rec.closedByClient = true;
      ctx.closed = true;
      for (const cancel of [...ctx.cancels]) cancel();
      // Unanswered (client timeout/abort, stop()): still mark the end so concurrency counts are right.
      if (rec.finishedAt === undefined) rec.finishedAt = Date.now();
    });

    const fail = (status: number, message: string) => this.send(rec, res, status, errorBody(status, message));
    if (!bodyValid) return fail(400, `${this.label}: request body is not valid JSON`);
    if (!purpose) return fail(400, `missing ${PURPOSE_HEADER} header`);
    rec.stream = body.stream === true;
    if (body.stream && this.streaming === 'refuse') return fail(400, `${this.label}: streaming is not supported`);
    if (!Array.isArray(body.messages)) return fail(400, `${this.label}: body.messages must be an array`);
    if (this.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return fail(401, 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.');
    }

    const rejected = rejectionOf(body, this.rejects, this.rejectStyle);
    if (rejected) return this.send(rec, res, rejected.status, rejected.body);

    let reply: Reply | undefined;
    try {
      reply = this.pick(rec);
    } catch (err) {
      // A throwing responder is a scripting bug; surface it as a 500 with the message.
      const msg = err instanceof Error ? err.message : String(err);
      console.error(`${this.label}: responder for purpose "${purpose}" threw:`, err);
      return fail(500, `${this.label}: responder threw: ${msg}`);
    }
    if (!reply) {
      const msg = `${this.label}: no scripted reply for purpose "${purpose}"`;
      if (this.logUnscripted) console.error(msg);
      // 400 is non-retryable for the client and for our activities, so a run fails fast.
      return fail(400, msg);
    }
    await this.deliver(rec, res, ctx, reply, body);
  }

  /** Queue first, then the purpose default, then the global fallback. */
  private pick(rec: RecordedRequest): Reply | undefined {
    const q = this.queues.get(rec.purpose);
    const responder: Responder | undefined = q && q.length > 0 ? q.shift() : this.defaults.get(rec.purpose);
    if (responder !== undefined) return typeof responder === 'function' ? responder(rec) : responder;
    return this.fallbackResponder?.(rec);
  }

  private async deliver(rec: RecordedRequest, res: http.ServerResponse, ctx: RequestCtx, first: Reply, body: ChatBody): Promise<void> {
    let reply: Reply = first;
    let pace: Pace = {};
    if (this.latencyMs > 0 && !(await this.sleep(this.latencyMs, ctx))) return;
    // Unwrap (possibly nested) waits; give up silently if the client or server went away.
    for (;;) {
      if ('hangMs' in reply) {
        if (!(await this.sleep(reply.hangMs, ctx))) return;
        reply = reply.then ?? { status: 500, message: `${this.label}: hang elapsed` };
      } else if ('delayMs' in reply) {
        if (!(await this.sleep(reply.delayMs, ctx))) return;
        reply = reply.then;
      } else if ('pace' in reply) {
        pace = { ...pace, ...reply.pace };
        reply = reply.then;
      } else break;
    }
    const streamed = body.stream === true && this.streaming === 'on';
    // Without streaming the pace's waits all come before the whole answer (a slow model that does not stream).
    if (!streamed && !('status' in reply) && !(await this.sleep(paceTotalMs(pace, reply), ctx))) return;

    if ('status' in reply) {
      const message = reply.message ?? `${this.label}: scripted HTTP ${reply.status}`;
      this.send(rec, res, reply.status, errorBody(reply.status, message), reply.headers);
      return;
    }

    const said = answerOf(reply, () => `call_${++this.toolCallSeq}`);
    if (!said) return this.send(rec, res, 500, errorBody(500, `${this.label}: invalid scripted reply ${safeStringify(reply)}`));
    const { content, toolCalls } = said;
    rec.usage = usageOf(rec, said, this.usages.get(rec.purpose) ?? this.usages.get('*'));

    const finishReason = toolCalls ? 'tool_calls' : 'finishReason' in reply && reply.finishReason ? reply.finishReason : 'stop';
    if (streamed) {
      const id = `chatcmpl-${++this.completionSeq}`;
      const answer = { id, model: modelOf(body, this.models), content, toolCalls, finishReason, usage: rec.usage };
      const ended = await streamAnswer(res, { ...answer, includeUsage: includeUsage(body) }, pace, {
        sleep: (ms) => this.sleep(ms, ctx),
        onToken: (n) => (rec.tokensSent = n),
        onClose: () => (ctx.serverClosed = true),
        onReplied: () => {
          rec.status = 200;
          rec.repliedAt = Date.now();
          this.onReplied?.(rec);
        },
      });
      if (ended) rec.finishedAt = Date.now();
      else if (rec.repliedAt === undefined) delete rec.usage;
      return;
    }
    const message: Record<string, unknown> = { role: 'assistant', content, refusal: null };
    if (toolCalls) message.tool_calls = toolCalls;
    rec.repliedAt = Date.now();
    this.onReplied?.(rec);
    this.send(rec, res, 200, {
      id: `chatcmpl-${++this.completionSeq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: modelOf(body, this.models),
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage: rec.usage,
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
