// The live tests' parts (test/e2e/live-model.test.ts, live-stuck.test.ts): scripts/ensure-llm-server
// started on a free port and stopped; a logging HTTP proxy in front of it that counts every request;
// the production worker in this process against it.
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createWorker } from '../../src/worker';
import { cli } from './cli';
import { temporalAddress, uniqueId } from './harness';

const ROOT = path.resolve(__dirname, '../..');

export interface Logged {
  method: string;
  path: string;
  purpose: string;
  /** response_format.type of a chat request, 'tools' for a tool request, '' otherwise. */
  form: string;
  /** Request body size in bytes (the prompt's size, roughly 4 bytes a token). */
  bytes: number;
  stream: boolean;
  status?: number;
  startedAt: number;
  /** ms from the request to its first streamed chunk with content (the model read the prompt). */
  firstTokenMs?: number;
  /** ms from the request to the end of the reply. */
  ms?: number;
  /** Streamed chunks with content (about a token each). */
  tokens: number;
  /** The client went away before the reply ended (the proxy closed the upstream connection too). */
  aborted?: boolean;
  /** The proxy's local port towards the server: the server's log names it. */
  upstreamPort?: number;
  error?: string;
}

/** scripts/ensure-llm-server --start on a free port; its progress goes to stderr; failure fails the suite. */
export async function startLlmServer(): Promise<{ url: string; pid: number; log: string }> {
  const port = await freePort();
  const child: ChildProcess = spawn('bash', [path.join(ROOT, 'scripts/ensure-llm-server'), '--start'], {
    cwd: ROOT,
    env: { ...process.env, REPLANNER_LIVE_LLM_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    process.stderr.write(d);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const [url, pid, log] = out.trim().split(/\s+/);
  if (code !== 0 || !url || !pid || !log) {
    throw new Error(`scripts/ensure-llm-server --start failed (exit ${code}): ${err.trim().split('\n').slice(-10).join('\n') || out}`);
  }
  return { url, pid: Number(pid), log };
}

/** SIGTERM, then SIGKILL after 3 s: uvicorn's graceful stop waits for a generation in flight, which may take minutes. */
export async function stopServer(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 30 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(pid, 'SIGKILL');
}

/**
 * A logging HTTP proxy: forwards everything to `target`, recording each request, its status, when
 * its streamed reply's first content came and how many chunks it had; a client that goes away
 * closes the upstream connection too (so the server sees the disconnect).
 */
export async function startProxy(target: string): Promise<{ url: string; requests: Logged[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const requests: Logged[] = [];
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let form = '';
      let stream = false;
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { response_format?: { type?: string }; tools?: unknown[]; stream?: boolean };
        form = parsed.response_format?.type ?? (parsed.tools?.length ? 'tools' : 'text');
        stream = parsed.stream === true;
      } catch {
        /* not JSON (a GET) */
      }
      const purpose = [req.headers['x-replanner-purpose'] ?? ''].flat()[0] ?? '';
      const started = Date.now();
      const entry: Logged = {
        method: req.method ?? '?',
        path: req.url ?? '',
        purpose,
        form,
        bytes: body.length,
        stream,
        startedAt: started,
        tokens: 0,
      };
      requests.push(entry);
      const headers = { ...req.headers, host: upstream.host, connection: 'close' };
      // A connection of its own per request (agent: false): the server's log names each one by its port.
      const out = http.request(
        { hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent: false },
        (up) => {
          entry.status = up.statusCode;
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.on('data', (c: Buffer) => {
            const n = (c.toString('utf8').match(/"delta": \{"(content|tool_calls)"/g) ?? []).length;
            if (n && entry.firstTokenMs === undefined) entry.firstTokenMs = Date.now() - started;
            entry.tokens += n;
          });
          up.pipe(res);
          up.on('end', () => {
            entry.ms = Date.now() - started;
            // A whole (non-streamed) reply: its first token is its end.
            if (!stream) entry.firstTokenMs ??= entry.ms;
          });
        },
      );
      out.on('socket', (s) => s.on('connect', () => (entry.upstreamPort = s.localPort)));
      res.on('close', () => {
        if (!res.writableFinished) {
          entry.aborted = true;
          out.destroy();
        }
      });
      // The server closed the connection: so does the proxy (the client sees what it would see direct).
      out.on('error', (e) => {
        entry.error = e.message;
        res.destroy();
      });
      out.end(body);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        srv.close(() => r());
        srv.closeAllConnections();
      }),
  };
}

/** A free local port (bound, then closed): nothing listens on it until someone does. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** The model the live tests run (scripts/ensure-llm-server serves it under this name). */
export const LIVE_MODEL = 'smollm2-135m';
/** The live tests' instruction (issue 22's, and issue 32's). */
export const LIVE_INSTRUCTION = 'Create a file hello.txt containing the word hello.';

export interface LiveWorker {
  client: Client;
  taskQueue: string;
  /** The shell the CLI sees: the live model behind `baseURL`, this worker's task queue. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** The production worker in this process (no total cap) on a fresh task queue, against the model behind `baseURL`. */
export async function startLiveWorker(baseURL: string, prefix: string, shell: NodeJS.ProcessEnv): Promise<LiveWorker> {
  const address = temporalAddress();
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const taskQueue = uniqueId(prefix);
  const bundle = process.env.REPLANNER_TEST_BUNDLE;
  const worker = await createWorker({
    connection: nativeConnection,
    taskQueue,
    llm: { apiKey: 'not-needed', baseURL, model: LIVE_MODEL },
    workflowBundle: bundle ? { codePath: bundle } : undefined,
  });
  const running = worker.run();
  return {
    client: new Client({ connection }),
    taskQueue,
    env: { ...shell, OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'not-needed', REPLANNER_MODEL: LIVE_MODEL, REPLANNER_TASK_QUEUE: taskQueue },
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** `replanner run` of the live instruction with the run's config file and token budget. */
export function runLive(id: string, workspace: string, config: string, budgetTokens: number): ReturnType<typeof cli> {
  return cli('run', LIVE_INSTRUCTION, '--workspace', workspace, '--id', id, '--config', config, '--budget-tokens', String(budgetTokens));
}
