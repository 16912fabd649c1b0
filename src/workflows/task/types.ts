// What a TaskWorkflow is given and what it returns (the execution phase reads the outcome, J6).
import type { RunRef } from '../../activities';
import type { LlmRungReport } from '../../domain/llm-form';
import type { TaskEnd } from '../../domain/pacemaker';
import type { JudgeResult } from '../../domain/replan/judge-outcome';
import type { TaskSpec } from '../../domain/types';
import type { TokenUsage } from '../../domain/usage';
import type { LeaseInput } from '../token-loans';
import type { RunOptions } from '../options';

export interface TaskInput {
  run: RunRef;
  task: TaskSpec;
  steps: string[];
  options: RunOptions;
  /** The RunWorkflow to tell about consultations (P7); absent → not told. */
  runWorkflowId?: string;
  /** O3: the tokens the execution phase lends this task (absent: no budget). */
  budget?: LeaseInput;
}

export interface TaskOutcome extends LlmRungReport {
  taskId: string;
  /** REPLAN: the judge (J2) or the user (P7 redecompose / simplify) asked for re-decomposition; the execution phase decides what to do. */
  state: TaskEnd;
  reason: string;
  iterations: number;
  usage: TokenUsage;
  judge?: JudgeResult;
  /** P9: the stuck detector fired in this task (its line, as the task's details show it). */
  stuck?: string;
  /** Workspace-relative directory of the last worker iteration's transcript (prompt.json, step-NNN.json). */
  logPath?: string;
}
