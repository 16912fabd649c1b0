// A git server over HTTP for the push tests: git's own `git http-backend` (CGI) behind a small Node
// HTTP server that asks for Basic auth and takes only `token` as the password, so a push that
// succeeds really used the worker's token. It records every request (method, path, user) for the
// tests to count, and the Authorization headers it saw (never written anywhere else).
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>/<name>.git` for a bare repository `<root>/<name>.git`. */
  urlOf(name: string): string;
  requests: { method: string; path: string; user?: string; authorised: boolean }[];
  /** The next request that `match` is never answered (a push that hangs); resolves when it arrived. */
  holdNext(match: (method: string, path: string) => boolean): Promise<void>;
  /** Answers the held requests with 503 (their git gives up). */
  releaseHeld(): void;
  stop(): Promise<void>;
}

export async function startGitHttpServer(root: string, token: string, user = 'x-access-token'): Promise<GitHttpServer> {
  const requests: GitHttpServer['requests'] = [];
  const holds: { match: (method: string, path: string) => boolean; arrived: () => void }[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const hold = holds.findIndex((x) => x.match(req.method ?? '', url.pathname + url.search));
    if (hold >= 0) {
      held.push(res);
      holds.splice(hold, 1)[0]!.arrived();
      return;
    }
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [u, p] = auth ? Buffer.from(auth, 'base64').toString('utf8').split(':') : [];
    const authorised = u === user && p === token;
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, ...(u !== undefined ? { user: u } : {}), authorised });
    if (!authorised) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
      res.end('authentication required\n');
      return;
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.replace(/^\?/, ''),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: u,
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('utf8').split('\r\n')) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
        else headers[k] = v;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    urlOf: (name) => `http://127.0.0.1:${port}/${name}.git`,
    requests,
    holdNext: (match) => new Promise<void>((arrived) => holds.push({ match, arrived })),
    releaseHeld: () => {
      for (const res of held.splice(0)) {
        res.writeHead(503);
        res.end();
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
