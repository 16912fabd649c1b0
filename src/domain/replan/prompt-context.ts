// The context of a replan decision (what the workflow tells the replan-decision LLM about the
// phase that ended) and the execution phase's progress (X4: actions done of total, errors,
// consecutive errors and the actions left). Pure. Their words are in src/llm/prompts (replan.ts,
// instruction.ts).
import type { ActionPlan, Goal, Reflection, TaskRecord, TaskSpec } from '../types';

// ------------------------------------------------------------------------------------------------
// Execution progress for the execution-phase replan prompt

export interface ExecutionProgress {
  completed: number;
  total: number;
  errorCount: number;
  consecutiveErrors: number;
  /** Short descriptions of the actions still to run. */
  remaining: string[];
}

/** What the workflow tells the replan-decision LLM about the phase that just ended (src/llm/prompts/replan.ts). */
export type ReplanContext =
  | { phase: 'goal_understanding'; goal: Goal; workspaceListing?: string }
  | { phase: 'task_decomposition'; goal: Goal; tasks: TaskSpec[] }
  | { phase: 'action_sequence'; tasks: TaskSpec[]; actions: ActionPlan }
  | {
      phase: 'execution';
      /** The action just executed (a task's run). */
      executed: { taskId: string; title: string; state: string; summary?: string };
      error?: string;
      progress: ExecutionProgress;
      /** G4: feedback from the run's pull request (a failed check, a review, a command), verbatim and bounded. */
      feedback?: { source: string; text: string };
    }
  | { phase: 'reflection'; goal: Goal; reflection: Reflection; tasks: TaskRecord[] };

export function emptyProgress(total: number, remaining: string[] = []): ExecutionProgress {
  return { completed: 0, total, errorCount: 0, consecutiveErrors: 0, remaining };
}

/** Counts one executed action (immutable): success resets the consecutive-error count. */
export function recordActionResult(p: ExecutionProgress, ok: boolean): ExecutionProgress {
  return {
    completed: ok ? p.completed + 1 : p.completed,
    total: p.total,
    errorCount: ok ? p.errorCount : p.errorCount + 1,
    consecutiveErrors: ok ? 0 : p.consecutiveErrors + 1,
    remaining: ok ? p.remaining.slice(1) : p.remaining,
  };
}

/** Remaining actions a prompt lists; the rest is counted. */
export const PROMPT_REMAINING = 20;

/**
 * The remaining actions as the prompt shows them (at most PROMPT_REMAINING lines, the last
 * one "… N more"). The execution phase keeps only this in a decision's context: the whole list
 * in every decision's input made the history grow with the square of the plan.
 */
export function remainingForPrompt(all: readonly string[], max = PROMPT_REMAINING): string[] {
  return all.length <= max ? [...all] : [...all.slice(0, max - 1), `… ${all.length - (max - 1)} more`];
}
