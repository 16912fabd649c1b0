// Workspace affinity, O2: whether the workspace host's worker is there. Every activity on the host's
// queue has a short schedule-to-start timeout (options.ts placed): a call no worker of that host
// starts in time fails fast instead of waiting unseen. That alone cannot tell a dead host from a
// busy one (all its activity slots taken), nor can the queue's pollers within seconds (a healthy
// idle poller's last access can be a minute old; a dead one is listed for minutes). So the gate
// asks the host itself: a no-op activity on the host's presence queue, which each worker serves
// with slots of its own that no run's work takes. Started in time: the host is there (busy, or
// back); not started: offline, and the run pauses (llm-trouble.ts).
import { ActivityFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { presenceQueueOf } from '../domain/workspace-host';

export interface HostPresence {
  /** A call on the host's queue that no worker of the host started in time. */
  isHostTrouble(err: unknown): boolean;
  /** Whether a worker of the host answers on its presence queue now. */
  present(): Promise<boolean>;
}

/** How long the presence probe may wait for the host's worker to start it. */
export const PRESENCE_START_TIMEOUT_MS = 3_000;

const notStarted = (err: unknown): boolean =>
  err instanceof ActivityFailure && err.cause instanceof TimeoutFailure && err.cause.timeoutType === TimeoutType.SCHEDULE_TO_START;

/** Absent without a host queue: such a run's activities stay on its own queue and time out as before. */
export function hostPresenceOf(hostQueue: string | undefined): HostPresence | undefined {
  if (!hostQueue) return undefined;
  const probe = proxyActivities<Activities>({
    taskQueue: presenceQueueOf(hostQueue),
    scheduleToStartTimeout: PRESENCE_START_TIMEOUT_MS,
    startToCloseTimeout: '10 seconds',
    retry: { maximumAttempts: 1 },
    summary: 'is the workspace host there?',
  });
  return {
    isHostTrouble: notStarted,
    present: () =>
      probe.hostPresent().then(
        () => true,
        // Started but failed (say, cut off): a worker of the host took it, so the host is there.
        (e: unknown) => !notStarted(e),
      ),
  };
}
