// Reads that must not hang a CLI command: a query with a bounded wait (a busy or gone worker answers nothing).
import type { Client } from '@temporalio/client';
import { taskWorkflowIdOf } from '../domain/run/waiting';
import { taskStatusQuery, type TaskStatus } from '../workflows/messages';

/** `p`, or undefined once `ms` have passed. */
export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
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
