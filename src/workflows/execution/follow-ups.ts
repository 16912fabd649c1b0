// What runs after a task ends, beside the scheduler and never in front of it: the replan decision
// and the re-decomposition of a task its judge sent back. Each job is numbered;
// its end comes to the scheduler as an event in the inbox, in the order things happened.
import type { Inbox } from './inbox';
import type { SchedulerEvent } from './types';

export interface FollowUps {
  /** Runs `job` beside the scheduler; its event says when it ended (it never rejects). */
  start(job: Promise<void>, event: (n: number) => SchedulerEvent): void;
  /** The scheduler took job `n`'s event. */
  ended(n: number): void;
  readonly size: number;
  /** Every job still running (a cancelled phase waits for them). */
  running(): Promise<SchedulerEvent>[];
}

export function followUps(events: Inbox<SchedulerEvent>): FollowUps {
  const jobs = new Map<number, Promise<SchedulerEvent>>();
  let count = 0;
  return {
    start(job, event) {
      const n = ++count;
      const ended = job.then(
        () => event(n),
        (error: unknown) => ({ ...event(n), error }),
      );
      jobs.set(n, ended);
      events.add(ended);
    },
    ended: (n) => void jobs.delete(n),
    get size() {
      return jobs.size;
    },
    running: () => [...jobs.values()],
  };
}
