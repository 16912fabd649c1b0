// What a TaskWorkflow is given and what it returns (the execution phase reads the outcome, and re-decomposes a task that asks for it).
import type { RunRef } from '../../activities';
import type { LlmRungReport } from '../../domain/llm-form';
import type { TaskEnd } from '../../domain/pacemaker';
import type { JudgeResult } from '../../domain/replan/judge-outcome';
import type { TaskSpec } from '../../domain/types';
import type { TokenUsage } from '../../domain/usage';
import type { LeaseInput } from '../budget-lease';
import type { RunOptions } from '../options';

export interface TaskInput {
  run: RunRef;
  task: TaskSpec;
  steps: string[];
  options: RunOptions;
  /** The RunWorkflow to tell about the pacemaker's consultations; absent → not told. */
  runWorkflowId?: string;
  /** The tokens the execution phase lends this task (absent: no budget). */
  budget?: LeaseInput;
}

export interface TaskOutcome extends LlmRungReport {
  taskId: string;
  /**
   * REPLAN: the judge or the user (a consultation answered redecompose / simplify) asked for
   * re-decomposition; the execution phase decides what to do.
   */
  state: TaskEnd;
  reason: string;
  iterations: number;
  usage: TokenUsage;
  judge?: JudgeResult;
  /** The stuck detector fired in this task (its line, as the task's details show it). */
  stuck?: string;
  /** Workspace-relative directory of the last worker iteration's transcript (prompt.json, step-NNN.json). */
  logPath?: string;
}
