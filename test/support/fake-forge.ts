/**
 * The shared core of the fake GitHub and GitLab servers (fake-github.ts, fake-gitlab.ts): a real
 * HTTP server on 127.0.0.1 that keeps comments (with their authors and times) in memory, logs every
 * request, checks the token, answers a conditional GET (If-None-Match) with 304 when nothing
 * changed, knows which users may write, and answers scripted faults (a status with headers, for a
 * number of requests or for a while, or a request held unanswered — a crash between the create and
 * its result). No jest here: plain Node, like fake-openai.ts.
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gitBranches, toldBranches, type BranchSource } from './fake-git';

export interface StoredComment {
  id: number;
  /** The issue / pull request / merge request number it belongs to. */
  thread: string;
  body: string;
  /** How many times it was edited. */
  edits: number;
  /** Who wrote it: the token's own user ('replanner') unless a test wrote it as someone else. */
  user: string;
  /** Date.now() when created, and when last edited. */
  createdAt: number;
  updatedAt: number;
}

/** The token's own user (the bot that posts the run's comments). */
export const BOT_USER = 'replanner';

export interface ForgeRequest {
  method: string;
  path: string;
  /** The query string's parameters. */
  query: Record<string, string>;
  /** The If-None-Match the client sent (a conditional GET). */
  ifNoneMatch?: string;
  /** The parsed JSON body (POST / PATCH / PUT): a comment's `body`, a pull request's `title`, `head`… */
  body?: JsonBody;
  /** The request carried an Authorization or PRIVATE-TOKEN header (a log's storage must not get one). */
  credentialed: boolean;
  /** What the server answered (undefined: held, never answered). */
  status?: number;
  /** The comment the request created or edited. */
  commentId?: number;
  /** Date.now() when it arrived. */
  at: number;
}

/** A request's JSON body as the routes read it. */
export type JsonBody = Record<string, unknown> & { body?: string };

/** A response that is not JSON: text (a job's log) or a redirect (to a log's storage). */
export class RawReply {
  constructor(
    readonly text: string,
    readonly contentType = 'text/plain; charset=utf-8',
  ) {}
}

export interface Fault {
  status: number;
  headers?: Record<string, string>;
  message?: string;
}

export interface Route {
  method: string;
  pattern: RegExp;
  /** Served without a token (a log's storage behind a signed redirect). */
  open?: boolean;
  /** Answers with [status, json or RawReply, headers]; `m` holds the pattern's groups. */
  handle(m: RegExpExecArray, body: JsonBody | undefined, url: URL, rec: ForgeRequest): [number, unknown, Record<string, string>?];
}

/** GET one item (a pull or merge request) and edit it in place (`store.change`); 404 (`notFound`) when `find` finds none. */
export function itemRoutes<T>(
  pattern: RegExp,
  editMethod: string,
  find: (m: RegExpExecArray) => T | undefined,
  store: { view(item: T): unknown; change(item: T, body: JsonBody | undefined): void },
  notFound: [number, unknown],
): Route[] {
  const answer = (m: RegExpExecArray, body?: JsonBody | null): [number, unknown] => {
    const item = find(m);
    if (item === undefined) return notFound;
    if (body !== null) store.change(item, body);
    return [200, store.view(item)];
  };
  return [
    { method: 'GET', pattern, handle: (m) => answer(m, null) },
    { method: editMethod, pattern, handle: (m, b) => answer(m, b) },
  ];
}

interface Scripted {
  match: (r: ForgeRequest) => boolean;
  times: number;
  /** Fails every matching request until this time (Date.now()), however many. */
  until?: number;
  fault?: Fault | ((r: ForgeRequest) => Fault);
  /** Carried out, then answered with this fault (a proxy's 502 after the write reached the server). */
  after?: Fault;
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
  /** Users and whether they may write (GitHub permission / GitLab access level), by name; ids by name. */
  protected readonly writers = new Map<string, boolean>([[BOT_USER, true]]);
  protected readonly userIds = new Map<string, number>([[BOT_USER, 1]]);
  /** Where each repository's (project's) branches are read from: what a pull request's head and commits are. */
  protected readonly branchSources = new Map<string, BranchSource>();

  constructor(
    /** The token the client must present; anything else is a 401. */
    readonly token: string,
  ) {}

  /** A fake of this kind listening on 127.0.0.1 (a free port; `baseURL`). */
  static async start<F extends FakeForge>(this: new (token: string) => F, token: string): Promise<F> {
    const f = new this(token);
    await f.listen();
    return f;
  }

  protected abstract routes(): Route[];
  /** A comment as the service's API shows it. */
  protected abstract view(c: StoredComment): unknown;
  /** The token the request presented (service-specific header). */
  protected abstract tokenOf(req: http.IncomingMessage): string | undefined;

  /** Starts serving on 127.0.0.1 (a free port; `baseURL`). */
  async listen(): Promise<void> {
    this.server = http.createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseURL = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `times` requests that `match` answer with `fault` instead. */
  failNext(match: (r: ForgeRequest) => boolean, fault: Fault | ((r: ForgeRequest) => Fault), times = 1): void {
    this.scripted.push({ match, times, fault });
  }

  /** Every request that `match` answers with `fault` for the next `ms` milliseconds (an outage, a rate limit). */
  failFor(match: (r: ForgeRequest) => boolean, ms: number, fault: Fault | ((r: ForgeRequest) => Fault)): void {
    this.scripted.push({ match, times: Number.POSITIVE_INFINITY, until: Date.now() + ms, fault });
  }

  /** The next `times` requests that `match` are carried out, then answered with `fault` (the client cannot know the write was made). */
  failAfter(match: (r: ForgeRequest) => boolean, fault: Fault, times = 1): void {
    this.scripted.push({ match, times, after: fault });
  }

  /** The repository's branches are a real git repository's (a bare one the run pushes to). */
  useGitRepo(repo: string, dir: string): void {
    this.branchSources.set(repo, gitBranches(dir));
  }

  /** The repository's branches as the test says: each branch's commits, oldest first. */
  setBranches(repo: string, branches: Record<string, string[]>): void {
    this.branchSources.set(repo, toldBranches(new Map(Object.entries(branches))));
  }

  /**
   * One page of `items` with the link to the next that the client follows (`rel="next"`; GitLab
   * also says `x-next-page`).
   */
  protected linkedPage<T>(items: T[], url: URL, perPageDefault: number, nextPageHeader = false): { page: T[]; headers?: Record<string, string> } {
    const { page, next } = this.pageOf(items, url, perPageDefault);
    if (!next) return { page };
    const to = new URL(`${this.baseURL}${url.pathname}${url.search}`);
    to.searchParams.set('page', String(next));
    return { page, headers: { ...(nextPageHeader ? { 'x-next-page': String(next) } : {}), link: `<${to.href}>; rel="next"` } };
  }

  /** A user of the forge, who may write to the repository / project or not. */
  addUser(name: string, mayWrite: boolean): void {
    this.writers.set(name, mayWrite);
    if (!this.userIds.has(name)) this.userIds.set(name, 100 + this.userIds.size);
  }

  /** A comment written by `user` (a person replying on the thread). */
  reply(thread: string, body: string, user: string): StoredComment {
    if (!this.userIds.has(user)) this.addUser(user, false);
    return this.create(thread, body, user);
  }

  /** A person edits a comment (its updated time moves). */
  editAs(id: number, body: string): StoredComment | undefined {
    return this.edit(id, body);
  }

  /** A person deletes a comment. */
  remove(id: number): void {
    const i = this.comments.findIndex((c) => c.id === id);
    if (i >= 0) this.comments.splice(i, 1);
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

  protected create(thread: string, body: string, user = BOT_USER): StoredComment {
    // Times only move forward, each comment at least 1 ms after the last change.
    const now = Math.max(Date.now(), this.lastChange + 1);
    this.lastChange = now;
    const c = { id: this.nextId++, thread, body, edits: 0, user, createdAt: now, updatedAt: now };
    this.comments.push(c);
    return c;
  }
  private lastChange = 0;

  /** The route that adds a comment to the thread its path names (`threadOf`); a body that is not text is refused with `refusal`. */
  protected createRoute(method: string, pattern: RegExp, threadOf: (m: RegExpExecArray) => string, refusal: [number, unknown]): Route {
    return {
      method,
      pattern,
      handle: (m, b, _u, rec) => {
        if (typeof b?.body !== 'string') return refusal;
        const c = this.create(threadOf(m), b.body);
        rec.commentId = c.id;
        return [201, this.view(c)];
      },
    };
  }

  /**
   * The route that edits comment `idOf(m)` in place; a 404 with `notFound` when there is no such
   * comment, the body is not text, or (with `threadOf`) the comment is not in the path's thread.
   */
  protected editRoute(
    method: string,
    pattern: RegExp,
    idOf: (m: RegExpExecArray) => number,
    notFound: string,
    threadOf?: (m: RegExpExecArray) => string,
  ): Route {
    return {
      method,
      pattern,
      handle: (m, b, _u, rec) => {
        const c = typeof b?.body === 'string' ? this.edit(idOf(m), b.body) : undefined;
        if (!c || (threadOf && c.thread !== threadOf(m))) return [404, { message: notFound }];
        rec.commentId = c.id;
        return [200, this.view(c)];
      },
    };
  }

  protected edit(id: number, body: string): StoredComment | undefined {
    const c = this.comments.find((x) => x.id === id);
    if (c) {
      c.body = body;
      c.edits += 1;
      c.updatedAt = Math.max(Date.now(), this.lastChange + 1);
      this.lastChange = c.updatedAt;
    }
    return c;
  }

  /**
   * One page of `items` (the forge's page size: `perPageDefault` unless asked, at most 100), and the
   * next page's number if there is one.
   */
  protected pageOf<T>(items: T[], url: URL, perPageDefault: number): { page: T[]; next?: number } {
    const asked = Number(url.searchParams.get('per_page') ?? url.searchParams.get('perPage') ?? perPageDefault);
    const per = Math.max(1, Math.min(100, Number.isFinite(asked) ? asked : perPageDefault));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    return { page: items.slice((page - 1) * per, page * per), ...(page * per < items.length ? { next: page + 1 } : {}) };
  }

  /** A thread's comments, oldest first. */
  protected threadComments(thread: string): StoredComment[] {
    return this.comments.filter((c) => c.thread === thread);
  }

  /** The comments (notes) of a thread: `owner/repo#n`, `group/project#n` or `group/project!n`. */
  commentsOf(thread: string): StoredComment[] {
    return this.threadComments(thread);
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: JsonBody | undefined;
    try {
      const parsed: unknown = raw ? JSON.parse(raw) : undefined;
      body = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonBody) : undefined;
    } catch {
      body = undefined;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const ifNoneMatch = req.headers['if-none-match'];
    const rec: ForgeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams.entries()),
      ...(typeof ifNoneMatch === 'string' ? { ifNoneMatch } : {}),
      ...(body ? { body } : {}),
      credentialed: req.headers.authorization !== undefined || req.headers['private-token'] !== undefined,
      at: Date.now(),
    };
    this.requests.push(rec);
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      if (json instanceof RawReply) {
        rec.status = status;
        res.writeHead(status, { 'content-type': json.contentType, ...headers });
        res.end(json.text);
        return;
      }
      const text = JSON.stringify(json);
      // A conditional GET of an unchanged resource: 304, no body (as GitHub and GitLab answer).
      const etag = rec.method === 'GET' && status === 200 ? `W/"${createHash('sha1').update(text).digest('hex')}"` : undefined;
      if (etag && rec.ifNoneMatch === etag) {
        rec.status = 304;
        res.writeHead(304, { etag, ...headers });
        res.end();
        return;
      }
      rec.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...(etag ? { etag } : {}), ...headers });
      res.end(text);
    };
    const open = this.routes().some((r) => r.open === true && r.method === rec.method && r.pattern.test(url.pathname));
    if (!open && this.tokenOf(req) !== this.token) return send(401, { message: 'Bad credentials' });
    const s = this.scripted.find((x) => x.times > 0 && (x.until === undefined || Date.now() < x.until) && x.match(rec));
    if (s?.fault) {
      s.times -= 1;
      const f = typeof s.fault === 'function' ? s.fault(rec) : s.fault;
      return send(f.status, { message: f.message ?? http.STATUS_CODES[f.status] ?? 'error' }, f.headers);
    }
    for (const r of this.routes()) {
      const m = r.method === rec.method ? r.pattern.exec(url.pathname) : null;
      if (!m) continue;
      const [status, json, headers] = r.handle(m, body, url, rec);
      if (s?.after) {
        s.times -= 1;
        return send(s.after.status, { message: s.after.message ?? http.STATUS_CODES[s.after.status] ?? 'error' }, s.after.headers);
      }
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

  /** The requests of one method whose path matches (count them: "opened exactly once"). */
  calls(method: string, path: RegExp): ForgeRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
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
