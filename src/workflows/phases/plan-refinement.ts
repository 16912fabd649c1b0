// Task decomposition, step 2: the plan's quality. The judge scores the plan, src/domain/refinement
// decides accept, re-plan or reject (makeRefinementDecision), and a re-plan goes through the
// structure check with its per-task fallback (refinedPlan) until the plan is accepted, or
// rejected, which fails the run with the judge's issues. A failing judge rejects the plan unless
// `refinement.failOpen`.
import { ApplicationFailure, isCancellation, log } from '@temporalio/workflow';
import { DEFAULT_CONFIG } from '../../domain/config';
import {
  acceptedSuggestions,
  DEFAULT_REFINEMENT_CONFIG,
  judgedAttempt,
  judgeFailureResult,
  makeRefinementDecision,
  refinedPlan,
  type QualityJudgeResult,
  type RefinementConfig,
  type RefinementDecision,
} from '../../domain/refinement';
import type { TaskSpec } from '../../domain/types';
import { joinFeedback, refinementFeedback } from '../../llm/prompts/refinement';
import { rootMessage } from '../failures';
import type { PlanQuality, PlanQualityAttempt } from '../messages';
import { phaseLlm, type DecompositionCall } from './phase-call';

/** Judges and refines `initial` until the plan is accepted; throws PlanRejected when it is not. */
export async function refinePlan(call: DecompositionCall, initial: TaskSpec[]): Promise<{ tasks: TaskSpec[]; quality: PlanQuality }> {
  const { input } = call;
  const config = input.options.refinement ?? DEFAULT_REFINEMENT_CONFIG;
  const maxTasks = input.maxTasks ?? DEFAULT_CONFIG.planning.maxTasks;
  const quality: PlanQuality = { outcome: 'accepted', attempts: [], suggestions: [] };
  let tasks = initial;
  let previousScore: number | undefined;
  let suggestionReplansUsed = 0;
  /** Set when a re-plan was refused for its size, so the next one is told the limit. */
  let sizeNote = '';
  for (let attempt = 1; ; attempt++) {
    const judged = await judgePlan(call, tasks, attempt, config);
    const decision = makeRefinementDecision({ attempt, result: judged.result, previousScore, suggestionReplansUsed, config });
    const record: PlanQualityAttempt = judgedAttempt(attempt, judged, decision);
    quality.attempts.push(record);
    log.info(`plan quality attempt ${attempt}: ${decision.reason}`);

    if (decision.action === 'accept') {
      quality.suggestions = acceptedSuggestions(decision);
      return { tasks, quality };
    }
    if (decision.action === 'reject') {
      quality.outcome = 'rejected';
      throw planRejected(decision, judged.result, quality);
    }

    // replan: feedback from the judge's issues and suggestions, then the structure check.
    if (decision.kind === 'suggestions') suggestionReplansUsed += 1;
    previousScore = judged.result.overallScore;
    const feedback = joinFeedback(refinementFeedback(input.feedback, decision, judged.result), sizeNote);
    const next = refinedPlan({ previous: tasks, replanned: await replan(call, tasks, attempt, feedback), maxTasks, config });
    record.structure = next.structure;
    tasks = next.tasks;
    if (next.sizeNote) sizeNote = next.sizeNote;
    log.info(`plan quality re-plan ${attempt}: ${record.structure}`);
  }
}

/** The judge's verdict on the plan; a judge that fails gives judgeFailureResult. */
async function judgePlan(
  call: DecompositionCall,
  tasks: TaskSpec[],
  attempt: number,
  config: RefinementConfig,
): Promise<{ result: QualityJudgeResult; judgeFailed: boolean }> {
  const { input } = call;
  try {
    const r = await phaseLlm(input, call.gate, 'judgePlanQuality', `judge plan quality (attempt ${attempt})`).judgePlanQuality({
      ...input.run,
      goal: input.goal,
      tasks,
      qualityThreshold: config.qualityThreshold,
    });
    call.spent(r.usage);
    return { result: r.value, judgeFailed: false };
  } catch (err) {
    if (isCancellation(err)) throw err;
    // The judge failed: LLM error after retries or an unparseable reply.
    return { result: judgeFailureResult(rootMessage(err), config), judgeFailed: true };
  }
}

/** The planner's new plan, or why it failed (the previous plan is then kept). */
async function replan(
  call: DecompositionCall,
  tasks: TaskSpec[],
  attempt: number,
  feedback: string,
): Promise<{ tasks: TaskSpec[] } | { error: string }> {
  const { input } = call;
  try {
    const r = await phaseLlm(input, call.gate, 'decomposeTasks', `refine the plan (re-plan ${attempt})`).decomposeTasks({
      ...input.run,
      goal: input.goal,
      feedback,
      previousTasks: tasks,
    });
    call.spent(r.usage);
    return { tasks: r.value };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { error: rootMessage(err) };
  }
}

/** The plan was rejected: the phase fails with the judge's issues and the whole record. */
function planRejected(decision: RefinementDecision, result: QualityJudgeResult, quality: PlanQuality): ApplicationFailure {
  const issues = decision.issues ?? result.issues;
  return ApplicationFailure.nonRetryable(
    `task_decomposition: the plan was rejected by the quality judge (${decision.reason})${issues.length ? `: ${issues.join('; ')}` : ''}`,
    'PlanRejected',
    quality,
  );
}
