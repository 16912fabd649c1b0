// A task its judge (or the user, in a consultation) sent back is replaced by its re-decomposition,
// asked of the planner beside the scheduler; it stays RUNNING meanwhile, so its dependents wait.
// When that may not or cannot happen (re-decomposition off or at its maximum for the chain, a
// failing planner, a plan grown past maxTasks), the task is BLOCKED instead: a failing planner
// never fails the run.
import { isCancellation, log } from '@temporalio/workflow';
import { activeTasks, planSizeVerdict } from '../../domain/plan-size';
import { applyRedecomposition, canRedecompose } from '../../domain/replan';
import { TaskState, type TaskRecord } from '../../domain/types';
import { touchesWorkspace } from '../../domain/workspace-host';
import { rootMessage } from '../failures';
import type { TaskOutcome } from '../task';
import type { TaskBoard } from './board';
import type { LlmCalls } from './llm-calls';
import type { ExecutionInput, Spend } from './types';

export async function redecompose(
  input: ExecutionInput,
  board: TaskBoard,
  calls: { llm: LlmCalls; spend: Spend; planChanged(): void },
  task: TaskRecord,
  o: TaskOutcome,
): Promise<void> {
  const cfg = input.taskReplanning;
  const can = canRedecompose(task, { task_replanning: cfg });
  if (!can.ok) {
    board.set(task.id, { state: TaskState.BLOCKED, summary: `${o.reason}${o.reason ? ' — ' : ''}${can.message}` });
    return;
  }
  try {
    let feedback: string | undefined;
    for (let sizeRepairs = 0; ; sizeRepairs++) {
      const r = await calls
        .llm(
          `re-decompose task ${task.id}`,
          touchesWorkspace('replanTask', { instructionFile: input.run.instructionFile !== undefined, readsRunLog: o.logPath !== undefined }),
          cfg.timeoutSeconds * 1000,
        )
        .replanTask({
          ...input.run,
          task,
          reason: o.reason,
          missingRequirements: o.judge?.missingRequirements ?? [],
          logPath: o.logPath,
          otherTasks: board.tasks.filter((t) => t.id !== task.id).map((t) => ({ id: t.id, title: t.title, state: t.state })),
          ...(feedback ? { feedback } : {}),
        });
      calls.spend(r.usage);
      const applied = applyRedecomposition(board.tasks, task.id, r.value, o.reason, cfg.maxIterations);
      if (!applied.ok) {
        board.set(task.id, { state: TaskState.BLOCKED, summary: `re-decomposition failed: ${applied.reason}` });
        return;
      }
      // The whole plan after the replacement counts; once back to the planner, then BLOCKED.
      const size = planSizeVerdict(activeTasks(applied.tasks).length, input.maxTasks, sizeRepairs);
      if (size.kind === 'ask_again') {
        feedback = size.feedback;
        continue;
      }
      if (size.kind === 'refuse') {
        board.set(task.id, { state: TaskState.BLOCKED, summary: `re-decomposition refused: ${size.problem}` });
        return;
      }
      board.commit(applied.tasks);
      log.info(`task ${task.id} re-decomposed into ${applied.replacementIds.join(', ')}`);
      calls.planChanged();
      return;
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    // A failing planner blocks the task (fallback), it does not fail the run.
    board.set(task.id, { state: TaskState.BLOCKED, summary: `re-decomposition failed: ${rootMessage(err)}` });
  }
}
