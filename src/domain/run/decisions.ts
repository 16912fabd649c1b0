// The run's replan decisions and counters: every decision enters the log here (X9), a replan is
// counted when it is carried out, the replan under way is started (with its jump back to its
// target phase) and ended, succeeded or failed, and what the user said and the alternatives
// already asked for are kept for later prompts.
import {
  appendDecision,
  completeDecision,
  recordReplan,
  type CompletionInput,
  type DecisionRecord,
  type NewDecisionInput,
  type PolicyOutcome,
  type ReplanDecision,
  type ReplanType,
} from '../replan';
import type { ReplanContext } from '../replan/prompt-context';
import { clipCounted } from '../text';
import type { Phase } from '../types';
import { addAssumptions, planSummary, type Jump } from './plan';
import type { ReplanInProgress, RunState } from './state';

/** The task an execution decision was about (the pull request's feedback: its pseudo task, FEEDBACK_TASK_ID). */
const taskOf = (context: ReplanContext): string | undefined => (context.phase === 'execution' ? context.executed.taskId : undefined);
/**
 * What a decision's record names: the task of an action; for the pull request's feedback no task
 * (a plan may have a task of any id, "review" too) but what it is about.
 */
const aboutOf = (context: ReplanContext): Pick<NewDecisionInput, 'taskId' | 'about'> =>
  context.phase !== 'execution' ? {} : context.feedback ? { about: 'pull_request_feedback' } : { taskId: context.executed.taskId };

/** One decision, whatever route it came by, enters the log here. */
export function recordDecision(s: RunState, input: NewDecisionInput): { state: RunState; record: DecisionRecord } {
  const r = appendDecision(s.log, input);
  return { state: { ...s, log: r.log }, record: r.record };
}

/**
 * The decision taken after `phase`, with the plan it would change: kept only when something
 * was proposed (the log stays small), and the task an execution decision was about.
 */
export function recordReplanDecision(
  s: RunState,
  d: { phase: Phase; decision: ReplanDecision; outcome: PolicyOutcome; context: ReplanContext; timestamp: string },
): { state: RunState; record: DecisionRecord } {
  return recordDecision(s, {
    phase: d.phase,
    decision: d.decision,
    outcome: d.outcome,
    timestamp: d.timestamp,
    ...(d.outcome.action === 'none' ? {} : { planBefore: planSummary(s) }),
    ...aboutOf(d.context),
  });
}

export function completeReplan(s: RunState, replanId: string, c: CompletionInput): RunState {
  return { ...s, log: completeDecision(s.log, replanId, c) };
}

/** A decision the user confirmed (its confidence was low) now runs: executed, still pending until its phase finishes. */
export function markExecuted(s: RunState, replanId: string): RunState {
  return { ...s, log: { ...s.log, records: s.log.records.map((r) => (r.replan_id === replanId ? { ...r, executed: true } : r)) } };
}

/** A replan (or a clarification) is counted, against its type's limit and the total, when it is carried out. */
export function countReplan(s: RunState, type: ReplanType, triggerKey: string, phase: Phase): RunState {
  return { ...s, counters: recordReplan(s.counters, type, triggerKey, phase) };
}

export function startReplan(s: RunState, p: ReplanInProgress): RunState {
  return { ...s, inProgress: p };
}

export function endReplan(s: RunState): RunState {
  const next = { ...s };
  delete next.inProgress;
  return next;
}

export function addNotes(s: RunState, notes: string[]): RunState {
  return { ...s, notes: [...s.notes, ...notes] };
}

export function markAlternativesAsked(s: RunState, key: string): RunState {
  return { ...s, alternativesAsked: [...s.alternativesAsked, key] };
}

/**
 * Where a replan decided after `phase` sends the run, and what the target phase is told
 * (`feedback`, worded by src/llm/prompts/replan-feedback.ts). A retry names its task; a plan
 * revision brings its additional actions, which become tasks.
 */
export function replanJump(j: {
  phase: Phase;
  outcome: { targetPhase: Phase; type: ReplanType; keepsCompletedWork: boolean };
  decision: ReplanDecision;
  context: ReplanContext;
  feedback: string;
}): Jump {
  const { outcome: o, decision: d } = j;
  const taskId = taskOf(j.context);
  return {
    target: o.targetPhase,
    type: o.type,
    keepsCompletedWork: o.keepsCompletedWork,
    feedback: j.feedback,
    reason: clipCounted(d.reasoning, 300),
    ...(taskId !== undefined ? { taskId } : {}),
    ...(o.type === 'plan_revision' && d.additional_actions?.length ? { additionalActions: d.additional_actions } : {}),
  };
}

/** The target phase of the replan under way finished: the replan succeeded, with the plan after. */
export function finishReplan(s: RunState, nowMs: number): RunState {
  const p = s.inProgress;
  if (!p) return s;
  return endReplan(completeReplan(s, p.replanId, { result: 'success', durationMs: nowMs - p.startedMs, planAfter: planSummary(s) }));
}

/**
 * The replan under way failed. The run restores the plan before it, so that plan (from the
 * decision's record) is the plan after, with why it failed.
 */
export function failReplan(s: RunState, detail: string, nowMs: number): RunState {
  const p = s.inProgress;
  if (!p) return s;
  const before = s.log.records.find((r) => r.replan_id === p.replanId)?.plan_before ?? { tasks: [] };
  return completeReplan(endReplan(s), p.replanId, {
    result: 'failure',
    durationMs: nowMs - p.startedMs,
    planAfter: { ...before, note: `failed: ${clipCounted(detail, 500)}` },
  });
}

/** Nobody answered a question or a replan that could not run: the run goes on with these assumptions (the goal keeps them) and notes it. */
export function continueOnAssumptions(s: RunState, note: string, assumptions: string[]): RunState {
  return addAssumptions(addNotes(s, [note]), assumptions);
}
