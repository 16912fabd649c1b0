// The run's LLM calls in flight, as `status` and `watch` show them: "task_decomposition:
// reading prompt (2,234 tokens)…", "writing, 140 tokens", and after a failed attempt what failed
// ("the reply stalled after 180 tokens"). Read from the server's description of the run's open
// workflows (the run, its phase child, the execution phase's tasks): each pending activity's
// heartbeat details (the activity beats `{ llm: LlmProgress }` while its request streams) and its
// last failure. Nothing is recorded for it: heartbeats are no history events, and a describe is a
// read. In the Web UI the same details show on each workflow's page, under its pending activities.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { progressLine, progressOf, type LlmProgress } from '../domain/llm-timeouts';
import { LLM_UNAVAILABLE } from '../domain/run/llm-outage';
import { clipLine } from '../domain/text';
import { llmCallText } from '../domain/words/pauses';

export interface LlmCallInFlight {
  workflowId: string;
  activityType: string;
  attempt: number;
  /** What the request is doing now (absent: no beat yet, or not an LLM request's). */
  progress?: LlmProgress;
  /** The previous attempt's failure (a stall, no first token, …), when this is a retry. */
  lastFailure?: string;
  /** V8: the previous attempt found the model not answering: the run's pause says so once, not each retry. */
  outage?: true;
  /** One line for people. */
  line: string;
}

/** Open workflows looked into per read: the run, its phase, the execution phase and its running tasks. */
const MAX_WORKFLOWS = 24;

interface PendingActivity {
  activityType?: { name?: string | null } | null;
  attempt?: number | null;
  heartbeatDetails?: { payloads?: unknown[] | null } | null;
  lastFailure?: { message?: string | null; applicationFailureInfo?: { type?: string | null } | null } | null;
}

/** The LLM calls in flight in the run `runWorkflowId` and its open children (best effort: a workflow that cannot be described is skipped). */
export async function llmCallsInFlight(client: Client, runWorkflowId: string): Promise<LlmCallInFlight[]> {
  const out: LlmCallInFlight[] = [];
  const queue = [runWorkflowId];
  for (let seen = 0; queue.length && seen < MAX_WORKFLOWS; seen++) {
    const id = queue.shift()!;
    const desc = await client.workflow
      .getHandle(id)
      .describe()
      .catch(() => undefined);
    if (!desc || desc.status.name !== 'RUNNING') continue;
    for (const child of desc.raw.pendingChildren ?? []) if (child.workflowId) queue.push(child.workflowId);
    for (const a of (desc.raw.pendingActivities ?? []) as PendingActivity[]) {
      const call = callOf(id, a);
      if (call) out.push(call);
    }
  }
  return out;
}

function callOf(workflowId: string, a: PendingActivity): LlmCallInFlight | undefined {
  const progress = progressOf(detailsOf(a.heartbeatDetails?.payloads));
  const lastFailure = a.lastFailure?.message ? clipLine(a.lastFailure.message, 300) : undefined;
  if (!progress && !lastFailure) return undefined;
  const activityType = a.activityType?.name ?? '?';
  const attempt = a.attempt ?? 1;
  const outage = a.lastFailure?.applicationFailureInfo?.type === LLM_UNAVAILABLE;
  // V8: in words: what the call is for and does, never the activity's name or Temporal's.
  const line = llmCallText({
    purpose: progress?.purpose ?? activityType,
    ...(progress ? { doing: progressLine(progress) } : {}),
    attempt,
    ...(lastFailure ? { lastFailure } : {}),
  });
  return {
    workflowId,
    activityType,
    attempt,
    ...(progress ? { progress } : {}),
    ...(lastFailure ? { lastFailure } : {}),
    ...(outage ? { outage: true as const } : {}),
    line,
  };
}

/** The latest heartbeat's details (the first payload), or undefined. */
function detailsOf(payloads: unknown[] | null | undefined): unknown {
  const first = payloads?.[0];
  if (!first) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(first);
  } catch {
    return undefined;
  }
}
