// Worker lifecycle, a worker you can trust: which task queue a run goes to, whether a worker for it
// is alive, whether the auto-started worker must be restarted, and when an idle worker exits. Pure
// policy: the CLI (src/client/workers.ts) and the worker process (src/worker-main.ts) call these.

/** The prefix of every derived task queue: `replanner-<10 hex digits>`. */
export const QUEUE_PREFIX = 'replanner-';

/** How long an auto-started worker waits with no work before it exits (REPLANNER_WORKER_IDLE_EXIT). */
export const DEFAULT_IDLE_EXIT_MS = 15 * 60_000;

/**
 * A poller counts as a live worker only when it polled this recently. An idle worker re-polls when
 * its long poll expires (about 60 s on the server), so its last access is at most that old; the
 * server keeps a dead poller listed for about a minute after its last poll.
 */
export const POLLER_FRESH_MS = 70_000;

/**
 * The endpoint as routing sees it: scheme and host lower-cased, default port, trailing slashes,
 * query and fragment dropped, so `HTTP://Host:80/v1/` and `http://host/v1` share a worker.
 */
export function normaliseEndpoint(baseURL: string): string {
  const raw = baseURL.trim();
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw.replace(/\/+$/, '');
  }
  const port = u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443')) ? `:${u.port}` : '';
  const pathPart = u.pathname.replace(/\/+$/, '');
  return `${u.protocol}//${u.hostname.toLowerCase()}${port}${pathPart}`;
}

/**
 * The task queue of an (endpoint, model) pair: never the key, so one worker per endpoint and model
 * serves every run started with them. `digest` is a hex hash (sha256 in the CLI and the worker).
 */
export function taskQueueFor(baseURL: string, model: string, digest: (s: string) => string): string {
  return `${QUEUE_PREFIX}${digest(`${normaliseEndpoint(baseURL)}\n${model.trim()}`).slice(0, 10)}`;
}

/** An explicit REPLANNER_TASK_QUEUE wins (users who run their own workers); else the derived queue. */
export function chooseTaskQueue(explicit: string | undefined, baseURL: string, model: string, digest: (s: string) => string): string {
  const e = explicit?.trim();
  return e ? e : taskQueueFor(baseURL, model, digest);
}

/** What the CLI records for each worker it started (never the key: its sha256). */
export interface WorkerRecord {
  pid: number;
  taskQueue: string;
  endpoint: string;
  model: string;
  keySha256: string;
  startedAt: string;
  log: string;
  /** The Temporal server and namespace it polls. */
  address: string;
  namespace: string;
}

export interface Poller {
  identity: string;
  /** ms since the epoch; undefined when the server did not say. */
  lastAccessMs?: number;
  /**
   * For a poller on this host (identity `<pid>@<this host>`): whether that pid still runs. A
   * worker that exited here stays listed by the server with a fresh last access for a minute.
   */
  localAlive?: boolean;
}

export type Liveness =
  { alive: true; by: 'recorded'; pid: number } | { alive: true; by: 'poller'; identity: string } | { alive: false; stalePid?: number };

/**
 * A dead poller does not count. The recorded auto-started worker is alive when its pid runs our
 * worker (`recordedAlive`); any other poller counts only when it polled within `freshMs`, never
 * when it is the recorded worker's own (the SDK's identity is `<pid>@<host>`) and never when it is
 * a process of this host that has exited.
 */
export function decideLiveness(p: {
  record?: Pick<WorkerRecord, 'pid'>;
  recordedAlive: boolean;
  pollers: Poller[];
  nowMs: number;
  freshMs?: number;
}): Liveness {
  if (p.record && p.recordedAlive) return { alive: true, by: 'recorded', pid: p.record.pid };
  const fresh = p.freshMs ?? POLLER_FRESH_MS;
  const own = p.record ? `${p.record.pid}@` : undefined;
  const other = p.pollers.find(
    (x) =>
      !(own && x.identity.startsWith(own)) && x.localAlive !== false && x.lastAccessMs !== undefined && Math.abs(p.nowMs - x.lastAccessMs) <= fresh,
  );
  if (other) return { alive: true, by: 'poller', identity: other.identity };
  return p.record ? { alive: false, stalePid: p.record.pid } : { alive: false };
}

export interface WantedWorker {
  endpoint: string;
  model: string;
  keySha256: string;
}

/**
 * Whether the running auto-started worker must make way for one with the caller's settings, and
 * why (one line for the user); undefined when it serves the caller as is. The endpoint and model
 * can differ only under an explicit REPLANNER_TASK_QUEUE (the derived queue names them).
 */
export function restartReason(running: Pick<WorkerRecord, 'endpoint' | 'model' | 'keySha256'>, wanted: WantedWorker): string | undefined {
  if (normaliseEndpoint(running.endpoint) !== normaliseEndpoint(wanted.endpoint)) {
    return `its endpoint ${running.endpoint} differs from your OPENAI_BASE_URL ${wanted.endpoint}`;
  }
  if (running.model !== wanted.model) return `its model ${running.model} differs from your REPLANNER_MODEL ${wanted.model}`;
  if (running.keySha256 !== wanted.keySha256) return 'your OPENAI_API_KEY differs from the one it was started with';
  return undefined;
}

/**
 * REPLANNER_WORKER_IDLE_EXIT: `15m`, `90s`, `1h`, a bare number of seconds, or `0`/`off`/`never`
 * (no idle exit). Returns ms, 0 for never, or an error message for anything else.
 */
export function parseIdleExit(value: string | undefined, fallbackMs: number): number | { error: string } {
  const v = value?.trim().toLowerCase();
  if (!v) return fallbackMs;
  if (v === 'off' || v === 'never' || v === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(v);
  if (!m) return { error: `REPLANNER_WORKER_IDLE_EXIT must be a duration like 15m, 90s or 1h, or off (got "${value}")` };
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const ms = n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000);
  if (ms > 0 && ms < 1000) return { error: `REPLANNER_WORKER_IDLE_EXIT must be at least 1s (got "${value}")` };
  return Math.round(ms);
}

/**
 * A worker is busy while it runs an activity or a workflow activation. Once it has been idle for
 * `idleMs` (0: never) it may exit — but only if mayLeaveQueue agrees (no open workflow on its queue).
 */
export function shouldIdleExit(p: {
  inFlightActivities: number;
  inFlightActivations: number;
  lastWorkMs: number;
  nowMs: number;
  idleMs: number;
}): boolean {
  if (p.idleMs <= 0) return false;
  if (p.inFlightActivities > 0 || p.inFlightActivations > 0) return false;
  return p.nowMs - p.lastWorkMs >= p.idleMs;
}

/**
 * Nothing strands a run: an idle worker leaves its task queue only when no workflow on it
 * is open (`openWorkflows`: visibility's count of running executions on the queue — runs, their
 * phases and tasks, workspace locks; undefined: it could not be counted). An open run may be
 * waiting on a timer (a question's auto-assume timeout, an LLM outage probe, a backoff) whose
 * firing needs a worker, and nobody may be at the keyboard to start one; a worker that stayed costs
 * one idle process. Unknown counts as open: better an idle worker than a stranded run.
 */
export function mayLeaveQueue(openWorkflows: number | undefined): boolean {
  return openWorkflows === 0;
}

/** `5m 3s` for the log and `worker status`. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m}m ${s % 60}s` : `${m}m`;
  return m % 60 ? `${Math.floor(m / 60)}h ${m % 60}m` : `${Math.floor(m / 60)}h`;
}
