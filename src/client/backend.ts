// Finding (or starting) what a run needs: a Temporal server at TEMPORAL_ADDRESS and a live worker
// polling the task queue of the caller's endpoint + model (src/client/workers.ts). Started
// processes are detached and the server persists to .replanner/temporal.db, so runs outlive the
// CLI invocation.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Client, type Connection } from '@temporalio/client';
import { connectClient, isLocalDevTarget, nothingAnswers, temporalTarget, type TemporalTarget } from '../connection';
import { devServerPorts, serverCommand, type DevServerSettings } from '../domain/printed-commands';
import { connectTimeoutFrom } from '../domain/connect-timeout';
import { ConfigError } from '../domain/config/issues';
import { decideLiveness } from '../domain/worker-lifecycle';
import { PROJECT_ROOT } from '../project-root';
import { pollersOf } from './workers';
import { ensureWorker } from './worker-start';
import { routeOf } from '../route';
import { addMissingSearchAttributes } from './search-attribute-setup';
import { abandonedCallsSettled } from './query-wait';

export interface Backend {
  client: Client;
  connection: Connection;
  address: string;
  namespace: string;
  taskQueue: string;
  close(): Promise<void>;
}

/** Where Temporal is (src/connection.ts: the `temporal` CLI's env vars and TOML profiles) and the run's queue. */
export function settingsFromEnv(env = process.env) {
  return {
    ...temporalTarget(env),
    // REPLANNER_TASK_QUEUE, else the queue of OPENAI_BASE_URL + REPLANNER_MODEL (never the key).
    taskQueue: routeOf(env).taskQueue,
  };
}

/** Where the local dev server is, or is to be started: the address Replanner uses and TEMPORAL_UI_PORT. */
export function devServerSettings(env = process.env): DevServerSettings {
  return { address: temporalTarget(env).address, ...(env.TEMPORAL_UI_PORT ? { uiPort: env.TEMPORAL_UI_PORT } : {}) };
}

/** The Web UI: TEMPORAL_UI_URL, else the local dev server's (its port: devServerPorts). */
function webUiBase(env = process.env): string {
  return env.TEMPORAL_UI_URL || `http://localhost:${devServerPorts(devServerSettings(env)).ui}`;
}

export function webUiUrl(namespace: string, workflowId: string, env = process.env): string {
  return `${webUiBase(env)}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** What to do when no local server answers: start one where Replanner looks (V7). */
function noServerHint(env = process.env): string {
  const s = devServerSettings(env);
  return (
    `no Temporal server answers at ${s.address}. Start one in another shell, from the clone: ${serverCommand(s)} ` +
    `(any \`run\` starts it too), or point TEMPORAL_ADDRESS at yours.`
  );
}

export async function tryConnect(target: TemporalTarget, timeoutMs = 1500): Promise<Connection | undefined> {
  return (await connectOrWhy(target, timeoutMs)).connection;
}

/** A connection, or why there is none (src/connection.ts names the setting to fix). */
export async function connectOrWhy(target: TemporalTarget, timeoutMs: number): Promise<{ connection?: Connection; why?: string }> {
  try {
    // A channel of its own: grpc-js shares subchannels per address by default, and one that failed
    // while the server was still starting stays in exponential reconnect backoff (up to 2 minutes),
    // so later attempts would wait on it long after the server is up.
    return { connection: await connectClient(target, { connectTimeout: timeoutMs, channelArgs: { 'grpc.use_local_subchannel_pool': 1 } }) };
  } catch (e) {
    return { why: e instanceof Error ? e.message : String(e) };
  }
}

export async function connect(env = process.env): Promise<Backend> {
  const s = settingsFromEnv(env);
  const timeoutMs = connectTimeoutFrom(env.REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS);
  if (typeof timeoutMs !== 'number') throw new ConfigError(timeoutMs.error);
  const { connection, why } = await connectOrWhy(s, timeoutMs);
  if (!connection) {
    throw new BackendError(isLocalDevTarget(s) && nothingAnswers(why) ? noServerHint(env) : `${why}`);
  }
  return backendOf(connection, s);
}

function backendOf(connection: Connection, s: ReturnType<typeof settingsFromEnv>): Backend {
  // Not the connection options: they hold the API key, and a Backend is passed around freely.
  return {
    address: s.address,
    namespace: s.namespace,
    taskQueue: s.taskQueue,
    connection,
    client: new Client({ connection, namespace: s.namespace }),
    // A query given up on may still be retrying on this connection: close it once that settles.
    close: async () => {
      const pending = abandonedCallsSettled();
      if (pending) void pending.then(() => connection.close());
      else await connection.close();
    },
  };
}

export class BackendError extends Error {}

/**
 * Connects, starting the persisted local dev server when nothing answers, and a worker for the
 * caller's endpoint + model when no live one polls its queue (or restarting the auto-started one
 * when the caller's key differs). `say` reports what was started.
 */
export async function ensureBackend(say: (line: string) => void, env = process.env): Promise<Backend> {
  const backend = await serverBackend(say, env);
  try {
    await ensureWorker(backend.connection, backend, say, env);
  } catch (e) {
    await backend.close();
    throw e;
  }
  return backend;
}

/** The server at TEMPORAL_ADDRESS, started where none answers on a local address (no worker: see ensureBackend). */
export async function serverBackend(say: (line: string) => void, env = process.env): Promise<Backend> {
  return backendOf(await ensureServer(say, env), settingsFromEnv(env));
}

/**
 * A connection to the server at TEMPORAL_ADDRESS; where none answers on a local address, the
 * persisted dev server is started. The CLI is found or fetched first (with progress), so the wait
 * that follows is for the server alone, never for a download or a build.
 */
export async function ensureServer(say: (line: string) => void, env = process.env): Promise<Connection> {
  const target = settingsFromEnv(env);
  const { address, namespace } = target;
  const local = isLocalDevTarget(target);
  const { connection, why } = await connectOrWhy(target, 1500);
  if (connection) {
    if (local) await addMissingSearchAttributes(connection, namespace, say).catch(() => undefined);
    return connection;
  }
  // A local server that answers, but not to these settings (it speaks TLS, say), is no reason to start another.
  if (!local || !nothingAnswers(why)) throw new BackendError(`${why}`);
  const cli = await ensureTemporalCli(say);
  // scripts/server takes its ports from these two (the address may have come from a profile).
  const ports = devServerPorts(devServerSettings(env));
  const { log, pidFile } = startDetached('bash', [path.join(PROJECT_ROOT, 'scripts/server')], 'server', {
    ...env,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_UI_PORT: String(ports.ui),
    TEMPORAL_CLI_PATH: cli,
  });
  say(
    `Started the local Temporal dev server on ${address} (persisted in .replanner/temporal.db, Web UI ` +
      `http://localhost:${ports.ui}, log ${log}; stop it with \`kill $(cat ${pidFile})\`).`,
  );
  const started = await waitForServer(target, 60_000);
  // Best effort: the flags of scripts/server register them on a new database.
  await addMissingSearchAttributes(started, namespace, say).catch(() => undefined);
  return started;
}

/** Runs scripts/ensure-temporal, passing its progress lines to `say`; resolves to the CLI's path. */
export function ensureTemporalCli(say: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(PROJECT_ROOT, 'scripts/ensure-temporal')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const lines: string[] = [];
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      lines.push(line);
      say(line);
    });
    child.on('error', (err) => reject(new BackendError(`could not run scripts/ensure-temporal: ${err.message}`)));
    child.on('close', (code) => {
      if (code === 0 && out.trim()) resolve(out.trim());
      else reject(new BackendError(`no Temporal CLI: ${lines.slice(-3).join(' ') || `exit ${code}`}`));
    });
  });
}

async function waitForServer(target: TemporalTarget, timeoutMs: number): Promise<Connection> {
  const { address } = target;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const c = await tryConnect(target);
    if (c) return c;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new BackendError(`the Temporal dev server did not come up at ${address} within ${timeoutMs / 1000} s; see .replanner/server.log`);
}

/**
 * The command that stops the local dev server of this clone (scripts/server writes its pid, however
 * it was started), when the address is local and that file names a live process; else undefined.
 */
export function localServerStopCommand(env = process.env): string | undefined {
  if (!isLocalDevTarget(settingsFromEnv(env))) return undefined;
  const pidFile = path.join(PROJECT_ROOT, '.replanner', 'server.pid');
  const pid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim() : NaN);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  return `kill $(cat ${path.relative(process.cwd(), pidFile) || pidFile})`;
}

/** A worker that polled the backend's task queue recently (a dead poller the server still lists does not count). */
export async function hasWorker(b: Backend): Promise<boolean> {
  const pollers = await pollersOf(b.connection, b.namespace, b.taskQueue);
  return decideLiveness({ recordedAlive: false, pollers, nowMs: Date.now() }).alive;
}

function startDetached(cmd: string, args: string[], name: string, env: NodeJS.ProcessEnv): { log: string; pidFile: string } {
  const dir = path.join(PROJECT_ROOT, '.replanner');
  fs.mkdirSync(dir, { recursive: true });
  const logFile = path.join(dir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', out, out], env, cwd: PROJECT_ROOT });
  child.unref();
  const pidFile = path.join(dir, `${name}.pid`);
  if (child.pid) fs.writeFileSync(pidFile, `${child.pid}\n`);
  const rel = (f: string) => path.relative(process.cwd(), f) || f;
  return { log: rel(logFile), pidFile: rel(pidFile) };
}
