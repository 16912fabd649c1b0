// The run is its budget's ledger (O3). RunState.budget holds the limits (raised only by the user's
// answer) and the loans to running children; planningUsage is what was spent (finished phases and
// the run's own calls). When the budget is used up the run pauses with its budget question.
import { applyRaise, budgetQuestionText, learnedLargest, parseBudgetAnswer, stoppedReason, type RunBudget } from '../budget';
import type { QuestionAnswer } from '../replan/questions';
import { addUsage, type TokenUsage } from '../usage';
import { closeOpenTasks, endedEarly } from './phases';
import { askQuestions } from './questions';
import type { PauseState, RunBudgetState, RunState } from './state';

/** Everything the run used so far, including the running execution phase's reported usage. */
export const runUsage = (s: RunState): TokenUsage => addUsage(s.planningUsage, s.executionUsage);

export const budgetPaused = (s: RunState): boolean => s.budget?.waiting !== undefined;

/**
 * What the budget shows as used: runUsage, plus what running children reported in their budget
 * requests beyond what the execution's progress already carries (tasks report usage only when they
 * end), plus what failed children had reported. Only the total is adjusted (cost: runUsage's split).
 */
export function budgetUsage(s: RunState): TokenUsage {
  const u = runUsage(s);
  if (!s.budget) return u;
  const reported = Object.values(s.budget.reported ?? {}).reduce((n, x) => n + x, 0);
  const extra = Math.max(0, reported - s.executionUsage.totalTokens) + (s.budget.lost ?? 0);
  return extra ? { ...u, totalTokens: u.totalTokens + extra } : u;
}

/**
 * A running child's budget request said it has spent `spent` so far (it never goes down). Capped at
 * what it was lent plus one call (a forged request cannot make the run look spent beyond that).
 */
export function noteReportedSpend(s: RunState, childId: string, spent: number): RunState {
  if (!s.budget) return s;
  const capped = Math.min(spent, (s.budget.lent[childId] ?? 0) + s.budget.largest);
  if (capped <= (s.budget.reported?.[childId] ?? 0)) return s;
  return { ...s, budget: { ...s.budget, reported: { ...s.budget.reported, [childId]: capped } } };
}

/**
 * A running child's budget request: what it says it spent (capped with the run's estimate of a call
 * from before this request) and the largest call it saw (learnedLargest: at most what it was lent).
 * A forged request changes the run's estimate of a call and its used tokens only within the child's loans.
 */
export function noteBudgetRequest(s: RunState, childId: string, largest: number, spent: number): RunState {
  if (!s.budget) return s;
  return noteLargestCall(noteReportedSpend(s, childId, spent), learnedLargest(s.budget.largest, s.budget.lent[childId] ?? 0, largest));
}

/** The budget's pause, while the run waits for the answer to its budget question. */
export function budgetPauseView(s: RunState): PauseState | undefined {
  const w = s.budget?.waiting;
  if (!s.budget || !w) return undefined;
  return {
    kind: 'budget',
    by: 'budget',
    reason: `budget used up (${stoppedReason(s.budget.limits, budgetUsage(s)).replace(/^stopped by its budget: /, '')}); answer ${w.questionId}: raise or stop`,
    since: w.since,
  };
}

export function setBudget(s: RunState, limits: RunBudget | undefined): RunState {
  if (!limits || s.budget) return s;
  return { ...s, budget: { limits, lent: {}, largest: 0 } };
}

/** A loan to a running child (or more for it). */
export function lendTokens(s: RunState, childId: string, tokens: number): RunState {
  if (!s.budget || tokens <= 0) return s;
  return { ...s, budget: { ...s.budget, lent: { ...s.budget.lent, [childId]: (s.budget.lent[childId] ?? 0) + tokens } } };
}

/**
 * A child ended: its loan closes (its usage joined planningUsage with its result); `largest` learns
 * its calls. A child that failed (`failed`) reported no usage: its whole loan counts as spent.
 */
export function closeLoan(s: RunState, childId: string, largest = 0, failed = false): RunState {
  if (!s.budget) return s;
  const lent = { ...s.budget.lent };
  delete lent[childId];
  const loan = s.budget.lent[childId] ?? 0;
  const unreported = (s.budget.unreported ?? 0) + (failed ? loan : 0);
  const reported = { ...s.budget.reported };
  const said = reported[childId] ?? 0;
  delete reported[childId];
  const lost = (s.budget.lost ?? 0) + (failed ? Math.max(0, said - s.executionUsage.totalTokens) : 0);
  const budget: RunBudgetState = { ...s.budget, lent, largest: Math.max(s.budget.largest, largest), reported };
  if (unreported) budget.unreported = unreported;
  if (lost) budget.lost = lost;
  if (!Object.keys(reported).length) delete budget.reported;
  return { ...s, budget };
}

export function noteLargestCall(s: RunState, tokens: number): RunState {
  if (!s.budget || tokens <= s.budget.largest) return s;
  return { ...s, budget: { ...s.budget, largest: tokens } };
}

/** The budget is used up: the run pauses with its budget question (once). */
export function pauseForBudget(s: RunState, at: string): RunState {
  if (!s.budget || s.budget.waiting || s.status !== 'RUNNING') return s;
  const asked = askQuestions(s, {
    kind: 'budget',
    phase: s.phase === 'finished' ? 'reflection' : s.phase,
    replanId: '',
    texts: [budgetQuestionText(s.budget.limits, budgetUsage(s))],
    assumptions: [],
    timeoutMinutes: null,
    askedAt: at,
  });
  return { ...asked.state, budget: { ...s.budget, waiting: { since: at, questionId: asked.ids[0]! } } };
}

/** Why an answer to the budget question cannot be taken (undefined: it can, or it is no budget question). */
export function budgetAnswerProblem(s: RunState, a: QuestionAnswer): string | undefined {
  const q = s.questions.find((x) => x.id === a.questionId);
  if (q?.kind !== 'budget' || !s.budget) return undefined;
  const r = parseBudgetAnswer(a.answer, s.budget.limits, budgetUsage(s));
  return r.ok ? undefined : `question ${q.id}: ${r.reason}`;
}

/**
 * The budget question was answered: a raise sets the new limit and ends the budget pause; a stop
 * ends the run STOPPED with the reason. Undefined: the budget question is still waiting.
 */
export function applyBudgetAnswer(s: RunState): { state: RunState; stopped: boolean } | undefined {
  const w = s.budget?.waiting;
  const q = w && s.questions.find((x) => x.id === w.questionId);
  if (!s.budget || !q || q.status !== 'answered') return undefined;
  const r = parseBudgetAnswer(q.answer ?? '', s.budget.limits, budgetUsage(s));
  const budget = { ...s.budget };
  delete budget.waiting;
  if (r.ok && r.answer.action === 'raise')
    return { state: { ...s, budget: { ...budget, limits: applyRaise(budget.limits, r.answer) } }, stopped: false };
  return { state: stopByBudget({ ...s, budget }), stopped: true };
}

/** The run ends STOPPED: "stopped by its budget: used N of M tokens". */
export function stopByBudget(s: RunState): RunState {
  const error = s.budget ? stoppedReason(s.budget.limits, budgetUsage(s)) : 'stopped by its budget';
  return endedEarly({ ...closeOpenTasks(s), error, status: 'STOPPED', phase: 'finished' });
}
