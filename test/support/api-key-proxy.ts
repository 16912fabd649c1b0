// A gRPC front door that wants an API key (issue 29), like Temporal Cloud's: an HTTP/2 server on
// loopback with TLS (the test's certificates) that answers UNAUTHENTICATED unless the request
// carries `authorization: Bearer <key>`, and otherwise passes the call through, headers, messages
// and trailers, to a plain Temporal frontend. Test-only; it records what it saw (never the key).
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

export class ApiKeyProxy {
  /** Calls refused for a missing or wrong key, by gRPC method. */
  readonly refused: string[] = [];
  /** Calls passed through, by gRPC method. */
  readonly passed: string[] = [];
  private readonly sessions = new Set<http2.ServerHttp2Session>();

  private constructor(
    private readonly server: http2.Http2SecureServer,
    private readonly upstream: http2.ClientHttp2Session,
    readonly address: string,
  ) {}

  static async start(p: { upstream: string; key: string; cert: Buffer; keyPem: Buffer }): Promise<ApiKeyProxy> {
    const upstream = http2.connect(`http://${p.upstream}`);
    upstream.on('error', () => undefined);
    const server = http2.createSecureServer({ cert: p.cert, key: p.keyPem });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new ApiKeyProxy(server, upstream, `127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('session', (s) => {
      proxy.sessions.add(s);
      s.on('close', () => proxy.sessions.delete(s));
    });
    server.on('stream', (stream, headers) => proxy.onStream(stream, headers, p.key));
    return proxy;
  }

  private onStream(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, key: string): void {
    const method = String(headers[':path'] ?? '');
    stream.on('error', () => undefined);
    if (headers.authorization !== `Bearer ${key}`) {
      this.refused.push(method);
      // A trailers-only gRPC answer: status 16 UNAUTHENTICATED.
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'missing or invalid api key' },
        { endStream: true },
      );
      return;
    }
    this.passed.push(method);
    const out: http2.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':') || k === ':method' || k === ':path') out[k] = v;
    const req = this.upstream.request(out);
    req.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    let trailers: http2.OutgoingHttpHeaders = {};
    req.on('trailers', (t) => (trailers = Object.fromEntries(Object.entries(t).filter(([k]) => !k.startsWith(':'))) as http2.OutgoingHttpHeaders));
    req.on('response', (h) => {
      const respond = Object.fromEntries(Object.entries(h).filter(([k]) => k === ':status' || !k.startsWith(':'))) as http2.OutgoingHttpHeaders;
      if (h['grpc-status'] !== undefined) {
        stream.respond(respond, { endStream: true });
        return;
      }
      stream.respond(respond, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(trailers));
      req.pipe(stream);
    });
    stream.pipe(req);
    stream.on('close', () => {
      if (!req.closed) req.close(http2.constants.NGHTTP2_CANCEL);
    });
  }

  async stop(): Promise<void> {
    for (const s of this.sessions) s.destroy();
    this.upstream.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
