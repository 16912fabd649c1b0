// The run's record of what it posts to its issue or merge request, and the policy of
// its one delivery queue. The notifications waiting to be posted live here, in the run's state
// (carried across continue-as-new), in order: one that meets an outage or a rate limit waits (one
// workflow timer, backed off or until the server's reset) and is posted later, for as long as the
// run lives; one that is refused for good (401, 403, 404, 422) is counted, said, and its text kept
// for the checklist's history. Pure: src/workflows/run/notifications.ts runs the queue.
import { targetLabel, type NotifyTarget } from '../notifications';
import { clip, clipLine } from '../text';

/** A notification waiting to be posted, in order. */
export interface QueuedNotification {
  kind: string;
  /** Unique within the run: its marker finds a comment an earlier try already posted. */
  key: string;
  body: string;
  /** An earlier try may have posted it (no answer came): look for its marker before posting. */
  maybePosted?: boolean;
}

/** A notification the server refused for good: its text is kept for the checklist's history. */
export interface RefusedNotification {
  kind: string;
  key: string;
  body: string;
  reason: string;
}

/** What the run keeps about its notifications (RunState.notifications). */
export interface NotificationLedger {
  target: string;
  /** The checklist comment, once created (edited in place from then on). */
  checklistCommentId?: number;
  delivered: number;
  /** Notifications (and checklist edits) given up after their retries (runs from before the queue). */
  failed: number;
  /** The error of the wait under way (cleared when a delivery succeeds), or the last one. */
  lastError?: string;
  lastErrorAt?: string;
  /** The notifications not yet posted, oldest first. */
  queue?: QueuedNotification[];
  /** Set while the queue's head (or the checklist) waits after a failure that may pass. */
  waiting?: { until: string; tries: number; checklist?: boolean };
  /** Notifications refused for good, the last refusal's words, and the newest few kept whole. */
  refused?: number;
  refusal?: string;
  refusedKept?: RefusedNotification[];
  /** The checklist text last posted (or refused), as a fingerprint: a continued run edits only a change. */
  checklistSent?: string;
  /** The last checklist edit refused for good (cleared by the next edit that succeeds). */
  checklistRefusal?: string;
  /** Notifications still not posted when the run ended (its bounded final flush). */
  left?: number;
}

export function emptyLedger(target: NotifyTarget): NotificationLedger {
  return { target: targetLabel(target), delivered: 0, failed: 0 };
}

/** Runs from before the queue: one delivery counted. */
export function noteDelivered(l: NotificationLedger, checklistCommentId?: number): NotificationLedger {
  return { ...l, delivered: l.delivered + 1, ...(checklistCommentId !== undefined ? { checklistCommentId } : {}) };
}

/** Runs from before the queue: one delivery given up. */
export function noteUndelivered(l: NotificationLedger, error: string, at: string): NotificationLedger {
  return { ...l, failed: l.failed + 1, lastError: clipLine(error, 500), lastErrorAt: at };
}

// ---------------------------------------------------------------- the queue

/** The refused notifications kept whole (the newest), each clipped. */
export const MAX_REFUSED_KEPT = 5;
const MAX_REFUSED_BODY = 2000;
/** The longest wait between two tries of an outage (a rate limit's reset is waited for however far). */
export const MAX_BACKOFF_MS = 5 * 60_000;

/** Appends what became due, in order; a key already queued is not queued twice. */
export function enqueue(l: NotificationLedger, due: readonly Omit<QueuedNotification, 'maybePosted'>[]): NotificationLedger {
  const queued = new Set((l.queue ?? []).map((n) => n.key));
  const fresh = due.filter((n) => !queued.has(n.key)).map((n) => ({ kind: n.kind, key: n.key, body: n.body }));
  return fresh.length ? { ...l, queue: [...(l.queue ?? []), ...fresh] } : l;
}

/** FNV-1a over the text's UTF-16 units: cheap, stable, enough to tell "this text was posted". */
export function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${text.length.toString(36)}.${h.toString(36)}`;
}

/** The next delivery: the queue's head first (in order), else the checklist when its text changed. */
export type NextDelivery = { what: 'notification'; item: QueuedNotification } | { what: 'checklist'; body: string; print: string };

export function nextDelivery(l: NotificationLedger, checklist: string | undefined): NextDelivery | undefined {
  const head = l.queue?.[0];
  if (head) return { what: 'notification', item: head };
  if (checklist === undefined) return undefined;
  const print = fingerprint(checklist);
  return print === l.checklistSent ? undefined : { what: 'checklist', body: checklist, print };
}

/** A delivery succeeded: the head leaves the queue (or the checklist text is recorded); any wait and its error end. */
export function noteSent(l: NotificationLedger, d: NextDelivery, commentId: number | undefined): NotificationLedger {
  const { waiting: _w, lastError: _e, lastErrorAt: _a, ...rest } = l;
  if (d.what === 'notification') {
    return { ...rest, delivered: l.delivered + 1, queue: (l.queue ?? []).filter((n) => n.key !== d.item.key) };
  }
  const { checklistRefusal: _r, ...kept } = rest;
  return { ...kept, delivered: l.delivered + 1, checklistSent: d.print, ...(commentId !== undefined ? { checklistCommentId: commentId } : {}) };
}

/** What a failed try said (read from the activity's failure by the workflow). */
export interface DeliveryFailureFacts {
  /** Refused for good (the retry table says it will not fix itself). */
  refused: boolean;
  /** One line for `status` (already free of secrets). */
  message: string;
  /** The wait the server asked for (a rate limit's reset, a retry-after). */
  retryAfterMs?: number;
}

/** How long to wait after the `tries`-th failure in a row: the server's wait, else doubling from `initialMs` up to MAX_BACKOFF_MS. */
export function deliveryWaitMs(tries: number, initialMs: number, retryAfterMs?: number): number {
  if (typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs > 0) return Math.round(retryAfterMs);
  const first = Math.max(1, Math.min(initialMs, MAX_BACKOFF_MS));
  return Math.min(MAX_BACKOFF_MS, first * 2 ** Math.min(Math.max(0, tries - 1), 30));
}

/**
 * A try failed. Refused for good: a notification leaves the queue, counted, its text kept
 * (newest MAX_REFUSED_KEPT); a checklist text is not tried again (the next change is). Anything
 * else: the delivery waits (the server's wait, else backoff) and is tried again, first looking for
 * what this try may have posted.
 */
export function noteFailed(l: NotificationLedger, d: NextDelivery, f: DeliveryFailureFacts, nowMs: number, initialMs: number): NotificationLedger {
  const message = clipLine(f.message || 'failed', 500);
  const at = new Date(nowMs).toISOString();
  if (f.refused) {
    const { waiting: _w, ...rest } = l;
    if (d.what === 'checklist') return { ...rest, checklistSent: d.print, checklistRefusal: message, lastError: message, lastErrorAt: at };
    const kept: RefusedNotification = { kind: d.item.kind, key: d.item.key, body: clip(d.item.body, MAX_REFUSED_BODY), reason: message };
    return {
      ...rest,
      queue: (l.queue ?? []).filter((n) => n.key !== d.item.key),
      refused: (l.refused ?? 0) + 1,
      refusal: message,
      refusedKept: [...(l.refusedKept ?? []), kept].slice(-MAX_REFUSED_KEPT),
      lastError: message,
      lastErrorAt: at,
    };
  }
  const tries = (l.waiting?.tries ?? 0) + 1;
  const until = new Date(nowMs + deliveryWaitMs(tries, initialMs, f.retryAfterMs)).toISOString();
  const queue = d.what === 'notification' ? (l.queue ?? []).map((n) => (n.key === d.item.key ? { ...n, maybePosted: true } : n)) : l.queue;
  return {
    ...l,
    ...(queue ? { queue } : {}),
    waiting: { until, tries, ...(d.what === 'checklist' ? { checklist: true } : {}) },
    lastError: message,
    lastErrorAt: at,
  };
}

/** How long the delivery under way still waits (0: try now). */
export function waitLeftMs(l: NotificationLedger, nowMs: number): number {
  return l.waiting ? Math.max(0, Date.parse(l.waiting.until) - nowMs) : 0;
}

/** The run ends and its final flush is over: what is still queued (and a checklist edit not made) is counted as not delivered. */
export function noteLeft(l: NotificationLedger, checklist: string | undefined): NotificationLedger {
  const checklistPending = checklist !== undefined && fingerprint(checklist) !== l.checklistSent;
  const left = (l.queue?.length ?? 0) + (checklistPending ? 1 : 0);
  return left ? { ...l, left } : l;
}

// ---------------------------------------------------------------- what `status` shows

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What `status` shows, the current state first: "Notifications: 4 delivered to GitHub o/r#12",
 * then what waits ("· 3 waiting until 12:00:03Z (GitHub: 500 server error)"), what was refused
 * ("· 2 could not be posted (GitHub: 422 refused — …)") and what the run's end left.
 */
export function notificationsLine(l: NotificationLedger): string {
  const ok = `${l.delivered} delivered to ${l.target}`;
  if (l.failed && l.queue === undefined && !l.refused && !l.waiting) {
    // A run from before the queue: given up after its retries.
    return `Notifications: ${l.lastError ?? 'failed'} — ${plural(l.failed, 'notification')} not delivered (${ok})`;
  }
  const parts = [`Notifications: ${ok}`];
  const queued = l.queue?.length ?? 0;
  if (l.left) parts.push(`${l.left} not delivered when the run ended (${l.lastError ?? 'no answer'})`);
  else if (l.waiting) {
    const what = queued ? `${queued} waiting` : 'the checklist edit waits';
    parts.push(`${what} until ${l.waiting.until} (${l.lastError ?? 'no answer'})`);
  } else if (queued) parts.push(`${queued} being posted`);
  if (l.refused) parts.push(`${plural(l.refused, 'notification')} could not be posted (${l.refusal ?? 'refused'})`);
  if (l.checklistRefusal) parts.push(`the last checklist edit was refused (${l.checklistRefusal})`);
  if (l.failed) parts.push(`${l.failed} given up earlier`);
  return parts.join(' · ');
}
