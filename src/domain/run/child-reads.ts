// What the run does with what it read from one of its own children itself (a signal only
// pokes it to look; what a message claims is never taken). Pure: the run workflow reads, these decide.
import type { ConsultationMessage } from './questions';
import type { PendingConsultation, RunState } from './state';

/**
 * The change a task's own current consultation (read from the task: null when none is waiting)
 * makes to the run's view: open it (a newer one replaces the one shown), close the one shown, or
 * nothing (undefined). applyConsultation still checks the result against the run's state.
 */
export function consultationChange(s: RunState, taskId: string, current: PendingConsultation | null): ConsultationMessage | undefined {
  const open = s.consultations.find((c) => c.taskId === taskId);
  if (current) return open?.id === current.id ? undefined : { taskId, consultationId: current.id, consultation: current };
  return open ? { taskId, consultationId: open.id, consultation: null } : undefined;
}

/**
 * A workflow numbers its LLM trouble observations (1, 2, …); the run acts on each one once,
 * so a poke naming a workflow whose latest observation the run already took (a recovery from an
 * earlier outage, a rejection the user has since resumed, an outage another call has since seen
 * end) changes nothing: only an observation numbered after the last one taken from that workflow.
 */
export function freshTroubleObservation(lastTaken: number | undefined, n: number): boolean {
  return Number.isSafeInteger(n) && n > (lastTaken ?? 0);
}
