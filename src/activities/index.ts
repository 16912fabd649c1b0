// Activities: thin adapters from workflows to the LLM and the workspace. Every LLM call is one
// activity; its reply goes into the journal the moment it is complete (before it is checked), so a
// retry never asks again for a reply that arrived. While the call streams, the activity heartbeats
// what it is doing (`{ llm: LlmProgress }`: reading the prompt, writing N tokens; `watch` and
// the Web UI's pending activities show it), with no history event per token.
import type { ActionPlan, Goal, Reflection, TaskRecord, TaskSpec } from '../domain/types';
import type { LlmGateway } from '../llm/gateway';
import { actionSequencePrompt, decompositionPrompt, goalUnderstandingPrompt, reflectionPrompt } from '../llm/prompts/planning';
import { judgePrompt } from '../llm/prompts/task';
import { qualityJudgePrompt } from '../llm/prompts/quality';
import { replanDecisionPrompt, taskReplanPrompt, type ReplanPromptInput } from '../llm/prompts/replan';
import type { ReplanContext } from '../domain/replan/prompt-context';
import { TOOL_NAMES } from './tools';
import {
  decisionSchemaFor,
  NO_REPLAN,
  parseDecision,
  QualityJudgeResultSchema,
  type QualityJudgeResult,
  type ReplanDecision,
  ActionSequenceSchema,
  DecompositionSchema,
  GoalSchema,
  JudgeSchema,
  ReflectionSchema,
  toActionPlan,
  toTaskSpecs,
  type Judgement,
} from '../llm/schemas';
import { Context } from '@temporalio/activity';
import { journaledCalls, reportOf, type ActivitySettings, type RunRef, type WithUsage } from './journaled-call';

export type { ActivitySettings, RunRef, WithUsage };
import { evidenceFromTranscript, runWorkerStep, type WorkerStepInput, type WorkerStepResult } from './worker-step';
import { workspaceListing } from './workspace-listing';
import { createNotificationActivities } from './notifications';
import { createGitActivities } from './git';
import { createForgeActivities } from './forge';
import { inspectOwnWorkflow, pokeRunProgress } from './inspect';
import { clearStaleWorkspaceLock, workspaceLockId } from './workspace-lock';

export function createActivities(llm: LlmGateway, settings: ActivitySettings) {
  const { journaledText, ask } = journaledCalls(llm, settings);

  return {
    // Notifications and the plan checklist on the run's issue or merge request (tokens: the worker's environment).
    ...createNotificationActivities(),
    ...createGitActivities(),
    ...createForgeActivities(),
    /** The run's trusted look into its own child (see inspect.ts). */
    inspectOwnWorkflow,
    /** The execution phase's poke to its run, from phases recorded before it was a signal (a local activity; see inspect.ts). */
    pokeRunProgress,
    /** The run's workspace lock: its id, and whether the run holding it still runs (see workspace-lock.ts). */
    workspaceLockId,
    clearStaleWorkspaceLock,
    /** Workspace affinity: answered on the host's presence queue, it says the host's worker is there (src/workflows/call-gate.ts). */
    async hostPresent(): Promise<void> {},

    async understandGoal(input: RunRef & { feedback?: string }): Promise<WithUsage<Goal>> {
      return ask(input, 'goal_understanding', GoalSchema, async (instruction) =>
        goalUnderstandingPrompt({ ...input, instruction, workspaceListing: await workspaceListing(input.workspace) }),
      );
    },

    async decomposeTasks(input: RunRef & { goal: Goal; feedback?: string; previousTasks?: TaskSpec[] }): Promise<WithUsage<TaskSpec[]>> {
      const r = await ask(input, 'task_decomposition', DecompositionSchema, (instruction) => decompositionPrompt({ ...input, instruction }));
      return { ...r, value: toTaskSpecs(r.value.tasks) };
    },

    /** The plan-quality judge (a reply that fails QualityJudgeResultSchema retries this activity). */
    async judgePlanQuality(input: RunRef & { goal: Goal; tasks: TaskSpec[]; qualityThreshold: number }): Promise<WithUsage<QualityJudgeResult>> {
      return ask(input, 'quality_judge', QualityJudgeResultSchema, (instruction) => qualityJudgePrompt({ ...input, instruction }));
    },

    async planActions(input: RunRef & { goal: Goal; tasks: TaskSpec[]; feedback?: string }): Promise<WithUsage<ActionPlan>> {
      const r = await ask(input, 'action_sequence', ActionSequenceSchema, (instruction) => actionSequencePrompt({ ...input, instruction }));
      return { ...r, value: toActionPlan(r.value) };
    },

    /** One worker step: one LLM request, then the tool calls it asked for (see worker-step.ts). */
    async workerStep(input: WorkerStepInput): Promise<WorkerStepResult> {
      return runWorkerStep(llm, input);
    },

    async judgeTask(input: RunRef & { task: TaskSpec; workerSummary: string; logPath: string }): Promise<WithUsage<Judgement>> {
      return ask(input, 'judge', JudgeSchema, async (instruction) =>
        judgePrompt({ ...input, instruction, evidence: await evidenceFromTranscript(input.workspace, input.logPath) }),
      );
    },

    /**
     * The replan decision at a phase's end (in execution: after each action). The reply is parsed
     * leniently (JSON, then a markdown code block); an unparseable one is "no replan" with the reason
     * kept (`parseError`), never a retry: the run goes on with its current plan.
     */
    async decideReplan(
      input: RunRef & Omit<ReplanPromptInput, 'instruction' | 'toolNames' | 'context'> & { context: ReplanContext },
    ): Promise<WithUsage<ReplanDecision> & { parseError?: string }> {
      const phase = input.context.phase;
      return journaledText(
        input,
        'replan_decision',
        decisionSchemaFor(phase),
        async (instruction) => {
          const context =
            input.context.phase === 'goal_understanding' && input.context.workspaceListing === undefined
              ? { ...input.context, workspaceListing: await workspaceListing(input.workspace) }
              : input.context;
          return replanDecisionPrompt({ ...input, instruction, context, toolNames: TOOL_NAMES });
        },
        (r) => {
          const parsed = parseDecision(phase, r.raw);
          if (parsed.ok) return { value: parsed.decision, usage: r.usage, ...reportOf(r) };
          Context.current().log.warn(`unparseable replan decision in ${phase}, treated as no replan: ${parsed.reason}`);
          return { value: NO_REPLAN(`unparseable replan decision: ${parsed.reason}`), usage: r.usage, parseError: parsed.reason, ...reportOf(r) };
        },
      );
    },

    /** Re-decompose a task the judge sent back into smaller ones; the prompt holds the user's instruction and the Coverage criterion. */
    async replanTask(
      input: RunRef & {
        task: TaskSpec;
        reason: string;
        missingRequirements: string[];
        logPath?: string;
        otherTasks: { id: string; title: string; state: string }[];
        feedback?: string;
      },
    ): Promise<WithUsage<TaskSpec[]>> {
      const r = await ask(input, 'task_replan', DecompositionSchema, async (instruction) =>
        taskReplanPrompt({
          ...input,
          instruction,
          runLog: input.logPath ? await evidenceFromTranscript(input.workspace, input.logPath, 6000) : '',
        }),
      );
      return { ...r, value: toTaskSpecs(r.value.tasks) };
    },

    async reflect(input: RunRef & { goal: Goal; tasks: TaskRecord[] }): Promise<WithUsage<Reflection>> {
      return ask(input, 'reflection', ReflectionSchema, (instruction) => reflectionPrompt({ ...input, instruction }));
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
