// The run as one entity (DESIGN "Entity workflow"): RunWorkflow holds one RunState and changes it
// only through the pure transitions below; `status` and `decisions` are views computed on demand.
// Messages from other workflows are checked against this state (SPEC S2): a forged or stale one
// is refused with a reason and changes nothing.
import { hostNameProblem } from '../workspace-host';
import { budgetQuestionText, budgetView, parseBudgetAnswer, stoppedReason, applyRaise, type BudgetView, type RunBudget } from '../budget';
import type { NotificationLedger } from '../notifications';
import type { ConsultationEffect, InterventionKind } from '../pacemaker';
import type { RefinementAction } from '../refinement/decision';
import {
  appendDecision,
  completeDecision,
  emptyCounters,
  emptyDecisionLog,
  latestDecision,
  recordReplan,
  type CompletionInput,
  type DecisionLog,
  type DecisionRecord,
  type NewDecisionInput,
  type ReplanCounters,
  type ReplanDecision,
  type ReplanType,
} from '../replan';
import { planSnapshot, type PlanSnapshot } from '../replan/decision-log';
import { applyJump as jumpTasks } from '../replan/jump';
import type { Question, QuestionAnswer, QuestionKind } from '../replan/questions';
import { PHASES, TaskState, type ActionPlan, type Goal, type Phase, type Reflection, type TaskRecord, type TaskSpec } from '../types';
import type { ReplanContext } from '../replan/prompt-context';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../usage';
import { lowerRung, type LlmRung } from '../llm-form';
import { PROBE_INITIAL_MS, PROBE_MAX_MS, shortError, type LlmTrouble, type PauseKind } from './llm-outage';
import { planArrived, reviseChecklist, runChecklist, type ChecklistHistory } from './checklist';
import {
  appendRunEvents,
  MAX_NOTES_PER_READ,
  runEventsAfter,
  runEventsBetween,
  type ExecutionDecisionNote,
  type RunEventLog,
  type RunEventsPage,
} from './event-log';

/** PAUSED is never stored: a RUNNING run with a pause shows PAUSED (displayStatus). */
export type RunStatusValue = 'RUNNING' | 'PAUSED' | 'DONE' | 'BLOCKED' | 'FAILED' | 'CANCELLED' | 'STOPPED';

/** Issue 23: what a client may show besides: a run Temporal itself ended (terminate, execution timeout; src/domain/run-ending). */
export type ShownRunStatus = RunStatusValue | 'TERMINATED' | 'TIMED_OUT';

/** O1/O2: why the run is paused (src/domain/run/llm-outage: PAUSE_KINDS). */
export type { PauseKind } from './llm-outage';

/** O1: the run is paused: no new phase, task, worker step or LLM call starts until it resumes. */
export interface PauseState {
  kind: PauseKind;
  /** Who or what paused it ('user': the pause update/signal; 'llm': an LLM call past its quick retries, O2; 'budget': the run's budget, O3). */
  by: 'user' | 'llm' | 'budget' | 'host';
  /** The user's reason, if given (≤ MAX_PAUSE_REASON_CHARS); for 'llm' and 'budget', what happened and what to do. */
  reason?: string;
  /** ISO time the pause began. */
  since: string;
}

export const MAX_PAUSE_REASON_CHARS = 2000;

/** R1: one judged plan of the refinement loop (compact: issues are clipped). */
export interface PlanQualityAttempt {
  /** 1 = the initial plan. */
  attempt: number;
  acceptable: boolean;
  score?: number;
  issues: string[];
  /** R2 decision and its reason, for people ("quality not OK (score 55, 2 issue(s)) → replan"). */
  decision: RefinementAction;
  reason: string;
  /** C3: the judge itself failed; the judgement is judgeFailureResult. */
  judgeFailed?: boolean;
  /** R3: what became of the re-plan this decision asked for (new plan / per-task fallback / previous plan kept). */
  structure?: string;
}

export interface PlanQuality {
  outcome: 'accepted' | 'rejected';
  attempts: PlanQualityAttempt[];
  /** R1: suggestions of the accepted plan, recorded. */
  suggestions: string[];
}

/** P7: a consultation the pacemaker opened, waiting for `answerConsultation`. */
export interface PendingConsultation {
  /** `<taskId>-c<n>`; an answer naming another id is rejected. */
  id: string;
  taskId: string;
  kind: InterventionKind;
  iteration: number;
  maxLoops: number;
  /** The situation (seed 002 wording, English). */
  message: string;
  trigger: string;
  /** P7: seed 002's four choices of this pattern: number, key (either answers), effect, English and Japanese label. */
  choices: { number: number; key: string; effect: ConsultationEffect; label: string; ja: string; needsText: boolean }[];
  /** Minutes the task waits before on_consultation_timeout applies. */
  timeoutMinutes: number;
}

/** The replan under way: completed when its target phase finishes, or failed (X13). */
export interface ReplanInProgress {
  replanId: string;
  startedMs: number;
  decidedIn: Phase;
  target: Phase;
  decision: ReplanDecision;
  context: ReplanContext;
}

/** X3: where the run goes after a replan decision. */
export interface Jump {
  target: Phase;
  /** Why, for the target phase's prompt. */
  feedback: string;
  type: ReplanType;
  /** The action (task) the decision is about, for a retry. */
  taskId?: string;
  keepsCompletedWork: boolean;
  /** X3: a plan revision's additional actions, which become new tasks. */
  additionalActions?: string[];
  /** X11: why (the decision's reasoning), for the checklist's "Revision Reason". */
  reason?: string;
}

/** The plan before the replan under way, restored if that replan fails (X13). */
export interface PreviousPlan {
  goal?: Goal;
  tasks: TaskRecord[];
  actions: ActionPlan;
}

export interface RunState {
  runId: string;
  instruction: string;
  workspace: string;
  /** Workspace affinity: the host whose worker owns the workspace (absent: the run's own queue serves it all). */
  host?: string;
  phase: Phase | 'finished';
  status: RunStatusValue;
  /** Phase executions so far, e.g. { goal_understanding: 1, execution: 2 }. */
  phaseRuns: Partial<Record<Phase, number>>;
  goal?: Goal;
  tasks: TaskRecord[];
  actions: ActionPlan;
  quality?: PlanQuality;
  reflection?: Reflection;
  blocked: { taskId: string; reason: string }[];
  error?: string;
  /** Usage of finished phases; the running execution phase's usage is kept apart until it ends. */
  planningUsage: TokenUsage;
  executionUsage: TokenUsage;
  /** The execution phase's task-list version the run last read (S2: from the phase itself) in this round (0: none yet). */
  progressSeq: number;
  /** P7: consultations open on running tasks, and the last consultation number seen per task. */
  consultations: PendingConsultation[];
  consultationSeq: Record<string, number>;
  counters: ReplanCounters;
  log: DecisionLog;
  questions: Question[];
  nextQuestion: number;
  /** What the user said (answers, instructions) and assumptions made: told to later prompts. */
  notes: string[];
  /** X8: triggers for which the LLM was already asked for alternatives. */
  alternativesAsked: string[];
  inProgress?: ReplanInProgress;
  /** Why a replan sent the run back to a phase, for that phase's prompt (taken once). */
  feedback: Partial<Record<Phase, string>>;
  previous?: PreviousPlan;
  /** O1: set while the user paused the run. */
  pause?: PauseState;
  /** O2: set while the LLM is unavailable ('llm_outage'), rejected access ('llm_rejected') or cannot make tool calls ('llm_unsupported', M1); apart from the user's pause. */
  llmPause?: PauseState;
  /** O3: the run's budget (absent: none) and its ledger. */
  budget?: RunBudgetState;
  /** M1: the fallback ladder's rung the run's requests start at (absent: the top, json_schema). */
  llmRung?: LlmRung;
  /** X10/X11: deliveries to the run's issue or merge request (absent: the config names none). */
  notifications?: NotificationLedger;
  /** X11: the plan checklist's revisions and earlier plans (absent: no revision yet). */
  checklist?: ChecklistHistory;
  /** V2: what `watch` prints, bounded and numbered over the whole run (absent: nothing happened yet). */
  events?: RunEventLog;
  /** V2: the decisions of this execution round read from the phase while it runs (told at once; recorded when it ends). */
  executionDecisions?: ExecutionDecisionNote[];
}

/** O3: the budget's limits, the loans to running children, and the pause when it is used up. */
export interface RunBudgetState {
  limits: RunBudget;
  /** Tokens lent to running children (phase or execution workflow id → tokens). */
  lent: Record<string, number>;
  /** The largest single LLM call seen: the estimate of the next one. */
  largest: number;
  /** Loans of children that failed (their usage never came back): counted as spent by the ledger. */
  unreported?: number;
  /** What running children last said they spent (their budget requests), by child id. */
  reported?: Record<string, number>;
  /** What children that failed had said they spent (shown as used). */
  lost?: number;
  /** Set while the run waits for the answer to its budget question. */
  waiting?: { since: string; questionId: string };
}

export function initialRunState(run: { runId: string; instruction: string; workspace: string; host?: string }): RunState {
  return {
    runId: run.runId,
    instruction: run.instruction,
    workspace: run.workspace,
    ...(hostNameProblem(run.host) === undefined ? { host: run.host } : {}),
    phase: 'goal_understanding',
    status: 'RUNNING',
    phaseRuns: {},
    tasks: [],
    actions: {},
    blocked: [],
    planningUsage: ZERO_USAGE,
    executionUsage: ZERO_USAGE,
    progressSeq: 0,
    consultations: [],
    consultationSeq: {},
    counters: emptyCounters(),
    log: emptyDecisionLog(),
    questions: [],
    nextQuestion: 1,
    notes: [],
    alternativesAsked: [],
    feedback: {},
  };
}

/** A refused message: why, for the validator's error or the warning of an ignored signal. */
export type Applied = { ok: true; state: RunState } | { ok: false; reason: string };

// ---------------------------------------------------------------- phases and plan

export const nextPhase = (p: Phase): Phase | 'done' => PHASES[PHASES.indexOf(p) + 1] ?? 'done';

/** X1: a phase starts; returns its run number (1, 2, … after replans). */
export function enterPhase(s: RunState, phase: Phase): { state: RunState; n: number } {
  const n = (s.phaseRuns[phase] ?? 0) + 1;
  const state: RunState = { ...s, phase, phaseRuns: { ...s.phaseRuns, [phase]: n } };
  // A new execution round starts new task workflows: progress and consultations count from 1 again.
  return {
    state:
      phase === 'execution'
        ? { ...state, progressSeq: 0, executionUsage: ZERO_USAGE, consultations: [], consultationSeq: {}, executionDecisions: [] }
        : state,
    n,
  };
}

export function addPlanningUsage(s: RunState, u: TokenUsage): RunState {
  return { ...s, planningUsage: addUsage(s.planningUsage, u) };
}

export function setGoal(s: RunState, goal: Goal): RunState {
  return { ...s, goal };
}

/** X14: assumptions the run goes on with (nobody answered) join the goal. */
export function addAssumptions(s: RunState, assumptions: string[]): RunState {
  return s.goal ? { ...s, goal: { ...s.goal, assumptions: [...s.goal.assumptions, ...assumptions] } } : s;
}

/** A new decomposition is a new plan (X11: a new checklist): its tasks READY, no actions yet. */
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

/** The execution phase ended: its task states are the plan's, its usage joins the run's. */
export function finishExecution(s: RunState, tasks: TaskRecord[], usage: TokenUsage): RunState {
  return { ...s, tasks, executionUsage: ZERO_USAGE, planningUsage: addUsage(s.planningUsage, usage), consultations: [] };
}

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

/** X9: the current plan as a decision record keeps it (goal and every task with its state). */
export function planSummary(s: RunState, note?: string): PlanSnapshot {
  return planSnapshot(s.goal?.main_objective, s.tasks, note);
}

/**
 * X3: a jump keeps the plan before it (X13), tells the target phase why, and changes the tasks by
 * the one jump rule (src/domain/replan/jump: which tasks it reopens and keeps, and a plan
 * revision's additional actions as new tasks, at most planning.maxTasks in all).
 */
export function applyJump(s: RunState, j: Jump, maxTasks: number, at?: string): { state: RunState; added: string[]; dropped: number } {
  const applied = jumpTasks(s.tasks, j, maxTasks);
  // X11: the checklist's next revision (the plan before it goes into its history).
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

/** X13: the replan under way failed: back to the plan before it. */
export function restorePrevious(s: RunState): RunState {
  if (!s.previous) return s;
  const { goal, tasks, actions } = s.previous;
  const restored: RunState = { ...s, tasks, actions };
  // X11: the plan before is back: nothing is awaited any more.
  const checklist = planArrived(s.checklist);
  if (checklist) restored.checklist = checklist;
  if (goal) restored.goal = goal;
  else delete restored.goal;
  return restored;
}

// ---------------------------------------------------------------- end of the run

/** The phases ran out: DONE, or BLOCKED naming the tasks that could not finish. */
export function completeRun(s: RunState): RunState {
  const blocked = s.tasks.filter((t) => t.state === TaskState.BLOCKED).map((t) => ({ taskId: t.id, reason: t.summary ?? '' }));
  return { ...s, blocked, status: blocked.length ? 'BLOCKED' : 'DONE', phase: 'finished' };
}

export function failRun(s: RunState, error: string): RunState {
  return { ...s, error, status: 'FAILED', phase: 'finished' };
}

/** Cancelled: what was still open is CANCELLED. */
export function cancelRun(s: RunState): RunState {
  const closed: TaskState[] = [TaskState.DONE, TaskState.BLOCKED, TaskState.REPLACED_BY_REPLAN];
  return {
    ...s,
    tasks: s.tasks.map((t) => (closed.includes(t.state) ? t : { ...t, state: TaskState.CANCELLED })),
    consultations: [],
    status: 'CANCELLED',
    phase: 'finished',
  };
}

// ---------------------------------------------------------------- pause and resume (O1)

/** The one predicate: no new phase, task, worker step or LLM call starts while it holds (O1, O2, O3). */
export const isPaused = (s: RunState): boolean => s.status === 'RUNNING' && (s.pause !== undefined || s.llmPause !== undefined || budgetPaused(s));

/** Every pause that holds, the user's first. */
export const activePauses = (s: RunState): PauseState[] =>
  s.status === 'RUNNING' ? [s.pause, s.llmPause, budgetPauseView(s)].filter((p) => p !== undefined) : [];

/** Why the run is paused, for the gate and its children (pauseGate). */
export const pauseKinds = (s: RunState): PauseKind[] => activePauses(s).map((p) => p.kind);

/** What `status` and the ReplannerStatus search attribute show. */
export const displayStatus = (s: RunState): RunStatusValue => (isPaused(s) ? 'PAUSED' : s.status);

/** The outcome of a pause or resume: `changed` false when it was already so (acknowledged, not an error). */
export type PauseApplied = { ok: true; state: RunState; changed: boolean } | { ok: false; reason: string };

/** O1: pause a running run; pausing a paused run keeps the first pause (its reason and since). */
export function pauseRun(s: RunState, p: { reason?: string; at: string }): PauseApplied {
  if (s.status !== 'RUNNING') return { ok: false, reason: `the run already ended: ${s.status}` };
  if (s.pause) return { ok: true, state: s, changed: false };
  const reason = p.reason?.trim().slice(0, MAX_PAUSE_REASON_CHARS);
  return { ok: true, state: { ...s, pause: { kind: 'user', by: 'user', ...(reason ? { reason } : {}), since: p.at } }, changed: true };
}

/**
 * O1: resume a paused run; resuming a running one is acknowledged and changes nothing. It ends the
 * user's pause and an LLM pause too (O2: after a rejected key, `resume` retries at once; during an
 * outage, every call tries again and the first that still fails pauses the run again).
 */
export function resumeRun(s: RunState): PauseApplied {
  if (s.status !== 'RUNNING') return { ok: false, reason: `the run already ended: ${s.status}` };
  if (!s.pause && !s.llmPause) return { ok: true, state: s, changed: false };
  const next = { ...s };
  delete next.pause;
  delete next.llmPause;
  return { ok: true, state: next, changed: true };
}

/**
 * O2: between phases no LLM call is in flight, so nothing probes an outage any more (its prober's
 * workflow ended): the outage pause ends and the next phase's first call is the probe (a failing
 * one pauses again). The user's pause and a rejection stay.
 */
export function endUnprobedOutage(s: RunState): RunState {
  if (s.llmPause?.kind !== 'llm_outage' && s.llmPause?.kind !== 'host_offline') return s;
  const next = { ...s };
  delete next.llmPause;
  return next;
}

/** M1: a workflow of the run learned a lower rung of the fallback ladder; the rung never goes back up. */
export function noteLlmRung(s: RunState, rung: LlmRung | undefined): RunState {
  const low = lowerRung(s.llmRung, rung);
  return low === s.llmRung ? s : { ...s, llmRung: low };
}

/** O2: an LLM call of the run reports trouble past its quick retries, or that it succeeded again. */
export interface LlmTroubleMessage {
  /** 'host_back': a call on the workspace host's queue got through after 'host_offline'. */
  trouble: LlmTrouble | 'recovered' | 'host_back';
  /** The failure's message (for 'rejected' it names the fix); clipped for the reason. */
  error?: string;
}

/**
 * O2: an outage pauses the run ('llm_outage', since the first report; a rejection stays a
 * rejection); a rejected access pauses it with the fix named ('llm_rejected', replacing an
 * outage); 'recovered' ends only an outage pause — never the user's, never a rejection (only
 * `resume` ends those). Changes nothing on a finished run.
 */
/**
 * Workspace affinity (O2): the run's workspace host has no worker. Nothing is lost: the call that
 * found it gone waits and probes, and the run goes on by itself when that host's worker polls again.
 */
export function hostOfflineReason(s: Pick<RunState, 'host' | 'runId'>, at: string): string {
  const host = s.host ?? 'of the workspace';
  return (
    `workspace host ${host} offline since ${at}: no worker of that host takes the run's workspace work; ` +
    `it goes on by itself when one polls again (on ${host}: replanner worker, with REPLANNER_HOST=${host} and REPLANNER_WORKSPACE_ROOTS holding the workspace), ` +
    `or stop it: replanner cancel ${s.runId}`
  );
}

export function applyLlmTrouble(s: RunState, m: LlmTroubleMessage, at: string): Applied {
  if (s.status !== 'RUNNING') return { ok: false, reason: `the run already ended: ${s.status}` };
  const error = shortError(m.error ?? 'no detail');
  if (m.trouble === 'recovered' || m.trouble === 'host_back') {
    if (s.llmPause?.kind !== (m.trouble === 'recovered' ? 'llm_outage' : 'host_offline')) return { ok: true, state: s };
    const next = { ...s };
    delete next.llmPause;
    return { ok: true, state: next };
  }
  if (m.trouble === 'host_offline') {
    if (s.llmPause) return { ok: true, state: s };
    return { ok: true, state: { ...s, llmPause: { kind: 'host_offline', by: 'host', reason: hostOfflineReason(s, at), since: at } } };
  }
  if (m.trouble === 'unavailable') {
    if (s.llmPause) return { ok: true, state: s };
    const reason = `LLM unavailable since ${at}: ${error}; retrying by itself with backoff (${PROBE_INITIAL_MS / 1000} s doubling, at most every ${PROBE_MAX_MS / 1000} s)`;
    return { ok: true, state: { ...s, llmPause: { kind: 'llm_outage', by: 'llm', reason, since: at } } };
  }
  const kind = m.trouble === 'unsupported' ? 'llm_unsupported' : 'llm_rejected';
  if (s.llmPause?.kind === kind) return { ok: true, state: s };
  // M1: a model without tool calls pauses with the fix named, like a rejected key: `resume` retries.
  const what = m.trouble === 'unsupported' ? 'LLM cannot make tool calls' : 'LLM access rejected';
  const reason = `${what}: ${shortError(m.error ?? 'no detail', 600).replace(/<runId>/g, s.runId)}`;
  return { ok: true, state: { ...s, llmPause: { kind, by: 'llm', reason, since: at } } };
}

// ---------------------------------------------------------------- internal progress (SPEC S2)

export interface TaskProgressMessage {
  /** The execution round (phaseRuns.execution) the sender belongs to. */
  round: number;
  /** The execution phase's version of its task list (it grows with every change). */
  seq: number;
  /** Only the tasks that changed after the version the run asked from, with new replacement tasks (a delta). */
  tasks: TaskRecord[];
  /** The phase's usage so far (cumulative). */
  usage: TokenUsage;
  /** V2: the replan decisions the phase asked after its tasks, from number `decisionsFrom` (0-based) on. */
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
  // S2: read from the execution phase itself (its version of the task list): nothing new, nothing to do.
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
 * V2: the decisions the phase asked since the run last read them, told at once (src/domain/run/event-log).
 * Taken only when they follow on from those it has (`decisionsFrom`), so none is told twice.
 */
function withDecisionNotes(s: RunState, m: TaskProgressMessage): RunState {
  const have = s.executionDecisions ?? [];
  if (!m.decisions?.length || m.decisionsFrom !== have.length) return s;
  return { ...s, executionDecisions: [...have, ...m.decisions.slice(0, MAX_NOTES_PER_READ)] };
}

export interface ConsultationMessage {
  taskId: string;
  /** The consultation opened (`consultation` set) or closed (null). */
  consultationId: string;
  consultation: PendingConsultation | null;
}

const CONSULTING: TaskState[] = [TaskState.RUNNING, TaskState.NEEDS_CONTINUATION];

/**
 * P7: a task opens or closes a consultation. Opening is accepted only for a running task of the
 * plan, with the id its own numbering gives next (`<taskId>-c<n>`, n above the last seen);
 * closing only the consultation open on that task.
 */
export function applyConsultation(s: RunState, m: ConsultationMessage): Applied {
  const task = s.tasks.find((t) => t.id === m.taskId);
  if (!task) return { ok: false, reason: `unknown task "${m.taskId}"` };
  const open = s.consultations.find((c) => c.taskId === m.taskId);
  if (m.consultation === null) {
    if (!open || open.id !== m.consultationId) return { ok: false, reason: `consultation "${m.consultationId}" is not open on task ${m.taskId}` };
    return { ok: true, state: { ...s, consultations: s.consultations.filter((c) => c !== open) } };
  }
  if (!CONSULTING.includes(task.state)) return { ok: false, reason: `task ${m.taskId} is ${task.state}, not running` };
  const c = m.consultation;
  const prefix = `${m.taskId}-c`;
  const n = c.id.startsWith(prefix) && /^[1-9][0-9]{0,5}$/.test(c.id.slice(prefix.length)) ? Number(c.id.slice(prefix.length)) : NaN;
  if (c.taskId !== m.taskId || c.id !== m.consultationId || Number.isNaN(n)) {
    return { ok: false, reason: `consultation id "${c.id}" is not one of task ${m.taskId} (${prefix}<n>)` };
  }
  const last = s.consultationSeq[m.taskId] ?? 0;
  if (n <= last) return { ok: false, reason: `consultation ${c.id} is not newer than ${prefix}${last}` };
  return {
    ok: true,
    state: {
      ...s,
      consultations: [...s.consultations.filter((x) => x.taskId !== m.taskId), c],
      consultationSeq: { ...s.consultationSeq, [m.taskId]: n },
    },
  };
}

// ---------------------------------------------------------------- decisions and questions

/** X9: one decision, whatever route it came by, enters the log here. */
export function recordDecision(s: RunState, input: NewDecisionInput): { state: RunState; record: DecisionRecord } {
  const r = appendDecision(s.log, input);
  return { state: { ...s, log: r.log }, record: r.record };
}

export function completeReplan(s: RunState, replanId: string, c: CompletionInput): RunState {
  return { ...s, log: completeDecision(s.log, replanId, c) };
}

/** A confirmed decision (X7) now runs: executed, still pending until its phase finishes. */
export function markExecuted(s: RunState, replanId: string): RunState {
  return { ...s, log: { ...s.log, records: s.log.records.map((r) => (r.replan_id === replanId ? { ...r, executed: true } : r)) } };
}

/** X5: a replan (or a clarification) is counted when it is carried out. */
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

export interface NewQuestions {
  kind: QuestionKind;
  phase: Phase;
  replanId: string;
  texts: string[];
  assumptions: string[];
  timeoutMinutes: number | null;
  askedAt: string;
}

/** X7 / X8 / X14: questions to the user, numbered q1, q2, … over the run. */
export function askQuestions(s: RunState, q: NewQuestions): { state: RunState; ids: string[] } {
  const asked: Question[] = q.texts.map((text, i) => ({
    id: `q${s.nextQuestion + i}`,
    kind: q.kind,
    phase: q.phase,
    replanId: q.replanId,
    text,
    assumptions: q.assumptions,
    timeoutMinutes: q.timeoutMinutes,
    askedAt: q.askedAt,
    status: 'pending',
  }));
  return {
    state: { ...s, questions: [...s.questions, ...asked], nextQuestion: s.nextQuestion + asked.length },
    ids: asked.map((x) => x.id),
  };
}

/** An answer already checked by answerProblem. */
export function answerQuestion(s: RunState, a: QuestionAnswer, at: string): RunState {
  return {
    ...s,
    questions: s.questions.map((q) => (q.id === a.questionId ? { ...q, status: 'answered', answer: a.answer.trim(), answeredAt: at } : q)),
  };
}

export function timeOutQuestions(s: RunState, ids: readonly string[]): RunState {
  return { ...s, questions: s.questions.map((q) => (ids.includes(q.id) && q.status === 'pending' ? { ...q, status: 'timed_out' } : q)) };
}

export const allAnswered = (s: RunState, ids: readonly string[]): boolean => s.questions.every((q) => !ids.includes(q.id) || q.status !== 'pending');

export const pendingQuestions = (s: RunState): Question[] => s.questions.filter((q) => q.status === 'pending');

// ---------------------------------------------------------------- events (V2)

/** V2: `next` with the events of the change from `prev` appended to its log (at workflow time `at`). */
export function withEvents(prev: RunState, next: RunState, at: string): RunState {
  if (prev === next) return next;
  const bodies = runEventsBetween({ ...prev, pauses: activePauses(prev) }, { ...next, pauses: activePauses(next) });
  return bodies.length ? { ...next, events: appendRunEvents(next.events, bodies, at) } : next;
}

/** V2: the `events` query: the events after the reader's cursor. */
export const eventsView = (s: RunState, afterSeq: number): RunEventsPage => runEventsAfter(s.events, afterSeq);

// ---------------------------------------------------------------- views

/** Decisions `status` carries besides the whole log in the `decisions` query. */
export const RECENT_DECISIONS = 8;

/** What `status` shows: computed from the state on every query. */
export interface RunStatusView {
  runId: string;
  instruction: string;
  workspace: string;
  /** Workspace affinity: the host whose worker owns the workspace (absent: the run's own queue serves it all). */
  host?: string;
  phase: Phase | 'finished';
  status: ShownRunStatus;
  tasks: TaskRecord[];
  phaseRuns: Partial<Record<Phase, number>>;
  usage: TokenUsage;
  goal?: Goal;
  reflection?: Reflection;
  blocked: { taskId: string; reason: string }[];
  error?: string;
  /** R1: the plan-quality judgement of task_decomposition. */
  quality?: PlanQuality;
  /** P7: consultations of running tasks waiting for the user's answer. */
  consultations?: PendingConsultation[];
  /** X9: replans executed so far: total, per replan type (the one name `decisions` uses too) and per phase where they were decided. */
  replans?: { total: number; byType?: Partial<Record<ReplanType, number>>; byPhase: Partial<Record<Phase, number>> };
  /** X9: the newest replan decision. The whole log is the `decisions` query. */
  lastDecision?: DecisionRecord;
  /** X9: the newest few decisions (LLM decision cut to its reasoning), so `watch` misses none between polls. */
  recentDecisions?: DecisionRecord[];
  /** X7 / X8 / X14: questions waiting for `answerClarification`. */
  questions?: Question[];
  /** O1: why and since when the run is paused (status PAUSED): the user's pause, else the LLM's (O2). */
  pause?: PauseState;
  /** O1/O2/O3: every pause that holds (the user's, the LLM's and the budget's can coexist), the user's first. */
  pauses?: PauseState[];
  /** O3: usage against the budget (absent: the run has none). */
  budget?: BudgetView;
  /** M1: the fallback ladder's rung the run's structured requests use (absent: the top, strict json_schema). */
  llmRung?: LlmRung;
  /** X10/X11: notifications delivered to the run's issue or merge request, and the last failure. */
  notifications?: NotificationLedger;
}

export function statusView(s: RunState): RunStatusView {
  const last = latestDecision(s.log);
  return {
    runId: s.runId,
    instruction: s.instruction,
    workspace: s.workspace,
    ...(s.host !== undefined ? { host: s.host } : {}),
    phase: s.phase,
    status: displayStatus(s),
    tasks: s.tasks,
    phaseRuns: s.phaseRuns,
    usage: addUsage(s.planningUsage, s.executionUsage),
    ...(s.goal ? { goal: s.goal } : {}),
    ...(s.reflection ? { reflection: s.reflection } : {}),
    blocked: s.blocked,
    ...(s.error !== undefined ? { error: s.error } : {}),
    ...(s.quality ? { quality: s.quality } : {}),
    consultations: s.consultations,
    replans: {
      total: s.counters.total,
      byType: Object.fromEntries(Object.entries(s.counters.byType).filter(([, n]) => n > 0)),
      byPhase: Object.fromEntries(Object.entries(s.counters.byPhase).filter(([, n]) => n > 0)),
    },
    ...(last ? { lastDecision: last } : {}),
    recentDecisions: s.log.records.slice(-RECENT_DECISIONS).map((r) => ({ ...r, llm_decision: { reasoning: r.llm_decision.reasoning } })),
    questions: pendingQuestions(s),
    ...(isPaused(s) ? { pause: activePauses(s)[0], pauses: activePauses(s) } : {}),
    ...(s.budget ? { budget: budgetView(s.budget.limits, budgetUsage(s)) } : {}),
    ...(s.llmRung ? { llmRung: s.llmRung } : {}),
    ...(s.notifications ? { notifications: s.notifications } : {}),
  };
}

/** X9: the decision log of a run with its counters and every question asked. */
export interface DecisionsView {
  records: DecisionRecord[];
  /** Old records dropped to keep the log small. */
  dropped: number;
  counters: ReplanCounters;
  questions: Question[];
}

export function decisionsView(s: RunState): DecisionsView {
  return { records: s.log.records, dropped: s.log.dropped, counters: s.counters, questions: s.questions };
}

/** O5: the memo keys that hold the run's last recorded `status` and `decisions`. */
export const MEMO_STATUS = 'replannerStatus';
export const MEMO_DECISIONS = 'replannerDecisions';
/** V1 / X11: the memo key holding the run's plan checklist (Markdown), shown with no worker running. */
export const MEMO_CHECKLIST = 'replannerChecklist';

/** O5: the memo is written at every phase change; it must stay far below Temporal's 2 MB payload limit. */
const MEMO_RECORDS = 30;
const MEMO_RECORDS_WITH_PLANS = 5;
const MEMO_SUMMARY_CHARS = 400;

/**
 * O5: the views a client shows when no worker can answer a query (finished, paused or stuck run),
 * bounded: task summaries clipped, the newest decision records only (plans on the newest few that have them). The
 * instruction and workspace stay under their own memo keys, written at start.
 */
export function inspectionMemo(s: RunState): Record<string, unknown> {
  const status = statusView(s);
  const clip = (t: string | undefined) => (t && t.length > MEMO_SUMMARY_CHARS ? `${t.slice(0, MEMO_SUMMARY_CHARS)}…` : t);
  const tasks = status.tasks.map((t) => (t.summary ? { ...t, summary: clip(t.summary) } : t));
  // The newest few records that have plans keep them (a run's many "no replan" records have none).
  let withPlans = 0;
  const records = s.log.records
    .slice(-MEMO_RECORDS)
    .reverse()
    .map((r) => {
      if (!r.plan_before && !r.plan_after) return r;
      if (++withPlans <= MEMO_RECORDS_WITH_PLANS) return r;
      const { plan_before: _before, plan_after: _after, ...rest } = r;
      return rest;
    })
    .reverse();
  const decisions: DecisionsView = {
    records: records,
    dropped: s.log.dropped + (s.log.records.length - records.length),
    counters: s.counters,
    questions: s.questions.slice(-MEMO_RECORDS),
  };
  return { [MEMO_STATUS]: { ...status, tasks }, [MEMO_DECISIONS]: decisions, [MEMO_CHECKLIST]: runChecklist(s) };
}

// ---------------------------------------------------------------- budget (O3)
// The run is the ledger: RunState.budget holds the limits (raised only by the user's answer) and the
// loans to running children; planningUsage is what was spent (finished phases and the run's own calls).

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
 * what it was lent plus one call (S2: a forged request cannot make the run look spent beyond that).
 */
export function noteReportedSpend(s: RunState, childId: string, spent: number): RunState {
  if (!s.budget) return s;
  const capped = Math.min(spent, (s.budget.lent[childId] ?? 0) + s.budget.largest);
  if (capped <= (s.budget.reported?.[childId] ?? 0)) return s;
  return { ...s, budget: { ...s.budget, reported: { ...s.budget.reported, [childId]: capped } } };
}

/** The pause `status` and the pause/resume acknowledgements show: the user's, else the LLM's, else the budget's. */
export const pauseView = (s: RunState): PauseState | undefined => activePauses(s)[0];

function budgetPauseView(s: RunState): PauseState | undefined {
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

/** O3: the budget is used up: the run pauses with its budget question (once). */
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
 * O3: the budget question was answered: a raise sets the new limit and ends the budget pause; a stop
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

/** O3: the run ends STOPPED: "stopped by its budget: used N of M tokens". */
export function stopByBudget(s: RunState): RunState {
  const error = s.budget ? stoppedReason(s.budget.limits, budgetUsage(s)) : 'stopped by its budget';
  const closed: TaskState[] = [TaskState.DONE, TaskState.BLOCKED, TaskState.REPLACED_BY_REPLAN];
  return {
    ...s,
    tasks: s.tasks.map((t) => (closed.includes(t.state) ? t : { ...t, state: TaskState.CANCELLED })),
    consultations: [],
    error,
    status: 'STOPPED',
    phase: 'finished',
  };
}
