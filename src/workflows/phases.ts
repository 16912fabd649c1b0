// The planning phases as child workflows (X1): each runs its LLM activity and returns a compact,
// validated result. Replan decisions at each phase's end are added by the replanning layer.
// task_decomposition also judges the plan's quality and refines it (R1–R7).
import { ApplicationFailure, isCancellation, log, proxyActivities } from '@temporalio/workflow';
import { planSizeFeedback, planSizeProblem, planSizeVerdict } from '../domain/plan-size';
import { DEFAULT_CONFIG } from '../domain/config';
import { describeGraphProblem, validateTaskGraph } from '../domain/graph';
import {
  applyIndividualFallback,
  judgeFailureResult,
  makeRefinementDecision,
  DEFAULT_REFINEMENT_CONFIG,
  type QualityJudgeResult,
  type RefinementDecision,
} from '../domain/refinement';
import type { LlmRungReport } from '../domain/llm-form';
import type { ActionPlan, Goal, Reflection, TaskRecord, TaskSpec } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../domain/usage';
import { llmActivityOptions, type RunOptions } from './options';
import { installLease, type LeaseInput } from './budget-lease';
import { installChildGate } from './child-gate';
import type { PauseGate } from './pause-gate';
import { rungReport } from './llm-form';
import { explainActivityFailure, rootMessage } from './failures';
import type { PlanQuality, PlanQualityAttempt } from './messages';
import { touchesWorkspace, type RunActivityName } from '../domain/workspace-host';
import { clip } from '../domain/text';

export interface PhaseInput {
  run: RunRef;
  options: RunOptions;
  feedback?: string;
  /** O3: the tokens the run lends this phase (absent: no budget). */
  budget?: LeaseInput;
}

export interface PhaseResult<T> extends LlmRungReport {
  value: T;
  usage: TokenUsage;
}

/** O1: each LLM call of a phase waits while the run is paused (the gate the run keeps told). */
function llm(options: RunOptions, summary: string, gate: PauseGate, onHost: boolean) {
  return gate.gated(proxyActivities<Activities>(llmActivityOptions(options, summary, onHost)));
}

/** Workspace affinity: where a phase's LLM call runs (src/domain/workspace-host.ts). */
const onHost = (activity: RunActivityName, run: RunRef) => touchesWorkspace(activity, { instructionFile: run.instructionFile !== undefined });

export async function GoalUnderstandingWorkflow(input: PhaseInput): Promise<PhaseResult<Goal>> {
  const gate = installChildGate(input.options, installLease(input.budget)); // O1 + O3 + M1
  try {
    return await llm(input.options, 'understand the goal', gate, onHost('understandGoal', input.run)).understandGoal({
      ...input.run,
      feedback: input.feedback,
    });
  } catch (err) {
    throw explainActivityFailure('goal_understanding', err);
  }
}

export type DecompositionInput = PhaseInput & {
  goal: Goal;
  previousTasks?: TaskSpec[];
  /** S3: planning.maxTasks (absent: the default). */
  maxTasks?: number;
};

/**
 * Decomposes the goal; an invalid task graph or a plan over planning.maxTasks (S3) is sent back to
 * the planner, never executed.
 */
async function decomposeValidGraph(input: DecompositionInput, addTo: (u: TokenUsage) => void, gate: PauseGate): Promise<TaskSpec[]> {
  const maxTasks = input.maxTasks ?? DEFAULT_CONFIG.planning.maxTasks;
  let feedback = input.feedback;
  let sizeRepairs = 0;
  for (let attempt = 0, graphRepairs = 0; ; attempt++) {
    let tasks: TaskSpec[];
    try {
      const r = await llm(
        input.options,
        attempt ? `re-decompose (graph repair ${attempt})` : 'decompose into tasks',
        gate,
        onHost('decomposeTasks', input.run),
      ).decomposeTasks({
        ...input.run,
        goal: input.goal,
        feedback,
        previousTasks: input.previousTasks,
      });
      addTo(r.usage);
      tasks = r.value;
    } catch (err) {
      throw explainActivityFailure('task_decomposition', err);
    }
    const size = planSizeVerdict(tasks.length, maxTasks, sizeRepairs);
    if (size.kind === 'refuse') throw ApplicationFailure.nonRetryable(`task_decomposition: ${size.problem}`, 'PlanTooLarge');
    if (size.kind === 'ask_again') {
      sizeRepairs += 1;
      feedback = [input.feedback, size.feedback].filter(Boolean).join('\n\n');
      continue;
    }
    const problems = validateTaskGraph(tasks).map(describeGraphProblem);
    if (problems.length === 0) return tasks;
    if (graphRepairs++ >= input.options.maxGraphRepairs) {
      throw ApplicationFailure.nonRetryable(
        `task_decomposition produced an invalid task graph ${graphRepairs} times: ${problems.join('; ')}`,
        'InvalidTaskGraph',
      );
    }
    feedback = `Your previous task graph was invalid: ${problems.join('; ')}. Return a valid graph.`;
  }
}

/**
 * Phase 2. A valid task graph is judged by the quality judge (R1) and refined by feedback-based
 * re-plans (R2 makeRefinementDecision, R3 structure check with per-task fallback) until it is
 * accepted — or rejected, which fails the run with the judge's issues. A failing judge rejects
 * the plan unless `refinement.failOpen` (C3).
 */
export async function TaskDecompositionWorkflow(input: DecompositionInput): Promise<PhaseResult<TaskSpec[]> & { quality?: PlanQuality }> {
  const gate = installChildGate(input.options, installLease(input.budget)); // O1 + O3 + M1
  let usage = ZERO_USAGE;
  const addTo = (u: TokenUsage) => (usage = addUsage(usage, u));
  let tasks = await decomposeValidGraph(input, addTo, gate);

  const config = input.options.refinement ?? DEFAULT_REFINEMENT_CONFIG;
  const quality: PlanQuality = { outcome: 'accepted', attempts: [], suggestions: [] };
  let previousScore: number | undefined;
  let suggestionReplansUsed = 0;
  const maxTasks = input.maxTasks ?? DEFAULT_CONFIG.planning.maxTasks;
  /** S3: set when a re-plan was refused for its size, so the next one is told the limit. */
  let sizeNote = '';
  for (let attempt = 1; ; attempt++) {
    let result: QualityJudgeResult;
    let judgeFailed = false;
    try {
      const r = await llm(input.options, `judge plan quality (attempt ${attempt})`, gate, onHost('judgePlanQuality', input.run)).judgePlanQuality({
        ...input.run,
        goal: input.goal,
        tasks,
        qualityThreshold: config.qualityThreshold,
      });
      addTo(r.usage);
      result = r.value;
    } catch (err) {
      if (isCancellation(err)) throw err;
      // C3: LLM error after retries or an unparseable reply.
      result = judgeFailureResult(rootMessage(err), config);
      judgeFailed = true;
    }
    const decision = makeRefinementDecision({ attempt, result, previousScore, suggestionReplansUsed, config });
    const record: PlanQualityAttempt = {
      attempt,
      acceptable: result.isAcceptable,
      issues: result.issues.slice(0, 8).map((i) => clip(i, 300)),
      decision: decision.action,
      reason: decision.reason,
    };
    if (result.overallScore !== undefined) record.score = result.overallScore;
    if (judgeFailed) record.judgeFailed = true;
    quality.attempts.push(record);
    log.info(`plan quality attempt ${attempt}: ${decision.reason}`);

    if (decision.action === 'accept') {
      quality.suggestions = (decision.suggestions ?? []).slice(0, 10).map((x) => clip(x, 300));
      return { value: tasks, usage, quality, ...rungReport(input.options) };
    }
    if (decision.action === 'reject') {
      quality.outcome = 'rejected';
      const issues = decision.issues ?? result.issues;
      throw ApplicationFailure.nonRetryable(
        `task_decomposition: the plan was rejected by the quality judge (${decision.reason})${issues.length ? `: ${issues.join('; ')}` : ''}`,
        'PlanRejected',
        quality,
      );
    }

    // replan (R1): feedback from the judge's issues and suggestions, then the structure check (R3).
    if (decision.kind === 'suggestions') suggestionReplansUsed += 1;
    previousScore = result.overallScore;
    let next: TaskSpec[] | undefined;
    try {
      const r = await llm(input.options, `refine the plan (re-plan ${attempt})`, gate, onHost('decomposeTasks', input.run)).decomposeTasks({
        ...input.run,
        goal: input.goal,
        feedback: [refinementFeedback(input.feedback, decision, result), sizeNote].filter(Boolean).join('\n\n'),
        previousTasks: tasks,
      });
      addTo(r.usage);
      next = r.value;
    } catch (err) {
      if (isCancellation(err)) throw err;
      record.structure = `re-plan failed (${clip(rootMessage(err), 200)}); previous plan kept`;
    }
    const tooLarge = next && planSizeProblem(next.length, maxTasks);
    if (tooLarge) {
      // S3: like a structurally broken re-plan (R3), an oversized one is refused and the previous
      // plan kept; the next re-plan is told the limit.
      record.structure = `re-plan refused (${tooLarge}); previous plan kept`;
      sizeNote = planSizeFeedback(tooLarge, maxTasks);
      next = undefined;
    }
    if (next) {
      const chosen = applyIndividualFallback(tasks, next, config);
      record.structure = `${chosen.used}: ${clip(chosen.reason, 400)}`;
      tasks = chosen.tasks;
    }
    log.info(`plan quality re-plan ${attempt}: ${record.structure}`);
  }
}

/** R1: the planner's feedback for a re-plan: the judge's issues and suggestions. */
function refinementFeedback(phaseFeedback: string | undefined, decision: RefinementDecision, result: QualityJudgeResult): string {
  const issues = decision.issues ?? result.issues;
  const suggestions = decision.suggestions ?? result.suggestions;
  const score = result.overallScore === undefined ? '' : ` (score ${result.overallScore}/100)`;
  return [
    phaseFeedback ?? '',
    decision.kind === 'suggestions'
      ? `The plan quality judge accepted your plan${score} but suggested improvements. Revise the plan to apply them.`
      : `The plan quality judge found your plan not good enough${score}. Revise the plan to fix these issues.`,
    issues.length ? `QUALITY ISSUES:\n${issues.map((i) => `- ${i}`).join('\n')}` : '',
    suggestions.length ? `SUGGESTIONS:\n${suggestions.map((x) => `- ${x}`).join('\n')}` : '',
    'Keep the ids of tasks that stay the same, keep the task count close to the previous plan, and keep every dependency pointing at a task of the plan.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

export async function ActionSequenceWorkflow(input: PhaseInput & { goal: Goal; tasks: TaskSpec[] }): Promise<PhaseResult<ActionPlan>> {
  const gate = installChildGate(input.options, installLease(input.budget)); // O1 + O3 + M1
  try {
    return await llm(input.options, 'plan the action sequence', gate, onHost('planActions', input.run)).planActions({
      ...input.run,
      goal: input.goal,
      tasks: input.tasks,
      feedback: input.feedback,
    });
  } catch (err) {
    throw explainActivityFailure('action_sequence', err);
  }
}

export async function ReflectionWorkflow(input: PhaseInput & { goal: Goal; tasks: TaskRecord[] }): Promise<PhaseResult<Reflection>> {
  const gate = installChildGate(input.options, installLease(input.budget)); // O1 + O3 + M1
  try {
    return await llm(input.options, 'reflect on the run', gate, onHost('reflect', input.run)).reflect({
      ...input.run,
      goal: input.goal,
      tasks: input.tasks,
    });
  } catch (err) {
    throw explainActivityFailure('reflection', err);
  }
}
