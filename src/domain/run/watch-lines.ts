// What an open `watch` says (V5) while nothing new happens, and when nobody serves the run. A run
// waiting for a person says whose answer it waits for and since when ("waiting for your answer to q1
// (asked 2 min ago)"), a paused one who paused it, and only a run at work says which phase it is in.
// When no worker has picked up the run's work for a while (its queue's pollers), the watch says so
// in one line and starts one, or says how to. Pure: src/client/watch.ts and follow.ts call these.
import { decideLiveness, type Poller } from '../worker-lifecycle';
import { PAUSED_BY } from './waiting';
import { phaseName } from '../words/phases';
import { pauseCause } from '../words/pauses';

/** An open watch tells of a run nobody serves once no worker has polled its queue this long. */
export const NO_WORKER_NOTICE_MS = 20_000;

/** The setting that changes it (seconds, `20s`, `1m`; `off` never tells). */
export const NO_WORKER_NOTICE_ENV = 'REPLANNER_NO_WORKER_NOTICE';

/** "2 min ago", "45 s ago", "just now". */
export function agoText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  const min = Math.floor(s / 60);
  if (min < 90) return `${min} min ago`;
  return `${Math.floor(min / 60)} h ${min % 60} min ago`;
}

/** "2026-01-01 09:05 UTC" from an ISO time (anything else as it is). */
const clockTime = (iso: string): string => (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso);

/** "q1", "q1 and q2", "q1, q2 and q3". */
const listed = (xs: readonly string[]): string => (xs.length < 2 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

export interface QuietRun {
  status: string;
  phase: string;
  questions?: readonly { id: string; status: string; askedAt: string }[];
  consultations?: readonly { id: string; taskId: string }[];
  pauses: readonly { kind: string; by: keyof typeof PAUSED_BY; since: string; reason?: string }[];
}

export interface QuietContext {
  nowMs: number;
  /** When the phase the run is in began (absent: not seen yet). */
  phaseSinceMs?: number;
  /** When each consultation was asked, by its id (from the run's events). */
  consultationAskedMs?: ReadonlyMap<string, number>;
  /** The tasks running and since when; `workerLost`: its worker died (the task stays running, marked "worker lost"). */
  running?: readonly { id: string; sinceMs: number; workerLost?: string }[];
  /** "1m 46s" for a duration. */
  elapsed: (ms: number) => string;
}

/**
 * The line an open watch prints when nothing new was printed for a while: what the run waits for
 * (its questions, its tasks' questions), else who paused it and since when, else the phase it is
 * in and for how long with its running tasks. Undefined when there is nothing to say yet.
 */
export function quietLine(r: QuietRun, c: QuietContext): string | undefined {
  const asked = (r.questions ?? []).filter((q) => q.status === 'pending');
  const waits: string[] = [];
  if (asked.length) {
    const first = Math.min(...asked.map((q) => Date.parse(q.askedAt)).filter(Number.isFinite));
    waits.push(`${listed(asked.map((q) => q.id))}${Number.isFinite(first) ? ` (asked ${agoText(c.nowMs - first)})` : ''}`);
  }
  for (const x of r.consultations ?? []) {
    const at = c.consultationAskedMs?.get(x.id);
    waits.push(`${x.taskId}'s question${at !== undefined ? ` (asked ${agoText(c.nowMs - at)})` : ''}`);
  }
  if (waits.length) return `waiting for your answer to ${waits.join('; and to ')}`;
  const p = r.pauses[0];
  if (p) {
    const since = Date.parse(p.since);
    const ago = Number.isFinite(since) ? ` (${agoText(c.nowMs - since)})` : '';
    const cause = pauseCause(p).replace(/\s+/g, ' ').trim();
    const reason = cause ? `: ${cause.length > 160 ? `${cause.slice(0, 159)}…` : cause}` : '';
    return `paused ${PAUSED_BY[p.by]} since ${clockTime(p.since)}${ago}${reason}`;
  }
  if (c.phaseSinceMs === undefined) return undefined;
  const tasks = (c.running ?? []).map((t) => `${t.id} ${c.elapsed(c.nowMs - t.sinceMs)}${t.workerLost ? ` — ${t.workerLost}` : ''}`);
  return `still in the ${phaseName(r.phase)} phase for ${c.elapsed(c.nowMs - c.phaseSinceMs)}${tasks.length ? ` (running: ${tasks.join(', ')})` : ''}`;
}

/** What an open watch knows of the run's queue between two looks. */
export interface QueueWatch {
  /** The last time a live worker polled it, as far as this watch saw (at first: when the watch began). */
  lastAliveMs: number;
  /** This watch already told of the present silence (told once until a worker polls again). */
  told: boolean;
}

/**
 * One look at the pollers of the run's queue. A live one (src/domain/worker-lifecycle: a dead
 * poller does not count) ends any silence. Else the silence runs from the last sign of a worker
 * (its last poll, or the last look that saw one); once it reaches `noticeMs` (0: never) the watch
 * tells, once: `silentMs` is how long it has lasted.
 */
export function lookAtQueue(w: QueueWatch, p: { pollers: Poller[]; nowMs: number; noticeMs: number }): { watch: QueueWatch; silentMs?: number } {
  if (decideLiveness({ recordedAlive: false, pollers: p.pollers, nowMs: p.nowMs }).alive) return { watch: { lastAliveMs: p.nowMs, told: false } };
  const lastPoll = Math.max(w.lastAliveMs, ...p.pollers.map((x) => x.lastAccessMs ?? -Infinity));
  const silentMs = Math.max(0, p.nowMs - lastPoll);
  if (w.told || p.noticeMs <= 0 || silentMs < p.noticeMs) return { watch: w };
  return { watch: { ...w, told: true }, silentMs };
}

/**
 * The one line that tells of it: "no worker has picked up this run's work for 25 s; starting one",
 * or, when this shell may not start the run's worker, `fix` (how to start it) in its place.
 */
export function noWorkerLine(silentMs: number, fix?: string): string {
  return `no worker has picked up this run's work for ${Math.round(silentMs / 1000)} s; ${fix ?? 'starting one'}`;
}

/** REPLANNER_NO_WORKER_NOTICE: seconds (`20`, `20s`, `1m`) or `off`; ms (0: never), or what is wrong with it. */
export function parseNoWorkerNotice(value: string | undefined): number | { error: string } {
  const v = value?.trim().toLowerCase();
  if (!v) return NO_WORKER_NOTICE_MS;
  if (v === 'off' || v === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(s|m)?$/.exec(v);
  const ms = m ? Number(m[1]) * (m[2] === 'm' ? 60_000 : 1000) : NaN;
  if (!(ms >= 1000 && ms <= 3_600_000)) {
    return { error: `${NO_WORKER_NOTICE_ENV} must be a time from 1s to 60m (e.g. 20s), or off (got "${value}")` };
  }
  return Math.round(ms);
}
