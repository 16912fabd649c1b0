// X10 / X11: the delivery queue's policy (src/domain/run/deliveries.ts): order, waits without an
// attempt cap, refusals counted and kept, the checklist behind the queue, and the status line.
import {
  deliveryWaitMs,
  emptyLedger,
  enqueue,
  fingerprint,
  MAX_BACKOFF_MS,
  MAX_REFUSED_KEPT,
  nextDelivery,
  noteFailed,
  noteLeft,
  noteSent,
  notificationsLine,
  waitLeftMs,
  type NextDelivery,
  type NotificationLedger,
} from '../../../src/domain/run/deliveries';

const target = { service: 'github' as const, repo: 'octo/app', kind: 'issue' as const, number: 12 };
const n = (key: string) => ({ kind: 'replan_decided', key, body: `## body of ${key}` });
const T0 = Date.parse('2026-01-01T00:00:00Z');
const outage = { refused: false, message: 'GitHub: 500 server error' };
const refusal = { refused: true, message: 'GitHub: 422 refused — Validation Failed' };

function queued(...keys: string[]): NotificationLedger {
  return enqueue(emptyLedger(target), keys.map(n));
}
const head = (l: NotificationLedger): NextDelivery => nextDelivery(l, undefined)!;

describe('X10 the delivery queue', () => {
  it('X10 keeps what became due in order; a key already queued is not queued twice', () => {
    const l = enqueue(queued('a', 'b'), [n('b'), n('c')]);
    expect(l.queue!.map((x) => x.key)).toEqual(['a', 'b', 'c']);
    expect(enqueue(l, [n('a')])).toBe(l);
  });

  it('X10 X11 the head goes first; the checklist only when the queue is empty and its text changed', () => {
    const l = queued('a');
    expect(nextDelivery(l, 'plan v1')).toMatchObject({ what: 'notification', item: { key: 'a' } });
    const empty = noteSent(l, head(l), 1001);
    const d = nextDelivery(empty, 'plan v1')!;
    expect(d).toEqual({ what: 'checklist', body: 'plan v1', print: fingerprint('plan v1') });
    const sent = noteSent(empty, d, 2000);
    expect(sent).toMatchObject({ checklistCommentId: 2000, checklistSent: fingerprint('plan v1'), delivered: 2 });
    expect(nextDelivery(sent, 'plan v1')).toBeUndefined();
    expect(nextDelivery(sent, 'plan v2')).toMatchObject({ what: 'checklist', body: 'plan v2' });
    expect(nextDelivery(sent, undefined)).toBeUndefined();
  });

  it.each([
    // tries, initial ms, the server's wait → the wait
    [1, 100, undefined, 100],
    [2, 100, undefined, 200],
    [5, 100, undefined, 1600],
    [40, 100, undefined, MAX_BACKOFF_MS],
    [1, 100, 25_000, 25_000],
    // A rate limit's reset is waited for however far away it is.
    [3, 100, 3_600_000, 3_600_000],
    [1, 100, 0, 100],
    [1, 100, Number.NaN, 100],
  ])('X10 after failure %i (from %i ms, the server asked %s ms) the wait is %i ms', (tries, initial, retryAfter, wait) => {
    expect(deliveryWaitMs(tries, initial, retryAfter)).toBe(wait);
  });

  it('X10 an outage: the head stays, marked as maybe posted, and waits (no attempt cap); a success ends the wait and its error', () => {
    let l = queued('a', 'b');
    for (let i = 0; i < 50; i++) l = noteFailed(l, head(l), outage, T0, 100);
    expect(l.queue!.map((x) => [x.key, x.maybePosted])).toEqual([
      ['a', true],
      ['b', undefined],
    ]);
    expect(l.waiting).toEqual({ until: new Date(T0 + MAX_BACKOFF_MS).toISOString(), tries: 50 });
    expect(waitLeftMs(l, T0 + 1000)).toBe(MAX_BACKOFF_MS - 1000);
    expect(notificationsLine(l)).toBe(
      `Notifications: 0 delivered to GitHub octo/app#12 · 2 waiting until ${l.waiting!.until} (GitHub: 500 server error)`,
    );
    const after = noteSent(l, head(l), 1001);
    expect(after.waiting).toBeUndefined();
    expect(after.lastError).toBeUndefined();
    expect(waitLeftMs(after, T0)).toBe(0);
    expect(after.queue!.map((x) => x.key)).toEqual(['b']);
    expect(notificationsLine(after)).toBe('Notifications: 1 delivered to GitHub octo/app#12 · 1 being posted');
  });

  it("X10 a rate limit: the head waits for the server's reset", () => {
    const l = noteFailed(queued('a'), head(queued('a')), { refused: false, message: 'GitHub: 429 rate limited', retryAfterMs: 25_000 }, T0, 100);
    expect(l.waiting!.until).toBe(new Date(T0 + 25_000).toISOString());
  });

  it('X10 a refusal: the notification leaves the queue, counted, its words said, its text kept (the newest few)', () => {
    let l = queued('a', 'b', 'c', 'd', 'e', 'f', 'g');
    l = noteFailed(l, head(l), outage, T0, 100);
    l = noteFailed(l, head(l), refusal, T0, 100);
    expect(l.waiting).toBeUndefined();
    expect(l.queue!.map((x) => x.key)).toEqual(['b', 'c', 'd', 'e', 'f', 'g']);
    expect(l).toMatchObject({ refused: 1, refusal: refusal.message, refusedKept: [{ key: 'a', body: '## body of a', reason: refusal.message }] });
    while (l.queue!.length) l = noteFailed(l, head(l), refusal, T0, 100);
    expect(l.refused).toBe(7);
    expect(l.refusedKept!.map((x) => x.key)).toEqual(['c', 'd', 'e', 'f', 'g']);
    expect(l.refusedKept).toHaveLength(MAX_REFUSED_KEPT);
    expect(notificationsLine(l)).toBe(`Notifications: 0 delivered to GitHub octo/app#12 · 7 notifications could not be posted (${refusal.message})`);
  });

  it('X11 a refused checklist edit is not tried again with the same text; a new text is; its success clears the refusal', () => {
    const l = emptyLedger(target);
    const d = nextDelivery(l, 'plan v1')!;
    const refused = noteFailed(l, d, { refused: true, message: 'GitHub: 403 Forbidden' }, T0, 100);
    expect(nextDelivery(refused, 'plan v1')).toBeUndefined();
    expect(notificationsLine(refused)).toBe(
      'Notifications: 0 delivered to GitHub octo/app#12 · the last checklist edit was refused (GitHub: 403 Forbidden)',
    );
    const d2 = nextDelivery(refused, 'plan v2')!;
    expect(d2).toMatchObject({ what: 'checklist', body: 'plan v2' });
    expect(noteSent(refused, d2, 5).checklistRefusal).toBeUndefined();
    // An outage on a checklist edit waits like a notification.
    const waiting = noteFailed(l, d, outage, T0, 100);
    expect(waiting.waiting).toMatchObject({ tries: 1, checklist: true });
    expect(notificationsLine(waiting)).toContain('· the checklist edit waits until');
  });

  it('X10 the run ends: what is still queued, and a checklist edit not made, are counted as left', () => {
    const l = queued('a', 'b');
    expect(noteLeft(l, undefined).left).toBe(2);
    expect(noteLeft(l, 'plan').left).toBe(3);
    const none = emptyLedger(target);
    expect(noteLeft(none, undefined)).toBe(none);
    const failed = noteFailed(l, head(l), outage, T0, 100);
    expect(notificationsLine(noteLeft(failed, undefined))).toBe(
      'Notifications: 0 delivered to GitHub octo/app#12 · 2 not delivered when the run ended (GitHub: 500 server error)',
    );
  });
});
