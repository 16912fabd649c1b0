// The OpenAI client's transport: node:http / node:https with keep-alive, in place of the global
// fetch (undici). Why: every LLM activity runs on the worker's main thread, beside the SDK's own
// work for all activities and workflows; per request, undici's fetch took about twice the CPU of
// node:http there (bench/README.md, "Parallel 16 (session 6)"), and at 16 parallel tasks that thread is busy.
//
// It answers what the client asks of fetch: a plain request (URL, method, headers, string body,
// abort signal) gives a standard Response with the whole body read, or, for a streamed reply
// (text/event-stream), with its body streaming as it arrives. Anything else (a Request object,
// a streamed body, another scheme) and redirects go to the global fetch, which handles them.
// Failures keep the fetch contract the client's error mapping relies on (errors.ts):
// an abort rejects with an error named AbortError; a connection failure rejects with an error that
// carries the socket error's message (e.g. "connect ECONNREFUSED", the cause the user sees) and its
// code (ECONNREFUSED, ECONNRESET, a certificate's: what the retry table reads, domain/failures.ts).
import * as http from 'node:http';
import * as https from 'node:https';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** Statuses whose Response may carry no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A RequestInit key (passed through the client's `fetchOptions`) whose function is called once
 * the request's socket is connected (at once for a reused keep-alive socket): the gateway's connect
 * limit ends there, and the wait for the first token begins.
 */
export const ON_CONNECTED = Symbol('replanner.onConnected');

/**
 * Set on a failure where the server took the request on a live connection and closed it before
 * any reply (llama-cpp-python does so when streaming a tool choice it cannot stream): the gateway asks
 * such a request once more without streaming.
 */
export const CLOSED_BEFORE_REPLY = 'closedBeforeReply';

export function httpTransport(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const body = init.body;
  if (!(typeof input === 'string' || input instanceof URL) || (body !== undefined && body !== null && typeof body !== 'string')) {
    return fetch(input, init);
  }
  const url = new URL(input);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
  return send(input, url, init, false);
}

/**
 * One request. `fresh`: on a new connection. A kept-alive connection the server closed just before
 * it was reused fails at once with a reset and no response (the server got nothing to answer): that
 * request is sent again once, on a new connection (as after a refused stream, which the server
 * answers by closing the connection).
 */
function send(input: string | URL, url: URL, init: RequestInit, fresh: boolean): Promise<Response> {
  const body = init.body;
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    const failed = (err: Error, extra: object = {}) => reject(signal?.aborted ? abortError(signal) : Object.assign(socketError(err), extra));
    const req = (url.protocol === 'https:' ? https : http).request(url, {
      method: init.method ?? 'GET',
      headers,
      agent: fresh ? false : url.protocol === 'https:' ? agents['https:'] : agents['http:'],
      ...(signal ? { signal } : {}),
    });
    let answered = false;
    let connected = false;
    req.once('response', () => (answered = true));
    req.once('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    const onConnected = (init as { [ON_CONNECTED]?: () => void })[ON_CONNECTED];
    if (onConnected) {
      req.once('socket', (socket) => {
        // A reused socket is connected already; a new one says so (after TLS for https).
        if (!socket.connecting && !(socket as { pending?: boolean }).pending) onConnected();
        else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', onConnected);
      });
    }
    req.on('error', (err) => {
      const stale = !fresh && !answered && req.reusedSocket && (err as { code?: unknown }).code === 'ECONNRESET' && !signal?.aborted;
      if (stale) send(input, url, init, true).then(resolve, reject);
      else if (connected && !answered && !signal?.aborted) failed(err, { [CLOSED_BEFORE_REPLY]: true });
      else failed(err);
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        // Redirects as fetch follows them (method and body rules included): by fetch itself.
        res.resume();
        resolve(fetch(input, init));
        return;
      }
      const decoded = decode(res, res.headers['content-encoding']);
      if (/^text\/event-stream/i.test(res.headers['content-type'] ?? '') && !NULL_BODY.has(status)) {
        resolve(toResponse(status, res, streamOf(decoded, res, url.host, signal)));
        return;
      }
      const chunks: Buffer[] = [];
      decoded.on('data', (c: Buffer) => chunks.push(c));
      decoded.on('error', failed);
      res.on('error', failed);
      // The server closed mid-body: the client must see a failure, not a truncated reply.
      res.on('close', () => {
        if (!res.complete) {
          const cut = new Error(`the connection to ${url.host} closed before the whole reply arrived`);
          failed(Object.assign(cut, { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
        }
      });
      decoded.on('end', () => {
        try {
          resolve(toResponse(status, res, Buffer.concat(chunks)));
        } catch (err) {
          failed(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
    req.end(typeof body === 'string' ? body : undefined);
  });
}

function decode(res: http.IncomingMessage, encoding: string | undefined): Readable {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(zlib.createGunzip());
    case 'deflate':
      return res.pipe(zlib.createInflate());
    case 'br':
      return res.pipe(zlib.createBrotliDecompress());
    default:
      return res;
  }
}

/**
 * A streamed body as it arrives. The server closing mid-body, or the request aborted, errors the
 * stream (the reader sees a failure, not a short reply); a reader that cancels closes the connection,
 * so the server stops generating.
 */
function streamOf(decoded: Readable, res: http.IncomingMessage, host: string, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (err: Error) => {
        if (done) return;
        done = true;
        controller.error(signal?.aborted ? abortError(signal) : socketError(err));
      };
      decoded.on('data', (c: Buffer) => {
        if (!done) controller.enqueue(new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
      });
      decoded.on('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      decoded.on('error', fail);
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete)
          fail(Object.assign(new Error(`the connection to ${host} closed before the whole reply arrived`), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
      });
    },
    cancel() {
      done = true;
      res.destroy();
    },
  });
}

function toResponse(status: number, res: http.IncomingMessage, body: Buffer | ReadableStream<Uint8Array>): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    // As fetch gives them: all of them, content-encoding and content-length too (the client reads
    // a content-length of 0 as "no body"), though the body is already decoded.
    try {
      headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      /* a header fetch would refuse too */
    }
  }
  const init = { status, headers, statusText: res.statusMessage ?? '' };
  const payload = NULL_BODY.has(status) ? null : body;
  try {
    return new Response(payload, init);
  } catch {
    // A reason phrase a Response refuses: keep the status, drop the phrase.
    return new Response(payload, { status, headers });
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new Error('The operation was aborted', { cause: reason });
  err.name = 'AbortError';
  return err;
}

/**
 * The socket's error as one of this realm's errors, its name and code kept: the client keeps an
 * error of another realm (a vm context, as under jest) only as a copy without its code.
 */
function socketError(err: Error): Error {
  const code = (err as { code?: unknown }).code;
  const own = new Error(err.message, { cause: err });
  own.name = err.name;
  if (err.stack) own.stack = err.stack;
  return typeof code === 'string' ? Object.assign(own, { code }) : own;
}
