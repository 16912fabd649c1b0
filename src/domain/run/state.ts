// The run as one entity (docs/architecture.md, "RunWorkflow"): RunWorkflow holds one RunState and changes it
// only through pure transitions, one file per concern beside this one: phases (the phase order and
// the run's end), plan (goal, tasks, actions, jumps, the execution phase's progress), decisions
// (replan records and counters), questions (questions and consultations), pause (the user's, the
// LLM's and the host's pauses), budget-ledger (usage and the budget's loans), events (the event log)
// and views (`status`, `decisions`, the memo). Messages from other workflows are checked against
// this state: a forged or stale one is refused with a reason and changes nothing.
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

/** What a client may show besides: a run Temporal itself ended (terminate, execution timeout; src/domain/run-ending). */
export type ShownRunStatus = RunStatusValue | 'TERMINATED' | 'TIMED_OUT';

/** Why the run is paused (src/domain/run/llm-outage: PAUSE_KINDS). */
export type { PauseKind } from './llm-outage';

/** The run is paused: no new phase, task, worker step or LLM call starts until it resumes. */
export interface PauseState {
  kind: PauseKind;
  /** Who or what paused it ('user': the pause update/signal; 'llm': an LLM call past its quick retries; 'budget': the run's budget is used up). */
  by: 'user' | 'llm' | 'budget' | 'host';
  /** The user's reason, if given (≤ MAX_PAUSE_REASON_CHARS); for 'llm' and 'budget', what happened and what to do. */
  reason?: string;
  /** ISO time the pause began. */
  since: string;
}

/** The plan-quality refinement loop's record (src/domain/refinement/record.ts). */
export type { PlanQuality, PlanQualityAttempt } from '../refinement/record';

/** A consultation the pacemaker opened, waiting for `answerConsultation`. */
export interface PendingConsultation {
  /** `<taskId>-c<n>`; an answer naming another id is rejected. */
  id: string;
  taskId: string;
  kind: InterventionKind;
  iteration: number;
  maxLoops: number;
  /** The situation (the pacemaker's fixed wording, in English). */
  message: string;
  /** V9: the situation in the pacemaker design's own Japanese wording, shown to a run whose instruction is Japanese (absent in older runs). */
  messageJa?: string;
  trigger: string;
  /** The four choices the pacemaker offers for this pattern: number, key (either answers), effect, English and Japanese label. */
  choices: { number: number; key: string; effect: ConsultationEffect; label: string; ja: string; needsText: boolean }[];
  /** Minutes the task waits before on_consultation_timeout applies. */
  timeoutMinutes: number;
}

/** The replan under way: completed when its target phase finishes, or failed (the plan before it is then restored). */
export interface ReplanInProgress {
  replanId: string;
  startedMs: number;
  decidedIn: Phase;
  target: Phase;
  decision: ReplanDecision;
  context: ReplanContext;
}

/** The plan before the replan under way, restored if that replan fails. */
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
  /** The execution phase's task-list version the run last read in this round, from the phase itself, never from a message (0: none yet). */
  progressSeq: number;
  /** The pacemaker's consultations open on running tasks, and the last consultation number seen per task. */
  consultations: PendingConsultation[];
  consultationSeq: Record<string, number>;
  counters: ReplanCounters;
  log: DecisionLog;
  questions: Question[];
  nextQuestion: number;
  /** What the user said (answers, instructions) and assumptions made: told to later prompts. */
  notes: string[];
  /** Triggers of a wanted replan that could not run, for which the LLM was already asked for alternatives. */
  alternativesAsked: string[];
  inProgress?: ReplanInProgress;
  /** Why a replan sent the run back to a phase, for that phase's prompt (taken once). */
  feedback: Partial<Record<Phase, string>>;
  previous?: PreviousPlan;
  /** Set while the user paused the run. */
  pause?: PauseState;
  /**
   * Set while the LLM is unavailable ('llm_outage'), rejected access ('llm_rejected'), cannot make
   * tool calls ('llm_unsupported') or is too slow for its limits ('llm_slow'); apart from the
   * user's pause. The run retries or waits rather than fail for what the user can fix.
   */
  llmPause?: PauseState;
  /** The run's budget of tokens and cost (absent: none) and its ledger. */
  budget?: RunBudgetState;
  /** Where on the structured-output fallback ladder the run's requests start (absent: the top, json_schema). */
  llmRung?: LlmRung;
  /** The server refused streaming: the run's requests no longer stream (absent: they do). */
  llmNoStream?: true;
  /** Notifications and the plan checklist delivered to the run's issue or merge request (absent: the config names none). */
  notifications?: NotificationLedger;
  /** The reading of the replies for answers to questions and consultations (absent: never read). */
  tracker?: TrackerPollState;
  /** The plan checklist's revisions and earlier plans (absent: no revision yet). */
  checklist?: ChecklistHistory;
  /** What `watch` prints, bounded and numbered over the whole run (absent: nothing happened yet). */
  events?: RunEventLog;
  /** The decisions of this execution round read from the phase while it runs (told at once; recorded when it ends). */
  executionDecisions?: ExecutionDecisionNote[];
  /** G1–G5: the run's branch, its commits and pushes (absent: the run commits nothing). */
  git?: RunGit;
}

/** The budget's limits, the loans to running children, and the pause when it is used up. */
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
