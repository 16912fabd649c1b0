// TaskWorkflow: one task, looping worker → judge (J1, J2) until DONE, BLOCKED, or a request to
// re-decompose, within a bounded number of iterations.
import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { TaskSpec } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import type { Judgement } from '../llm/schemas';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../llm/usage';
import { taskStatusQuery, type TaskStatus } from './messages';
import { llmActivityOptions, workerActivityOptions, type RunOptions } from './options';
import { explainActivityFailure } from './failures';

export interface TaskInput {
  run: RunRef;
  task: TaskSpec;
  steps: string[];
  options: RunOptions;
}

export interface TaskOutcome {
  taskId: string;
  /** REPLAN: the judge asked for re-decomposition (J2); the execution phase decides what to do. */
  state: 'DONE' | 'BLOCKED' | 'REPLAN';
  reason: string;
  iterations: number;
  usage: TokenUsage;
  judge?: Judgement;
  /** Workspace-relative path of the last worker transcript. */
  logPath?: string;
}

export async function TaskWorkflow(input: TaskInput): Promise<TaskOutcome> {
  const { task, options } = input;
  const status: TaskStatus = {
    taskId: task.id,
    state: 'RUNNING',
    iteration: 0,
    maxIterations: options.maxTaskIterations,
    usage: ZERO_USAGE,
  };
  setHandler(taskStatusQuery, () => status);
  let feedback: string | undefined;
  let last: { judge?: Judgement; logPath?: string } = {};

  try {
    while (status.iteration < options.maxTaskIterations) {
      status.iteration += 1;
      status.state = 'RUNNING';
      const worker = await proxyActivities<Activities>(
        workerActivityOptions(options, `worker: ${task.title} (iteration ${status.iteration})`),
      ).runWorkerAgent({
        runId: input.run.runId,
        workspace: input.run.workspace,
        instruction: input.run.instruction,
        task,
        steps: input.steps,
        iteration: status.iteration,
        feedback,
        maxSteps: options.workerMaxSteps,
        commandTimeoutMs: options.commandTimeoutMs,
      });
      status.usage = addUsage(status.usage, worker.usage);
      const judged = await proxyActivities<Activities>(llmActivityOptions(options, `judge: ${task.title}`)).judgeTask({
        ...input.run,
        task,
        workerSummary: worker.summary,
        logPath: worker.logPath,
      });
      status.usage = addUsage(status.usage, judged.usage);
      const judge = judged.value;
      status.lastJudgeReason = judge.reason;
      last = { judge, logPath: worker.logPath };
      const end = (state: TaskOutcome['state']): TaskOutcome => ({
        taskId: task.id,
        state,
        reason: judge.reason,
        iterations: status.iteration,
        usage: status.usage,
        ...last,
      });
      if (judge.success) {
        status.state = 'DONE';
        return end('DONE');
      }
      if (judge.shouldContinue) {
        status.state = 'NEEDS_CONTINUATION';
        feedback = [judge.reason, ...judge.missingRequirements.map((m) => `- missing: ${m}`)].join('\n');
        continue;
      }
      status.state = judge.shouldReplan ? 'RUNNING' : 'BLOCKED';
      return end(judge.shouldReplan ? 'REPLAN' : 'BLOCKED');
    }
  } catch (err) {
    throw explainActivityFailure(`task ${task.id}`, err);
  }
  status.state = 'BLOCKED';
  return {
    taskId: task.id,
    state: 'BLOCKED',
    reason: `not done after ${options.maxTaskIterations} worker iterations: ${status.lastJudgeReason ?? ''}`.trim(),
    iterations: status.iteration,
    usage: status.usage,
    ...last,
  };
}
