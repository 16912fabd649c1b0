// After each action (task) of the phase, the replan-decision LLM is asked whether the run
// should replan, with the progress over the plan's actions. A decision that wants a replan stops
// further task starts (running tasks and pending decisions finish first). Every decision, replan or
// not, goes to the run in the phase's result: the run owns the policy, counters, log and questions.
import { emptyProgress, recordActionResult, wantsReplan, type ExecutionProgress } from '../../domain/replan';
import type { ReplanContext } from '../../domain/replan/prompt-context';
import { TaskState, type TaskRecord } from '../../domain/types';
import { touchesWorkspace } from '../../domain/workspace-host';
import type { TaskBoard } from './board';
import type { LlmCalls } from './llm-calls';
import type { ExecutionDecision, ExecutionInput, ExecutionReplanInput, Spend } from './types';

export interface ReplanDecisions {
  /** A decision wants a replan: no task starts any more. */
  readonly replanWanted: boolean;
  /** After an action, should the run replan? */
  decideAfter(task: TaskRecord, ok: boolean, replan: ExecutionReplanInput): Promise<void>;
  /** The plan's actions changed (a re-decomposition). */
  planChanged(): void;
}

/** The decisions go to `asked`, in answer order. */
export function replanDecisions(input: ExecutionInput, board: TaskBoard, llm: LlmCalls, spend: Spend, asked: ExecutionDecision[]): ReplanDecisions {
  let replanWanted = false;
  let progress: ExecutionProgress = {
    ...emptyProgress(board.active().length),
    completed: board.active().filter((t) => t.state === TaskState.DONE).length,
  };
  return {
    get replanWanted() {
      return replanWanted;
    },
    async decideAfter(task, ok, replan) {
      progress = { ...recordActionResult(progress, ok), total: board.active().length, remaining: board.remaining() };
      const context: ReplanContext = {
        phase: 'execution',
        executed: { taskId: task.id, title: task.title, state: task.state, summary: task.summary },
        ...(ok ? {} : { error: task.summary }),
        progress,
      };
      const r = await llm(
        `replan? after task ${task.id}`,
        touchesWorkspace('decideReplan', { instructionFile: input.run.instructionFile !== undefined }),
      ).decideReplan({ ...input.run, ...replan, context });
      spend(r.usage);
      asked.push({ taskId: task.id, decision: r.value, ...(r.parseError ? { parseError: r.parseError } : {}), context });
      if (!r.parseError && wantsReplan(r.value)) replanWanted = true;
    },
    planChanged() {
      progress = { ...progress, total: board.active().length, remaining: board.remaining() };
    },
  };
}
