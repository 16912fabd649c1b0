// Where each activity of a run ran: walks the run's workflow and its children (phases, tasks) and
// pairs every ActivityTaskScheduled (type, task queue) with its ActivityTaskStarted (worker identity).
import type { Client } from '@temporalio/client';

/** The activities of a plain run that read or write its workspace (they run on the workspace's host). */
export const WORKSPACE_BOUND = new Set(['workerStep', 'understandGoal', 'judgeTask']);
/** Its planning calls (any host may run them). */
export const PLANNING = new Set(['decomposeTasks', 'judgePlanQuality', 'planActions', 'decideReplan', 'reflect']);

export interface ActivityPlace {
  workflowId: string;
  type: string;
  taskQueue: string;
  /** The identity of the worker that started its last attempt (absent: never started). */
  identity?: string;
}

export async function activitiesOfRun(client: Client, workflowId: string): Promise<ActivityPlace[]> {
  const out: ActivityPlace[] = [];
  const seen = new Set<string>();
  const walk = async (id: string, runId?: string): Promise<void> => {
    const key = `${id}/${runId ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    const events = (await client.workflow.getHandle(id, runId).fetchHistory()).events ?? [];
    const scheduled = new Map<string, ActivityPlace>();
    for (const e of events) {
      const s = e.activityTaskScheduledEventAttributes;
      if (s) {
        const place: ActivityPlace = { workflowId: id, type: s.activityType?.name ?? '?', taskQueue: s.taskQueue?.name ?? '?' };
        scheduled.set(String(e.eventId), place);
        out.push(place);
      }
      const started = e.activityTaskStartedEventAttributes;
      if (started) {
        const place = scheduled.get(String(started.scheduledEventId));
        if (place) place.identity = started.identity ?? undefined;
      }
      const child = e.childWorkflowExecutionStartedEventAttributes;
      if (child?.workflowExecution?.workflowId) await walk(child.workflowExecution.workflowId, child.workflowExecution.runId ?? undefined);
    }
  };
  await walk(workflowId);
  return out;
}

/** The host an identity `<pid>@<host> roots=…` names. */
export const hostOfIdentity = (identity: string | undefined): string | undefined => (identity ? /^\d+@(\S+)/.exec(identity)?.[1] : undefined);
