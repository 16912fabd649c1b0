// Run options carried in workflow input (so a running workflow never depends on worker env), and
// the activity options derived from them.
import type { ActivityOptions } from '@temporalio/workflow';
import { ActivityCancellationType, type Duration, type RetryPolicy } from '@temporalio/common';
import type { PacemakerConfig } from '../domain/pacemaker/config';
import type { RefinementConfig } from '../domain/refinement/config';

export interface RunOptions {
  /** At most this many TaskWorkflows run at once. */
  maxParallelTasks: number;
  /**
   * Legacy fixed bound of worker → judge iterations per task. Unused since issue 5: the Duck
   * Pacemaker computes each task's limit (see `pacemaker`); kept so old inputs still parse.
   */
  maxTaskIterations: number;
  /** Tool-calling steps per worker activity. */
  workerMaxSteps: number;
  commandTimeoutMs: number;
  /** Retry policy of LLM activities. */
  llmMaxAttempts: number;
  llmRetryInitialMs: number;
  llmCallTimeout: Duration;
  /** Re-asks of the planner when its task graph is invalid. */
  maxGraphRepairs: number;
  /** The run continues as new between phases once its history has this many events (or Temporal suggests it). */
  continueAsNewAfterEvents: number;
  /** R1–R5 / C3: plan-quality refinement, set by RunWorkflow from its parsed config (absent: defaults). */
  refinement?: RefinementConfig;
  /** P1–P8: the Duck Pacemaker, set by RunWorkflow from its parsed config (absent: defaults). */
  pacemaker?: PacemakerConfig;
}

export const DEFAULT_RUN_OPTIONS: RunOptions = {
  maxParallelTasks: 3,
  maxTaskIterations: 3,
  workerMaxSteps: 24,
  commandTimeoutMs: 120_000,
  llmMaxAttempts: 4,
  llmRetryInitialMs: 1000,
  llmCallTimeout: '3 minutes',
  maxGraphRepairs: 2,
  continueAsNewAfterEvents: 5000,
};

/** LLM calls (and the worker, which makes them) retry alike; a rejected request never does. */
function llmRetryPolicy(o: RunOptions): RetryPolicy {
  return {
    initialInterval: o.llmRetryInitialMs,
    backoffCoefficient: 2,
    maximumInterval: '60 seconds',
    maximumAttempts: o.llmMaxAttempts,
    nonRetryableErrorTypes: ['LlmRequestRejected'],
  };
}

export function llmActivityOptions(o: RunOptions, summary?: string): ActivityOptions {
  return {
    startToCloseTimeout: o.llmCallTimeout,
    // TRY_CANCEL: a cancelled run stops waiting at once; the activity aborts its HTTP request.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: llmRetryPolicy(o),
    summary,
  };
}

export function workerActivityOptions(o: RunOptions, summary?: string): ActivityOptions {
  return {
    startToCloseTimeout: '60 minutes',
    heartbeatTimeout: '30 seconds',
    // WAIT_CANCELLATION_COMPLETED: a cancelled task waits until the worker has really stopped
    // touching the workspace (its running command killed) before it reports CANCELLED.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: llmRetryPolicy(o),
    summary,
  };
}
