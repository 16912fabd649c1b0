// Every signal, update and query of Replanner's workflows, in one place (B3). Names are what users
// type in `temporal workflow query/signal/update --name ...`.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { Phase, TaskRecord } from '../domain/types';
import type { Goal, Reflection } from '../llm/schemas';
import type { TokenUsage } from '../llm/usage';

export type RunStatusValue = 'RUNNING' | 'DONE' | 'BLOCKED' | 'FAILED' | 'CANCELLED';

export interface RunStatus {
  runId: string;
  instruction: string;
  workspace: string;
  phase: Phase | 'finished';
  status: RunStatusValue;
  tasks: TaskRecord[];
  /** Phase executions so far, e.g. { goal_understanding: 1, execution: 2 }. */
  phaseRuns: Partial<Record<Phase, number>>;
  usage: TokenUsage;
  goal?: Goal;
  reflection?: Reflection;
  blocked: { taskId: string; reason: string }[];
  error?: string;
}

/** Summary of a task's outcome reported by the execution phase to the run. */
export interface TaskProgress {
  tasks: TaskRecord[];
  usage: TokenUsage;
}

export const statusQuery = defineQuery<RunStatus>('status');
/** Sent by the execution phase to its run on each task state change, so `status` is live. */
export const taskProgressSignal = defineSignal<[TaskProgress]>('taskProgress');

export interface TaskStatus {
  taskId: string;
  state: TaskRecord['state'];
  iteration: number;
  maxIterations: number;
  lastJudgeReason?: string;
  usage: TokenUsage;
}
export const taskStatusQuery = defineQuery<TaskStatus>('taskStatus');
