// The run's reads of its own children (src/workflows/run/child-reads.ts), found in its history: the
// results of its inspectOwnWorkflow activities, or, in runs recorded before it used ordinary
// activities, of its local activities (markers).
import type { WorkflowHandle } from '@temporalio/client';

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

const decode = (payloads: { data?: Uint8Array | null }[] | null | undefined): unknown[] =>
  (payloads ?? []).map((p) => {
    try {
      return JSON.parse(Buffer.from(p.data!).toString()) as unknown;
    } catch {
      return undefined;
    }
  });

/** Each read the run finished, in history order: the event that recorded it and what it returned. */
export function childReadsIn(events: HistoryEvent[]): { eventId: number; result: unknown }[] {
  const inspects = new Set(
    events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'inspectOwnWorkflow').map((e) => String(e.eventId)),
  );
  return events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    if (done && inspects.has(String(done.scheduledEventId)))
      return decode(done.result?.payloads).map((result) => ({ eventId: Number(e.eventId), result }));
    const m = e.markerRecordedEventAttributes;
    if (m && m.markerName !== 'core_patch') {
      return Object.values(m.details ?? {}).flatMap((p) => decode(p.payloads).map((result) => ({ eventId: Number(e.eventId), result })));
    }
    return [];
  });
}

/** Whether the run finished a read of a child after the event `afterEventId`. */
export const childReadAfter = (events: HistoryEvent[], afterEventId: number): boolean => childReadsIn(events).some((r) => r.eventId > afterEventId);
