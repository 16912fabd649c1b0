/**
 * The shared core of the fake GitHub and GitLab servers (fake-github.ts, fake-gitlab.ts): a real
 * HTTP server on 127.0.0.1 that keeps comments in memory, logs every request, checks the token,
 * and answers scripted faults (a status with headers, or a request held unanswered — a crash
 * between the create and its result). No jest here: plain Node, like fake-openai.ts.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredComment {
  id: number;
  /** The issue / pull request / merge request number it belongs to. */
  thread: string;
  body: string;
  /** How many times it was edited. */
  edits: number;
}

export interface ForgeRequest {
  method: string;
  path: string;
  /** The parsed JSON body (POST / PATCH / PUT). */
  body?: { body?: string };
  /** What the server answered (undefined: held, never answered). */
  status?: number;
  /** The comment the request created or edited. */
  commentId?: number;
  /** Date.now() when it arrived. */
  at: number;
}

export interface Fault {
  status: number;
  headers?: Record<string, string>;
  message?: string;
}

export interface Route {
  method: string;
  pattern: RegExp;
  /** Answers with [status, json]; `m` holds the pattern's groups. */
  handle(m: RegExpExecArray, body: { body?: string } | undefined, url: URL, rec: ForgeRequest): [number, unknown, Record<string, string>?];
}

interface Scripted {
  match: (r: ForgeRequest) => boolean;
  times: number;
  fault?: Fault | ((r: ForgeRequest) => Fault);
  hold?: () => void;
}

export abstract class FakeForge {
  readonly comments: StoredComment[] = [];
  readonly requests: ForgeRequest[] = [];
  private readonly scripted: Scripted[] = [];
  /** Held requests (carried out, unanswered) and how `release` would answer them. */
  private readonly held = new Map<http.ServerResponse, () => void>();
  private nextId = 1000;
  private server!: http.Server;
  baseURL = '';

  protected constructor(
    /** The token the client must present; anything else is a 401. */
    readonly token: string,
  ) {}

  protected abstract routes(): Route[];
  /** The token the request presented (service-specific header). */
  protected abstract tokenOf(req: http.IncomingMessage): string | undefined;

  protected async listen(): Promise<void> {
    this.server = http.createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseURL = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `times` requests that `match` answer with `fault` instead. */
  failNext(match: (r: ForgeRequest) => boolean, fault: Fault | ((r: ForgeRequest) => Fault), times = 1): void {
    this.scripted.push({ match, times, fault });
  }

  /**
   * The next request that `match` is carried out (the comment is stored) but never answered: the
   * client's process dies before it learns the result. Resolves when that request arrived.
   */
  holdNext(match: (r: ForgeRequest) => boolean): Promise<ForgeRequest> {
    return new Promise((resolve) => {
      const s: Scripted = { match, times: 1 };
      s.hold = () => resolve(this.requests.at(-1)!);
      this.scripted.push(s);
    });
  }

  protected create(thread: string, body: string): StoredComment {
    const c = { id: this.nextId++, thread, body, edits: 0 };
    this.comments.push(c);
    return c;
  }

  protected edit(id: number, body: string): StoredComment | undefined {
    const c = this.comments.find((x) => x.id === id);
    if (c) {
      c.body = body;
      c.edits += 1;
    }
    return c;
  }

  /** One page of a thread's comments, and the next page's number if there is one. */
  protected list(thread: string, url: URL): { page: StoredComment[]; next?: number } {
    const all = this.comments.filter((c) => c.thread === thread);
    const per = Number(url.searchParams.get('per_page') ?? url.searchParams.get('perPage') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    return { page: all.slice((page - 1) * per, page * per), ...(page * per < all.length ? { next: page + 1 } : {}) };
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: { body?: string } | undefined;
    try {
      body = raw ? (JSON.parse(raw) as { body?: string }) : undefined;
    } catch {
      body = undefined;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const rec: ForgeRequest = { method: req.method ?? 'GET', path: url.pathname, ...(body ? { body } : {}), at: Date.now() };
    this.requests.push(rec);
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      rec.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(json));
    };
    if (this.tokenOf(req) !== this.token) return send(401, { message: 'Bad credentials' });
    const s = this.scripted.find((x) => x.times > 0 && x.match(rec));
    if (s?.fault) {
      s.times -= 1;
      const f = typeof s.fault === 'function' ? s.fault(rec) : s.fault;
      return send(f.status, { message: f.message ?? http.STATUS_CODES[f.status] ?? 'error' }, f.headers);
    }
    for (const r of this.routes()) {
      const m = r.method === rec.method ? r.pattern.exec(url.pathname) : null;
      if (!m) continue;
      const [status, json, headers] = r.handle(m, body, url, rec);
      if (s?.hold) {
        // Carried out, never answered: the connection stays open until the client goes away.
        s.times -= 1;
        this.held.set(res, () => send(status, json, headers));
        res.on('close', () => this.held.delete(res));
        s.hold();
        return;
      }
      return send(status, json, headers);
    }
    send(404, { message: 'Not Found' });
  }

  /** Requests that posted or edited a body containing `text`. */
  writes(text: string): ForgeRequest[] {
    return this.requests.filter((r) => r.method !== 'GET' && r.body?.body?.includes(text));
  }

  /** Answers every held request (late, as a slow server would). */
  release(): void {
    const answers = [...this.held.values()];
    this.held.clear();
    for (const answer of answers) answer();
  }

  async stop(): Promise<void> {
    for (const r of this.held.keys()) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
