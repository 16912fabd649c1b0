// Run options carried in workflow input (so a running workflow never depends on worker env), and
// the activity options derived from them.
import type { ActivityOptions } from '@temporalio/workflow';
import { ActivityCancellationType, type Duration, type RetryPolicy } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import type { LlmCallSettings } from '../domain/llm-form';
import type { PacemakerConfig } from '../domain/pacemaker/config';
import type { RefinementConfig } from '../domain/refinement/config';

export interface RunOptions {
  /** At most this many TaskWorkflows run at once. */
  maxParallelTasks: number;
  /** Worker steps (one LLM request + its tool calls, one activity each) per worker iteration. */
  workerMaxSteps: number;
  /** Heartbeat timeout of a worker step: how soon a step lost with its worker is retried (default 10 s). */
  workerHeartbeatTimeoutMs?: number;
  commandTimeoutMs: number;
  /** The run's config `execution.network`, set by RunWorkflow; it only narrows the worker's sandbox setting. */
  commandNetwork?: boolean;
  /** Retry policy of LLM activities. */
  llmMaxAttempts: number;
  llmRetryInitialMs: number;
  llmCallTimeout: Duration;
  /** Re-asks of the planner when its task graph is invalid. */
  maxGraphRepairs: number;
  /** The run continues as new between phases once its history has this many events (or Temporal suggests it). */
  continueAsNewAfterEvents: number;
  /** Plan-quality refinement, set by RunWorkflow from its parsed config (absent: defaults). */
  refinement?: RefinementConfig;
  /** The Duck Pacemaker, set by RunWorkflow from its parsed config (absent: defaults). */
  pacemaker?: PacemakerConfig;
  /**
   * The structured-output fallback ladder's rung this workflow knows and the run's `llm.timeoutSeconds`; set by RunWorkflow
   * (from its state and config), lowered by any workflow that learns a lower rung (./llm-form.ts).
   */
  llm?: LlmCallSettings;
  /**
   * Workspace affinity: the task queue of the host that owns the run's workspace
   * (`<run's queue>@<host>`), set by RunWorkflow from its input's host. Absent (a run started
   * without a host): every activity stays on the run's own queue.
   */
  hostQueue?: string;
  /** How long the end of a run flushes notifications still queued, at most (default 5 minutes). */
  notifyFlushMs?: number;
  /** The first wait before the run reads its issue's replies for answers (default 10 s; it grows while nothing changes). */
  trackerPollMs?: number;
  /**
   * The run's workflow id, set by RunWorkflow: where its phases and tasks report LLM and
   * host trouble. Not the root of the chain: a run started by the CLI is a child of its workspace lock.
   */
  runWorkflowId?: string;
}

export const DEFAULT_RUN_OPTIONS: RunOptions = {
  maxParallelTasks: 3,
  workerMaxSteps: 24,
  commandTimeoutMs: 120_000,
  llmMaxAttempts: 4,
  llmRetryInitialMs: 1000,
  llmCallTimeout: '3 minutes',
  maxGraphRepairs: 2,
  continueAsNewAfterEvents: 5000,
};

/**
 * LLM calls (and the worker, which makes them) retry alike, a few quick times (a blip); past those
 * an outage pauses the run rather than fail it (src/workflows/llm-trouble.ts). A rejected request never retries here.
 */
function llmRetryPolicy(o: RunOptions): RetryPolicy {
  return {
    initialInterval: o.llmRetryInitialMs,
    backoffCoefficient: 2,
    maximumInterval: '60 seconds',
    maximumAttempts: o.llmMaxAttempts,
    // LlmSlow is retried: a model that stalled once may well answer the next time.
    nonRetryableErrorTypes: ['LlmRequestRejected', 'LlmAccessRejected', 'LlmUnsupported'],
  };
}

/** The request timeout leaves room for the ladder's quick rejections before the attempt times out. */
const LADDER_MARGIN_MS = 60_000;

/**
 * Without a total cap an LLM call is bounded by its progress (src/domain/llm-timeouts.ts: the
 * gateway gives up on a call that stops progressing) and a lost worker by the heartbeat timeout;
 * a slow local model may take an hour for one call and still be working. This is only the backstop.
 */
const LLM_ATTEMPT_BACKSTOP_MS = 24 * 3_600_000;

/** An LLM attempt's start-to-close timeout: the run's total cap (with the ladder's margin) or the backstop. */
function llmAttemptTimeout(o: RunOptions): number {
  const cap = o.llm?.timeoutMs;
  return Math.max(msToNumber(o.llmCallTimeout), cap ? cap + LADDER_MARGIN_MS : LLM_ATTEMPT_BACKSTOP_MS);
}

/** The host's queue for an activity that touches the workspace (src/domain/workspace-host.ts touchesWorkspace). */
export function placed(o: RunOptions, onHost: boolean): Pick<ActivityOptions, 'taskQueue' | 'scheduleToStartTimeout'> {
  // A call no worker of the host starts within seconds fails fast, and the gate asks whether the
  // host is there at all (host-presence.ts); a live idle worker starts it at once.
  return onHost && o.hostQueue ? { taskQueue: o.hostQueue, scheduleToStartTimeout: HOST_START_TIMEOUT_MS } : {};
}

/** How long a call on the workspace host's queue may wait for one of its workers to start it. */
export const HOST_START_TIMEOUT_MS = 5_000;

/** `onHost`: the call reads the workspace (touchesWorkspace), so it runs on the host's queue. */
export function llmActivityOptions(o: RunOptions, summary?: string, onHost = false): ActivityOptions {
  return {
    ...placed(o, onHost),
    startToCloseTimeout: llmAttemptTimeout(o),
    // The activity heartbeats every few seconds; a call lost with its worker is retried soon.
    heartbeatTimeout: LLM_HEARTBEAT_TIMEOUT_MS,
    // TRY_CANCEL: a cancelled run stops waiting at once; the activity aborts its HTTP request.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: llmRetryPolicy(o),
    summary,
  };
}

export function workerActivityOptions(o: RunOptions, summary?: string): ActivityOptions {
  return {
    // The worker step's tools work in the workspace: on the host that holds it.
    ...placed(o, true),
    // One LLM call (bounded by its progress) plus its tool calls (each command bounded by commandTimeoutMs).
    startToCloseTimeout: Math.max(60 * 60_000, llmAttemptTimeout(o)),
    heartbeatTimeout: heartbeatTimeoutMs(o.workerHeartbeatTimeoutMs),
    // WAIT_CANCELLATION_COMPLETED: a cancelled task waits until the worker has really stopped
    // touching the workspace (its running command killed) before it reports CANCELLED.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: llmRetryPolicy(o),
    summary,
  };
}

/** LLM activities (not worker steps) heartbeat every ≤ 3 s; a lost one is retried after 10 s. */
const LLM_HEARTBEAT_TIMEOUT_MS = 10_000;

/**
 * 1 s .. 10 min; anything else (absent, NaN, forged) is the 10 s default: a step lost with its worker
 * is retried within seconds, and a workspace host killed mid-step shows as offline within 30 s.
 */
function heartbeatTimeoutMs(v: number | undefined): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 1000 && v <= 600_000 ? v : 10_000;
}
