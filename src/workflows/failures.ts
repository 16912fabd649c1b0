// Turns the chain ActivityFailure → ApplicationFailure into one message a user can act on.
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, isCancellation } from '@temporalio/workflow';

export function rootMessage(err: unknown): string {
  let e: unknown = err;
  while ((e instanceof ActivityFailure || e instanceof ChildWorkflowFailure) && e.cause) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

export function explainActivityFailure(phase: string, err: unknown): unknown {
  if (isCancellation(err)) return err;
  return ApplicationFailure.nonRetryable(`${phase} failed: ${rootMessage(err)}`, 'PhaseFailed');
}
