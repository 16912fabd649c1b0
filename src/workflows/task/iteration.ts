// One iteration of a task: the worker's tool loop, then the judge. The loop is run by
// TaskWorkflow itself: each step is ONE activity (workerStep: one LLM request, then the tool calls
// it asked for), so the history names every step and its tool calls, a crash is recovered by
// Temporal retrying the step in flight, and the task can stop between steps (pause, budgets). The
// transcript stays on disk; history carries each step's small result (tool-call signatures, counts,
// usage, the transcript directory).
import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities, RunRef } from '../../activities';
import type { StuckPromptInput } from '../../llm/prompts/task';
import { stuckWorkerSummary, type StuckFinding } from '../../domain/stuck';
import type { JudgeResult } from '../../domain/replan/judge-outcome';
import type { TaskSpec } from '../../domain/types';
import {
  EMPTY_WORKER_TALLY,
  recordWorkerStep,
  workerIterationDone,
  workerIterationOutcome,
  workerStepLimit,
  type WorkerIterationOutcome,
  type WorkerStepReport,
} from '../../domain/worker-steps';
import { touchesWorkspace } from '../../domain/workspace-host';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../../domain/usage';
import { llmActivityOptions, workerActivityOptions, type RunOptions } from '../options';
import type { PauseGate } from '../pause-gate';

export interface WorkerIterationInput {
  run: RunRef;
  task: TaskSpec;
  steps: string[];
  iteration: number;
  feedback?: string;
  guidance?: string;
  options: RunOptions;
  /** The task's gate (pause, LLM trouble, token loan), through which every step goes. */
  gate?: PauseGate;
  /** Told after each worker step (the task's current details list it). */
  onStep?: (step: number, report: WorkerStepReport) => void;
  /** The previous iteration was stopped by the stuck detector (the prompt says what it repeated). */
  stuck?: StuckPromptInput;
  /** The stuck detector, fed each finished step; a finding ends the iteration at once. */
  watch?: (step: number, report: WorkerStepReport & { usage: TokenUsage }) => StuckFinding | undefined;
}

export type WorkerIterationResult = WorkerIterationOutcome & { usage: TokenUsage; stuck?: StuckFinding };

export async function runWorkerIteration(input: WorkerIterationInput): Promise<WorkerIterationResult> {
  const { run, task, iteration, options } = input;
  const maxSteps = workerStepLimit(options.workerMaxSteps);
  let tally = EMPTY_WORKER_TALLY;
  let usage = ZERO_USAGE;
  // Names this iteration's transcript directory: unique even if an iteration number comes twice.
  const iterationKey = uuid4().slice(0, 13);
  while (!workerIterationDone(tally, maxSteps)) {
    const step = tally.steps + 1;
    // Through the task's gate: no step starts that its token loan cannot pay for (budgetedGate),
    // nor while paused; an LLM outage in a step pauses the run and the step is retried.
    const stepper = proxyActivities<Activities>(workerActivityOptions(options, `worker step ${step}: ${task.title} (iteration ${iteration})`));
    const r = await (input.gate ? input.gate.gated(stepper) : stepper).workerStep({
      runId: run.runId,
      workspace: run.workspace,
      taskId: task.id,
      iteration,
      iterationKey,
      step,
      commandTimeoutMs: options.commandTimeoutMs,
      ...(options.commandNetwork !== undefined ? { network: options.commandNetwork } : {}),
      // Only step 1 writes the prompt; later steps rebuild the conversation from the transcript.
      ...(step === 1
        ? {
            prompt: {
              instruction: run.instruction,
              instructionFile: run.instructionFile,
              task,
              steps: input.steps,
              feedback: input.feedback,
              guidance: input.guidance,
              ...(input.stuck ? { stuck: input.stuck } : {}),
            },
          }
        : {}),
    });
    usage = addUsage(usage, r.usage);
    tally = recordWorkerStep(tally, r);
    input.onStep?.(step, r);
    const stuck = input.watch?.(step, r);
    if (stuck) {
      const outcome = workerIterationOutcome(tally);
      return { ...outcome, summary: stuckWorkerSummary(stuck, tally.steps, tally.summary), usage, stuck };
    }
  }
  return { ...workerIterationOutcome(tally), usage };
}

/** The judge's verdict on what the worker did (through the task's gate, like every LLM call). */
export function judgeIteration(
  run: RunRef,
  task: TaskSpec,
  worker: { summary: string; logPath: string },
  options: RunOptions,
  gate: PauseGate,
): Promise<{ value: JudgeResult; usage: TokenUsage }> {
  return gate
    .gated(proxyActivities<Activities>(llmActivityOptions(options, `judge: ${task.title}`, touchesWorkspace('judgeTask'))))
    .judgeTask({ ...run, task, workerSummary: worker.summary, logPath: worker.logPath });
}
