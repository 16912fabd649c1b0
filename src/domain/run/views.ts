// What clients see of a run: the `status` and `decisions` views, computed from the state on every
// query, and the memo that keeps them for when no worker can answer (a run can be inspected with
// no worker, O5).
import { budgetView, type BudgetView } from '../budget';
import { runGitView, type RunGitView } from '../git/run-git';
import type { LlmRung } from '../llm-form';
import type { NotificationLedger } from './deliveries';
import { latestDecision, type DecisionRecord, type ReplanCounters, type ReplanType } from '../replan';
import type { Question } from '../replan/questions';
import type { Goal, Phase, Reflection } from '../types';
import { clipAfter } from '../text';
import { addUsage, type TokenUsage } from '../usage';
import { budgetUsage } from './budget-ledger';
import { runChecklist } from './checklist';
import type { ShownTask } from './task-liveness';
import { activePauses, displayStatus, isPaused } from './pause';
import { waitingLine } from './waiting';
import type { PauseState, PendingConsultation, PlanQuality, RunState, ShownRunStatus } from './state';

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
  /** The plan's tasks (a client marks one whose worker was lost: a task never shows as moving backwards). */
  tasks: ShownTask[];
  phaseRuns: Partial<Record<Phase, number>>;
  usage: TokenUsage;
  goal?: Goal;
  reflection?: Reflection;
  blocked: { taskId: string; reason: string }[];
  error?: string;
  /** The quality judge's verdict on the plan task_decomposition made. */
  quality?: PlanQuality;
  /** The pacemaker's consultations of running tasks, waiting for the user's answer. */
  consultations?: PendingConsultation[];
  /** Replans executed so far: total, per replan type (the one name `decisions` uses too) and per phase where they were decided. */
  replans?: { total: number; byType?: Partial<Record<ReplanType, number>>; byPhase: Partial<Record<Phase, number>> };
  /** The newest replan decision. The whole log is the `decisions` query. */
  lastDecision?: DecisionRecord;
  /** The newest few decisions (LLM decision cut to its reasoning), so `watch` misses none between polls. */
  recentDecisions?: DecisionRecord[];
  /**
   * Questions waiting for `answerClarification` (a low-confidence replan to confirm, a replan that
   * cannot run, a clarification); once the run has ended, those it closed unanswered.
   */
  questions?: Question[];
  /** Why and since when the run is paused (status PAUSED): the user's pause, else the LLM's. */
  pause?: PauseState;
  /** Every pause that holds (the user's, the LLM's and the budget's can coexist), the user's first. */
  pauses?: PauseState[];
  /** Tokens and cost used against the run's budget (absent: the run has none). */
  budget?: BudgetView;
  /** The form the run's structured requests use, as far down the fallback ladder as the server needed (absent: the top, strict json_schema). */
  llmRung?: LlmRung;
  /** True once the server refused streaming (the run's requests no longer stream). */
  llmNoStream?: true;
  /** Notifications and the plan checklist delivered to the run's issue or merge request, and the last failure. */
  notifications?: NotificationLedger;
  /** What the run waits for from a person and how to give it, or why it is paused and how to resume (one line; absent: neither). */
  waiting?: string;
  /** G1: the run's branch and the commit of each task (absent: the run commits nothing). */
  git?: RunGitView;
}

export function statusView(s: RunState): RunStatusView {
  const last = latestDecision(s.log);
  const waiting = waitingLine(s);
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
    questions: s.questions.filter((q) => q.status === 'pending' || q.status === 'closed'),
    ...(isPaused(s) ? { pause: activePauses(s)[0], pauses: activePauses(s) } : {}),
    ...(s.budget ? { budget: budgetView(s.budget.limits, budgetUsage(s)) } : {}),
    ...(s.llmRung ? { llmRung: s.llmRung } : {}),
    ...(s.llmNoStream ? { llmNoStream: true as const } : {}),
    ...(s.notifications ? { notifications: s.notifications } : {}),
    ...(waiting ? { waiting } : {}),
    ...(s.git ? { git: runGitView(s.git) } : {}),
  };
}

/** The decision log of a run with its counters and every question asked. */
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

/** The memo keys that hold the run's last recorded `status` and `decisions`. */
export const MEMO_STATUS = 'replannerStatus';
export const MEMO_DECISIONS = 'replannerDecisions';
/** The memo key holding the run's plan checklist (Markdown), shown in the Web UI with no worker running. */
export const MEMO_CHECKLIST = 'replannerChecklist';

/**
 * What of the plan's progress the memo must never lag behind: the tasks that finished (and
 * the plan's size). Without it a task's end reached the memo only with the next phase or decision,
 * so `status` read from the memo after a worker was killed showed fewer tasks done than before.
 */
export function memoProgressKey(s: RunState): string {
  const ended = s.tasks.filter((t) => t.state !== 'READY' && t.state !== 'RUNNING' && t.state !== 'NEEDS_CONTINUATION');
  // G5: and what the pull request it follows says (the line `list` shows).
  const pr = s.git?.pr ? `|${s.git.pr.number ?? ''}:${s.git.pr.summary ?? ''}:${s.git.pr.ready ? 'r' : ''}` : '';
  return `${s.tasks.length}:${ended.map((t) => `${t.id}=${t.state}`).join(',')}${pr}`;
}

/** The memo is written at every phase change; it must stay far below Temporal's 2 MB payload limit. */
const MEMO_RECORDS = 30;
const MEMO_RECORDS_WITH_PLANS = 5;
const MEMO_SUMMARY_CHARS = 400;

/**
 * The views a client shows when no worker can answer a query (finished, paused or stuck run),
 * bounded: task summaries clipped, the newest decision records only (plans on the newest few that have them). The
 * instruction and workspace stay under their own memo keys, written at start.
 */
export function inspectionMemo(s: RunState): Record<string, unknown> {
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
  return { ...progressMemo(s), [MEMO_DECISIONS]: decisions };
}

/** The memo's keys a task's end changes (inspectionMemo's status and checklist; its decisions stay as written). */
export function progressMemo(s: RunState): Record<string, unknown> {
  const status = statusView(s);
  const tasks = status.tasks.map((t) => (t.summary ? { ...t, summary: clipAfter(t.summary, MEMO_SUMMARY_CHARS) } : t));
  return { [MEMO_STATUS]: { ...status, tasks }, [MEMO_CHECKLIST]: runChecklist(s) };
}
