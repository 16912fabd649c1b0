// How a RunWorkflow is started, wherever it is started from (the client library, the workspace
// lock): its workflow id, the memo `list` and the workspace check read, the search attributes
// `status` filters on, and the Web UI summary. Workflow-safe (no Node builtins).
import type { SearchAttributePair } from '@temporalio/common';
import { runStaticMetadata } from '../domain/run/checklist';
import { startMemo } from '../domain/start-memo';
import { hostNameProblem } from '../domain/workspace-host';
import { HOST_KEY, PHASE_KEY, STATUS_KEY } from './search-attributes';
import { runWorkflowId } from './run-id';
import type { RunInput } from './run';

export interface RunStartOptions {
  workflowId: string;
  memo: { instruction: string; workspace: string };
  typedSearchAttributes: SearchAttributePair[];
  staticSummary: string;
  staticDetails: string;
}

export function runStartOptions(input: Pick<RunInput, 'runId' | 'instruction' | 'workspace' | 'instructionFile' | 'host'>): RunStartOptions {
  return {
    workflowId: runWorkflowId(input.runId),
    // Under Temporal's 2,048-byte memo warning whatever the instruction (startMemo).
    memo: startMemo(input.instruction, input.workspace),
    typedSearchAttributes: [
      { key: PHASE_KEY, value: 'goal_understanding' },
      { key: STATUS_KEY, value: 'RUNNING' },
      ...(hostNameProblem(input.host) === undefined ? [{ key: HOST_KEY, value: input.host as string }] : []),
    ],
    // The instruction in the Web UI, clipped to its limits (summary 200 bytes, details 20 KB).
    ...runStaticMetadata(input.instruction, input.instructionFile),
  };
}
