// What the planning phases share: their input and result, and their LLM calls, each one
// activity started through the phase's gate (paused with the run; within its budget loan)
// and on the workspace's host when it reads the workspace.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities, RunRef } from '../../activities';
import type { LlmRungReport } from '../../domain/llm-form';
import type { Goal, TaskSpec } from '../../domain/types';
import type { TokenUsage } from '../../domain/usage';
import { touchesWorkspace, type RunActivityName } from '../../domain/workspace-host';
import type { LeaseInput } from '../budget-lease';
import { llmActivityOptions, type RunOptions } from '../options';
import type { PauseGate } from '../pause-gate';

export interface PhaseInput {
  run: RunRef;
  options: RunOptions;
  feedback?: string;
  /** The tokens the run lends this phase (absent: no budget). */
  budget?: LeaseInput;
}

export interface PhaseResult<T> extends LlmRungReport {
  value: T;
  usage: TokenUsage;
}

export type DecompositionInput = PhaseInput & {
  goal: Goal;
  previousTasks?: TaskSpec[];
  /** planning.maxTasks (absent: the default). */
  maxTasks?: number;
};

/**
 * The activities of a phase for one call of `activity`: `summary` names the call in the Web UI;
 * the call waits at the gate, and runs on the workspace's host if it reads the workspace
 * (src/domain/workspace-host.ts).
 */
export function phaseLlm(input: Pick<PhaseInput, 'run' | 'options'>, gate: PauseGate, activity: RunActivityName, summary: string): Activities {
  const onHost = touchesWorkspace(activity, { instructionFile: input.run.instructionFile !== undefined });
  return gate.gated(proxyActivities<Activities>(llmActivityOptions(input.options, summary, onHost)));
}

/** One run of the task-decomposition phase, as its steps see it: the input, the gate, and where the LLM usage adds up. */
export interface DecompositionCall {
  input: DecompositionInput;
  gate: PauseGate;
  spent(usage: TokenUsage): void;
}
