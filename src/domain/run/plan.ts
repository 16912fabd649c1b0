// The run's plan: its goal, tasks and actions, the jump a replan makes back to an earlier phase and
// the plan restored when that replan fails, and the execution phase's reports of its tasks (taken
// only from that phase itself, so a forged or stale report changes nothing).
import { planSnapshot, type PlanSnapshot } from '../replan/decision-log';
import type { ReplanType } from '../replan/decision';
import { applyJump as jumpTasks } from '../replan/jump';
import { TaskState, type ActionPlan, type Goal, type Phase, type Reflection, type TaskRecord, type TaskSpec } from '../types';
import type { TokenUsage } from '../usage';
import { planArrived, reviseChecklist } from './checklist';
import { MAX_NOTES_PER_READ, type ExecutionDecisionNote } from './event-log';
import type { Applied, PlanQuality, RunState } from './state';

export function setGoal(s: RunState, goal: Goal): RunState {
  return { ...s, goal };
}

/** Assumptions the run goes on with when nobody answered its questions join the goal. */
export function addAssumptions(s: RunState, assumptions: string[]): RunState {
  return s.goal ? { ...s, goal: { ...s.goal, assumptions: [...s.goal.assumptions, ...assumptions] } } : s;
}

/** A new decomposition is a new plan (and a new checklist): its tasks READY, no actions yet. */
export function setDecomposition(s: RunState, specs: TaskSpec[], quality?: PlanQuality): RunState {
  const checklist = planArrived(s.checklist);
  return {
    ...s,
    tasks: specs.map((t): TaskRecord => ({ ...t, state: TaskState.READY })),
    actions: {},
    ...(quality ? { quality } : {}),
    ...(checklist ? { checklist } : {}),
  };
}

export function addActions(s: RunState, planned: ActionPlan): RunState {
  return { ...s, actions: { ...s.actions, ...planned } };
}

/** Tasks still to plan actions for: all but DONE and replaced ones. */
export function tasksToPlan(s: RunState): TaskSpec[] {
  return s.tasks.filter((t) => t.state !== TaskState.DONE && t.state !== TaskState.REPLACED_BY_REPLAN).map(specOf);
}

export const specOf = ({ id, title, description, acceptanceCriteria, dependencies, scopePaths, profile }: TaskRecord): TaskSpec => ({
  id,
  title,
  description,
  acceptanceCriteria,
  dependencies,
  scopePaths,
  profile,
});

export function setReflection(s: RunState, reflection: Reflection): RunState {
  return { ...s, reflection };
}

/** The phase's feedback: why a replan sent the run back here, and what the user said (taken once). */
export function takeFeedback(s: RunState, phase: Phase): { state: RunState; feedback?: string } {
  const notes = s.notes.length ? `USER ANSWERS AND ASSUMPTIONS:\n${s.notes.map((n) => `- ${n}`).join('\n')}` : '';
  const text = [s.feedback[phase], notes].filter(Boolean).join('\n\n');
  const feedback = { ...s.feedback };
  delete feedback[phase];
  return { state: { ...s, feedback }, ...(text ? { feedback: text } : {}) };
}

/** The current plan as a decision record keeps it (goal and every task with its state). */
export function planSummary(s: RunState, note?: string): PlanSnapshot {
  return planSnapshot(s.goal?.main_objective, s.tasks, note);
}

/**
 * A jump back to a replan's target phase keeps the plan before it (restored if the replan fails),
 * tells the target phase why, and changes the tasks by the one jump rule (src/domain/replan/jump:
 * which tasks it reopens and keeps, and a plan revision's additional actions as new tasks, at most
 * planning.maxTasks in all).
 */
export function applyJump(s: RunState, j: Jump, maxTasks: number, at?: string): { state: RunState; added: string[]; dropped: number } {
  const applied = jumpTasks(s.tasks, j, maxTasks);
  // The checklist's next revision (the plan before it goes into its history).
  const checklist = reviseChecklist(s, {
    type: j.type,
    keepsChecks: j.keepsCompletedWork,
    ...(j.reason ? { reason: j.reason } : {}),
    ...(at ? { at } : {}),
  });
  return {
    state: {
      ...s,
      checklist,
      previous: { ...(s.goal ? { goal: s.goal } : {}), tasks: s.tasks, actions: s.actions },
      feedback: { ...s.feedback, [j.target]: j.feedback },
      tasks: applied.tasks,
    },
    added: applied.added,
    dropped: applied.dropped,
  };
}

/** The replan under way failed: back to the plan before it. */
export function restorePrevious(s: RunState): RunState {
  if (!s.previous) return s;
  const { goal, tasks, actions } = s.previous;
  const restored: RunState = { ...s, tasks, actions };
  // The plan before is back: nothing is awaited any more.
  const checklist = planArrived(s.checklist);
  if (checklist) restored.checklist = checklist;
  if (goal) restored.goal = goal;
  else delete restored.goal;
  return restored;
}

/** Where the run goes after a replan decision: back to the decision's target phase. */
export interface Jump {
  target: Phase;
  /** Why, for the target phase's prompt. */
  feedback: string;
  type: ReplanType;
  /** The action (task) the decision is about, for a retry. */
  taskId?: string;
  keepsCompletedWork: boolean;
  /** A plan revision's additional actions, which become new tasks. */
  additionalActions?: string[];
  /** Why (the decision's reasoning), for the checklist's "Revision Reason". */
  reason?: string;
}

// ---------------------------------------------------------------- internal progress (checked against the state)

export interface TaskProgressMessage {
  /** The execution round (phaseRuns.execution) the sender belongs to. */
  round: number;
  /** The execution phase's version of its task list (it grows with every change). */
  seq: number;
  /** Only the tasks that changed after the version the run asked from, with new replacement tasks (a delta). */
  tasks: TaskRecord[];
  /** The phase's usage so far (cumulative). */
  usage: TokenUsage;
  /** The replan decisions the phase asked after its tasks, from number `decisionsFrom` (0-based) on. */
  decisions?: ExecutionDecisionNote[];
  decisionsFrom?: number;
}

/** States a task does not leave within an execution round: a report reopening one is forged or stale. */
const FINISHED: TaskState[] = [TaskState.DONE, TaskState.BLOCKED, TaskState.CANCELLED, TaskState.REPLACED_BY_REPLAN];

/**
 * The execution phase reports what changed since its last accepted report (a delta, so history
 * grows with the changes, not with the plan's size times its changes). Accepted only during
 * execution, from the current round, with the next sequence number (so no report is lost or
 * applied twice), each task at most once, every id known or a replacement named by a task this
 * message marks REPLACED_BY_REPLAN (which must bring all of its replacements), and no finished task
 * (DONE, BLOCKED, CANCELLED, replaced) changing its state. Changed tasks replace theirs in place;
 * replacements follow the task they replace, as the execution phase orders them.
 */
export function applyTaskProgress(s: RunState, m: TaskProgressMessage): Applied {
  if (s.phase !== 'execution') return { ok: false, reason: `no execution phase is running (phase: ${s.phase})` };
  const round = s.phaseRuns.execution ?? 0;
  if (m.round !== round) return { ok: false, reason: `round ${m.round} is not the current execution round ${round}` };
  // Read from the execution phase itself (its version of the task list): nothing new, nothing to do.
  if (m.seq === s.progressSeq && m.tasks.length === 0) return { ok: true, state: withDecisionNotes(s, m) };
  if (m.seq <= s.progressSeq) return { ok: false, reason: `version ${m.seq} is not newer than ${s.progressSeq}` };
  const known = new Map(s.tasks.map((t) => [t.id, t]));
  const sent = new Map(m.tasks.map((t) => [t.id, t]));
  if (sent.size !== m.tasks.length) return { ok: false, reason: 'a task id appears twice' };
  const reopened = m.tasks.filter((t) => {
    const was = known.get(t.id);
    return was !== undefined && FINISHED.includes(was.state) && t.state !== was.state;
  });
  if (reopened.length) {
    return { ok: false, reason: `finished task(s) cannot change state: ${reopened.map((t) => `${t.id} (${known.get(t.id)!.state})`).join(', ')}` };
  }
  // Replacements: new ids named by a task this message replaces (it was not replaced before), or by
  // such a replacement replaced in turn (two re-decompositions between reports).
  const replacementOf = new Map<string, string>();
  const replacing = m.tasks.filter((t) => t.state === TaskState.REPLACED_BY_REPLAN && known.has(t.id) && known.get(t.id)!.state !== t.state);
  for (let r = replacing.pop(); r; r = replacing.pop()) {
    for (const id of r.replanningInfo?.replacedBy ?? []) {
      if (known.has(id) || replacementOf.has(id)) continue;
      replacementOf.set(id, r.id);
      const next = sent.get(id);
      if (next?.state === TaskState.REPLACED_BY_REPLAN) replacing.push(next);
    }
  }
  const unknown = m.tasks.filter((t) => !known.has(t.id) && !replacementOf.has(t.id)).map((t) => t.id);
  if (unknown.length) return { ok: false, reason: `unknown task id(s): ${unknown.join(', ')}` };
  const missing = [...replacementOf.keys()].filter((id) => !sent.has(id));
  if (missing.length) return { ok: false, reason: `replacement task(s) missing: ${missing.join(', ')}` };
  const tasks: TaskRecord[] = [];
  const place = (t: TaskRecord) => {
    tasks.push(t);
    for (const id of t.replanningInfo?.replacedBy ?? []) if (replacementOf.get(id) === t.id) place(sent.get(id)!);
  };
  for (const t of s.tasks) place(sent.get(t.id) ?? t);
  return { ok: true, state: withDecisionNotes({ ...s, tasks, executionUsage: m.usage, progressSeq: m.seq }, m) };
}

/**
 * The decisions the phase asked since the run last read them, told at once (src/domain/run/event-log).
 * Taken only when they follow on from those it has (`decisionsFrom`), so none is told twice.
 */
function withDecisionNotes(s: RunState, m: TaskProgressMessage): RunState {
  const have = s.executionDecisions ?? [];
  if (!m.decisions?.length || m.decisionsFrom !== have.length) return s;
  return { ...s, executionDecisions: [...have, ...m.decisions.slice(0, MAX_NOTES_PER_READ)] };
}
