// Reads that must not hang a CLI command: a query with a bounded wait (a busy or gone worker answers nothing).
import type { Client } from '@temporalio/client';
import { taskWorkflowIdOf } from '../domain/run/waiting';
import { taskStatusQuery, type TaskStatus } from '../workflows/messages';

/**
 * Calls given up on that may still be running: the client retries some failures after a backoff,
 * and a retry whose connection was closed meanwhile throws from its timer ("Channel has been shut
 * down"). The connection is closed once they settle (src/client/backend.ts).
 */
const abandoned = new Set<Promise<unknown>>();

/** `p`, or undefined once `ms` have passed (then `p` is kept among the abandoned calls until it settles). */
export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => ((timedOut = true), resolve(undefined)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
    if (timedOut) {
      const settled: Promise<unknown> = p.then(
        () => abandoned.delete(settled),
        () => abandoned.delete(settled),
      );
      abandoned.add(settled);
    }
  }
}

/** Settles when every call given up on so far has settled; undefined when there is none. */
export function abandonedCallsSettled(): Promise<void> | undefined {
  return abandoned.size ? Promise.allSettled([...abandoned]).then(() => undefined) : undefined;
}

/** A task's status (its taskStatus query) within `waitMs`; undefined when it did not answer or cannot be asked. */
export function taskStatusWithin(
  client: Client,
  runWorkflowId: string,
  taskId: string,
  round: number,
  waitMs: number,
): Promise<TaskStatus | undefined> {
  const handle = client.workflow.getHandle(taskWorkflowIdOf(runWorkflowId, taskId, round));
  return withTimeout(handle.query(taskStatusQuery), waitMs).catch(() => undefined);
}
