// Activities: thin adapters from workflows to the LLM and the workspace. Every LLM call is one
// activity; each validated result goes through the journal so a retry never repeats a finished call.
import type { TaskRecord, TaskSpec } from '../domain/types';
import type { LlmGateway } from '../llm/gateway';
import { actionSequencePrompt, decompositionPrompt, goalUnderstandingPrompt, reflectionPrompt } from '../llm/prompts/planning';
import { judgePrompt } from '../llm/prompts/task';
import { qualityJudgePrompt } from '../llm/prompts/quality';
import { QualityJudgeResultSchema, type QualityJudgeResult } from '../domain/refinement/quality';
import {
  ActionSequenceSchema,
  DecompositionSchema,
  GoalSchema,
  JudgeSchema,
  ReflectionSchema,
  toActionPlan,
  toTaskSpecs,
  type ActionPlan,
  type Goal,
  type Judgement,
  type Reflection,
} from '../llm/schemas';
import type { TokenUsage } from '../llm/usage';
import { Context } from '@temporalio/activity';
import { journaled } from './journal';
import { evidenceFromTranscript, runWorker, workspaceListing, type WorkerInput, type WorkerResult } from './worker-agent';

export interface RunRef {
  runId: string;
  workspace: string;
  instruction: string;
}

export interface WithUsage<T> {
  value: T;
  usage: TokenUsage;
}

export function createActivities(llm: LlmGateway) {
  const signal = () => Context.current().cancellationSignal;
  return {
    async understandGoal(input: RunRef & { feedback?: string }): Promise<WithUsage<Goal>> {
      return journaled(input.workspace, input.runId, async () => {
        const p = goalUnderstandingPrompt({ ...input, workspaceListing: await workspaceListing(input.workspace) });
        const r = await llm.structured({ purpose: 'goal_understanding', schema: GoalSchema, ...p, signal: signal() });
        return { value: r.value, usage: r.usage };
      });
    },

    async decomposeTasks(
      input: RunRef & { goal: Goal; feedback?: string; previousTasks?: TaskSpec[] },
    ): Promise<WithUsage<TaskSpec[]>> {
      return journaled(input.workspace, input.runId, async () => {
        const r = await llm.structured({
          purpose: 'task_decomposition',
          schema: DecompositionSchema,
          ...decompositionPrompt(input),
          signal: signal(),
        });
        return { value: toTaskSpecs(r.value.tasks), usage: r.usage };
      });
    },

    /** R1 / C1: the plan-quality judge (a reply that fails QualityJudgeResultSchema retries this activity). */
    async judgePlanQuality(
      input: RunRef & { goal: Goal; tasks: TaskSpec[]; qualityThreshold: number },
    ): Promise<WithUsage<QualityJudgeResult>> {
      return journaled(input.workspace, input.runId, async () => {
        const r = await llm.structured({
          purpose: 'quality_judge',
          schema: QualityJudgeResultSchema,
          ...qualityJudgePrompt(input),
          signal: signal(),
        });
        return { value: r.value, usage: r.usage };
      });
    },

    async planActions(input: RunRef & { goal: Goal; tasks: TaskSpec[]; feedback?: string }): Promise<WithUsage<ActionPlan>> {
      return journaled(input.workspace, input.runId, async () => {
        const r = await llm.structured({
          purpose: 'action_sequence',
          schema: ActionSequenceSchema,
          ...actionSequencePrompt(input),
          signal: signal(),
        });
        return { value: toActionPlan(r.value), usage: r.usage };
      });
    },

    async runWorkerAgent(input: WorkerInput): Promise<WorkerResult> {
      return journaled(input.workspace, input.runId, () => runWorker(llm, input));
    },

    async judgeTask(
      input: RunRef & { task: TaskSpec; workerSummary: string; logPath: string },
    ): Promise<WithUsage<Judgement>> {
      return journaled(input.workspace, input.runId, async () => {
        const evidence = await evidenceFromTranscript(input.workspace, input.logPath);
        const r = await llm.structured({
          purpose: 'judge',
          schema: JudgeSchema,
          ...judgePrompt({ ...input, evidence }),
          signal: signal(),
        });
        return { value: r.value, usage: r.usage };
      });
    },

    async reflect(input: RunRef & { goal: Goal; tasks: TaskRecord[] }): Promise<WithUsage<Reflection>> {
      return journaled(input.workspace, input.runId, async () => {
        const r = await llm.structured({ purpose: 'reflection', schema: ReflectionSchema, ...reflectionPrompt(input), signal: signal() });
        return { value: r.value, usage: r.usage };
      });
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
