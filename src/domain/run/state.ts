// The run as one entity (docs/architecture.md, "RunWorkflow"): RunWorkflow holds one RunState and changes it
// only through pure transitions, one file per concern beside this one: phases (the phase order and
// the run's end), plan (goal, tasks, actions, jumps, the execution phase's progress), decisions
// (replan records and counters), questions (questions and consultations), pause (the user's, the
// LLM's and the host's pauses), budget-ledger (usage and the budget's loans), events (the event log)
// and views (`status`, `decisions`, the memo). Messages from other workflows are checked against
// this state (S2): a forged or stale one is refused with a reason and changes nothing.
import type { RunBudget } from '../budget';
import type { LlmRung } from '../llm-form';
import type { NotificationLedger } from './deliveries';
import type { RunGit } from '../git/run-git';
import type { ConsultationEffect, InterventionKind } from '../pacemaker';
import type { PlanQuality } from '../refinement/record';
import { emptyCounters, emptyDecisionLog, type DecisionLog, type ReplanCounters, type ReplanDecision } from '../replan';
import type { ReplanContext } from '../replan/prompt-context';
import type { Question } from '../replan/questions';
import type { ActionPlan, Goal, Phase, Reflection, TaskRecord } from '../types';
import { ZERO_USAGE, type TokenUsage } from '../usage';
import { hostNameProblem } from '../workspace-host';
import type { ChecklistHistory } from './checklist';
import type { ExecutionDecisionNote, RunEventLog } from './event-log';
import type { PauseKind } from './llm-outage';
import type { TrackerPollState } from './tracker-answers';

/**
 * WAITING, PAUSED and FOLLOWING are never stored: a RUNNING run with a question or consultation
 * waiting shows WAITING, one with a pause PAUSED, one that follows its pull request FOLLOWING (displayStatus).
 */
export type RunStatusValue = 'RUNNING' | 'WAITING' | 'PAUSED' | 'FOLLOWING' | 'DONE' | 'BLOCKED' | 'FAILED' | 'CANCELLED' | 'STOPPED';

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

/** R1: the refinement loop's record (src/domain/refinement/record.ts). */
export type { PlanQuality, PlanQualityAttempt } from '../refinement/record';

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
  /** O2: set while the LLM is unavailable ('llm_outage'), rejected access ('llm_rejected'), cannot make tool calls ('llm_unsupported', M1) or is too slow for its limits ('llm_slow', M1); apart from the user's pause. */
  llmPause?: PauseState;
  /** O3: the run's budget (absent: none) and its ledger. */
  budget?: RunBudgetState;
  /** M1: the fallback ladder's rung the run's requests start at (absent: the top, json_schema). */
  llmRung?: LlmRung;
  /** M1: the server refused streaming: the run's requests no longer stream (absent: they do). */
  llmNoStream?: true;
  /** X10/X11: deliveries to the run's issue or merge request (absent: the config names none). */
  notifications?: NotificationLedger;
  /** X14 / P7: the reading of the replies for answers (absent: never read). */
  tracker?: TrackerPollState;
  /** X11: the plan checklist's revisions and earlier plans (absent: no revision yet). */
  checklist?: ChecklistHistory;
  /** V2: what `watch` prints, bounded and numbered over the whole run (absent: nothing happened yet). */
  events?: RunEventLog;
  /** V2: the decisions of this execution round read from the phase while it runs (told at once; recorded when it ends). */
  executionDecisions?: ExecutionDecisionNote[];
  /** G1–G5: the run's branch, its commits and pushes (absent: the run commits nothing). */
  git?: RunGit;
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
