// What the execution phase is given and returns, the ids of its task children, and the events its
// scheduler waits for.
import type { RunRef } from '../../activities';
import type { TaskReplanningConfig } from '../../domain/config';
import type { LlmRungReport } from '../../domain/llm-form';
import type { ReplanDecision } from '../../domain/replan';
import type { ReplanContext } from '../../domain/replan/prompt-context';
import type { ActionPlan, TaskRecord } from '../../domain/types';
import type { TokenUsage } from '../../domain/usage';
import { taskWorkflowIdOf } from '../../domain/run/waiting';
import type { LeaseInput } from '../budget-lease';
import type { RunOptions } from '../options';
import type { TaskOutcome } from '../task';

/** What the run gives the phase for its replan-decision prompts (the triggers that looped, the history of decisions). */
export interface ExecutionReplanInput {
  loopWarning?: string;
  history?: string[];
  userAnswers?: string[];
}

export interface ExecutionInput {
  run: RunRef;
  options: RunOptions;
  tasks: TaskRecord[];
  actions: ActionPlan;
  /** Workflow id of the RunWorkflow to report progress to. */
  runWorkflowId: string;
  /** Execution round of the run (1, 2, … after replans); from 2 on, task workflow ids get `.<round>`. */
  round: number;
  /** Ask the replan-decision LLM after each action; null: replanning is disabled. */
  replan: ExecutionReplanInput | null;
  /** Re-decompose a task the judge sends back. */
  taskReplanning: TaskReplanningConfig;
  /** planning.maxTasks, for the plan's size after a re-decomposition. */
  maxTasks: number;
  /** The tokens the run lends this phase, which lends on to its tasks (absent: no budget). */
  budget?: LeaseInput;
}

/** A replan decision asked after an action (task) of this phase. */
export interface ExecutionDecision {
  /** The task whose outcome the decision is about. */
  taskId: string;
  decision: ReplanDecision;
  parseError?: string;
  context: ReplanContext;
}

export interface ExecutionResult extends LlmRungReport {
  tasks: TaskRecord[];
  usage: TokenUsage;
  /** Every decision asked: those wanting no replan first, then those wanting one (the phase then ended early), each in answer order. */
  decisions: ExecutionDecision[];
}

/** A task's workflow id: `<run workflow id>.task-<taskId>`, `.<round>` after the first execution round (one rule: the run's details name it too). */
export const taskWorkflowId = taskWorkflowIdOf;

/** What the scheduler waits for: a task child ends, or a follow-up of a task ends (its replan decision or re-decomposition). */
export type SchedulerEvent =
  | { kind: 'task'; id: string; outcome?: TaskOutcome; error?: unknown }
  | { kind: 'redecomposed'; id: string; job: number; error?: unknown }
  | { kind: 'decided'; job: number; error?: unknown };

/** Spends tokens of the phase (its own calls and its tasks'). */
export type Spend = (usage: TokenUsage) => void;
