// The event log's wiring to the run's state: every change of the state appends the events it
// makes (src/domain/run/event-log.ts compares the two states), and the `events` query reads them.
import { appendRunEvents, runEventsAfter, runEventsBetween, type RunEventsPage } from './event-log';
import { activePauses } from './pause';
import type { RunState } from './state';

/** `next` with the events of the change from `prev` appended to its log (at workflow time `at`). */
export function withEvents(prev: RunState, next: RunState, at: string): RunState {
  if (prev === next) return next;
  const bodies = runEventsBetween({ ...prev, pauses: activePauses(prev) }, { ...next, pauses: activePauses(next) });
  return bodies.length ? { ...next, events: appendRunEvents(next.events, bodies, at) } : next;
}

/** The `events` query: the events after the reader's cursor. */
export const eventsView = (s: RunState, afterSeq: number): RunEventsPage => runEventsAfter(s.events, afterSeq);
