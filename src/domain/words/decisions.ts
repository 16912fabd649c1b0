// V8: the run's decisions about its plan, as people read them. After each phase and task the model
// is asked whether the plan still holds; most of the time it does, and that decision is not a
// replan: it is "plan kept". Only a change that was carried out is a plan change (a replan), and
// only those are counted as such. A clarification is a question to you, not a change of plan. The
// records keep their ids (`replan-7`) and machine kinds for `--json`. Pure.
import { planChangesMade } from '../replan/limits';
import { phaseName } from './phases';

/** What each kind of plan change does, in the README's words ("How a run works"). */
export const REPLAN_TYPE_NAMES: Readonly<Record<string, string>> = {
  clarification_request: 'ask you a question',
  goal_revision: 'rethink the goal',
  task_redecomposition: 'split the tasks again',
  action_regeneration: 'plan the steps again',
  retry: 'retry the task',
  partial_replan: 're-plan the remaining steps',
  full_replan: 'plan the tasks again from the start',
  plan_revision: 'add the missing work as new tasks',
};

/** A kind of plan change in words ("retry the task"); an unknown one with its underscores as spaces. */
export function replanTypeName(type: string | undefined): string {
  if (!type) return 'change the plan';
  return REPLAN_TYPE_NAMES[type] ?? type.replace(/_/g, ' ');
}

/** A decision's id as people read it: `replan-7` → "decision 7" (every decision has one, not only replans). */
export function decisionName(id: string): string {
  return id.replace(/^replan-/, 'decision ');
}

/** Why a wanted change did not run, in words. */
const WHY_NOT: Readonly<Record<string, string>> = {
  phase_limit: 'that kind of change reached its limit',
  global_limit: 'the run has used all its plan changes',
  low_confidence: 'the model was not sure enough',
  very_low_confidence: 'the model was too unsure',
  loop_detected: 'the same change keeps coming back for the same reason',
  disabled: 'replanning is turned off',
  user_declined: 'you said no',
  no_confirmation: 'nobody confirmed it',
};

function whyNot(reason: string | undefined): string {
  if (!reason) return 'it was refused';
  if (reason.startsWith('confirmed but ')) return 'it could no longer run when you confirmed it';
  return WHY_NOT[reason] ?? reason.replace(/_/g, ' ');
}

/** What a decision (a record, or a `watch` event of one) says about the plan. */
export interface DecisionFacts {
  /** What the policy did (none, replan, clarify, confirm, ignore, override; 'replan wanted' while its phase still runs). */
  outcome?: string;
  replanType?: string;
  targetPhase?: string;
  executed: boolean;
  result: string;
  overrideReason?: string;
}

export type DecisionKind = 'plan_changed' | 'question' | 'confirmation' | 'wanted' | 'kept';

/** Whether a decision changed the plan, asked a question, waits for a yes or no, or kept the plan. */
export function decisionKind(d: Pick<DecisionFacts, 'outcome' | 'executed' | 'result'>): DecisionKind {
  switch (d.outcome) {
    case 'replan':
      return 'plan_changed';
    case 'clarify':
      return 'question';
    case 'confirm':
      return d.executed ? 'plan_changed' : d.result === 'pending' ? 'confirmation' : 'kept';
    case 'replan wanted':
      return 'wanted';
    case undefined:
      return d.executed ? 'plan_changed' : 'kept';
    default:
      return 'kept';
  }
}

/**
 * What came of a decision, in words: "plan kept", "plan kept (it wanted to retry the task, but the
 * model was too unsure)", "plan changed: split the tasks again (back to Tasks)", "asked you a
 * question", "asks you to confirm: rethink the goal", "wants to change the plan: retry the task".
 */
export function decisionWhat(d: DecisionFacts): string {
  const type = replanTypeName(d.replanType);
  const back = d.targetPhase ? ` (back to ${phaseName(d.targetPhase)})` : '';
  switch (decisionKind(d)) {
    case 'plan_changed':
      return `plan changed: ${type}${back}`;
    case 'question':
      return 'asked you a question';
    case 'confirmation':
      return `asks you to confirm: ${type}${back}`;
    case 'wanted':
      return `wants to change the plan: ${type}`;
    case 'kept':
      if (d.outcome === 'none') return 'plan kept';
      if (d.outcome === undefined) return d.overrideReason ? `plan kept (${whyNot(d.overrideReason)})` : 'plan kept';
      return `plan kept (it wanted to ${type}, but ${whyNot(d.overrideReason)})`;
  }
}

/**
 * How a decision that does something ended or stands; empty for a kept plan (nothing more to say).
 * `runEnded` says why a run that has ended left it pending ("the run was cancelled"): nothing waits then.
 */
export function decisionResult(d: DecisionFacts, runEnded?: string): string {
  const kind = decisionKind(d);
  if (kind === 'kept' || kind === 'wanted') return '';
  if (d.result === 'pending' && runEnded !== undefined)
    return kind === 'question' || kind === 'confirmation' ? `never answered: ${runEnded}` : `not finished: ${runEnded}`;
  if (kind === 'question') {
    if (d.result === 'pending') return 'waiting for your answer';
    if (d.overrideReason === 'no_response_assumed') return 'nobody answered: it went on with its assumptions';
    return d.result === 'success' ? 'answered' : d.result === 'failure' ? 'the phase failed after the answer' : '';
  }
  if (kind === 'confirmation') return 'waiting for your yes or no';
  return d.result === 'success'
    ? 'done'
    : d.result === 'failure'
      ? 'failed (the plan before it was restored)'
      : d.result === 'pending'
        ? 'under way'
        : '';
}

/** The counters as `status` and `decisions` carry them (older runs: per phase only). */
export interface CountersView {
  total: number;
  byType?: Partial<Record<string, number>>;
}

/**
 * The plan changes a run carried out: every counted replan but the clarifications (a question to
 * you changes no plan), with the count of each kind in words. Older runs that counted by phase only
 * keep their total.
 */
export function planChanges(c: CountersView): { total: number; byKind: { name: string; count: number }[] } {
  const byType = c.byType ?? {};
  const byKind = Object.entries(byType)
    .filter(([t, n]) => t !== 'clarification_request' && (n ?? 0) > 0)
    .map(([t, n]) => ({ name: replanTypeName(t), count: n ?? 0 }));
  return { total: planChangesMade(c), byKind };
}

/** "2 (retry the task 1, split the tasks again 1)", or "0". */
export function planChangesText(c: CountersView): string {
  const p = planChanges(c);
  return `${p.total}${p.byKind.length ? ` (${p.byKind.map((k) => `${k.name} ${k.count}`).join(', ')})` : ''}`;
}

/** What came of a decision and how it stands, in one phrase: "plan changed: retry the task (back to Execution) · done". */
export function decisionSays(d: DecisionFacts, runEnded?: string): string {
  return [decisionWhat(d), decisionResult(d, runEnded)].filter(Boolean).join(' · ');
}

/** The facts of a decision out of its record (src/domain/replan/decision-log.ts), in the words' names. */
export function decisionFactsOf(r: {
  outcome?: string;
  replan_type?: string;
  target_phase?: string;
  executed: boolean;
  result: string;
  override_reason?: string;
}): DecisionFacts {
  return {
    ...(r.outcome ? { outcome: r.outcome } : {}),
    ...(r.replan_type ? { replanType: r.replan_type } : {}),
    ...(r.target_phase ? { targetPhase: r.target_phase } : {}),
    executed: r.executed,
    result: r.result,
    ...(r.override_reason ? { overrideReason: r.override_reason } : {}),
  };
}

/**
 * What a decision was about, for people: its phase, and in execution the task ("Execution (task
 * test)") or the pull request's feedback ("Execution (feedback on the pull request)").
 */
export function decisionSubject(d: { phase: string; taskId?: string; about?: string }): string {
  if (d.about === 'pull_request_feedback') return `${phaseName(d.phase)} (feedback on the pull request)`;
  return d.taskId !== undefined ? `${phaseName(d.phase)} (task ${d.taskId})` : phaseName(d.phase);
}
