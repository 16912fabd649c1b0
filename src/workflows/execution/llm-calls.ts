// The phase's own LLM calls (replan decisions, re-decompositions): through its call gate
// (call-gate.ts), on the workspace host when they read the workspace.
import { proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { llmActivityOptions, type RunOptions } from '../options';
import type { CallGate } from '../call-gate';

export type LlmCalls = (summary: string, onHost: boolean, timeoutMs?: number) => ActivityInterfaceFor<Activities>;

export function llmCalls(options: RunOptions, gate: CallGate): LlmCalls {
  return (summary, onHost, timeoutMs) =>
    gate.gated(
      proxyActivities<Activities>({
        ...llmActivityOptions(options, summary, onHost),
        ...(timeoutMs ? { startToCloseTimeout: timeoutMs } : {}),
      }),
    );
}
