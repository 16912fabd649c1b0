// Every signal, update and query of Replanner's workflows, in one place (B3). Names are what users
// type in `temporal workflow query/signal/update --name ...`.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ConsultationEffect, InterventionKind, Vitals } from '../domain/pacemaker';
import type { RefinementAction } from '../domain/refinement/decision';
import type { DecisionRecord, ReplanCounters, ReplanDecision } from '../domain/replan';
import type { Question, QuestionAnswer } from '../domain/replan/questions';
import type { Phase, TaskRecord } from '../domain/types';
import type { Goal, Reflection } from '../llm/schemas';
import type { TokenUsage } from '../llm/usage';

export type RunStatusValue = 'RUNNING' | 'DONE' | 'BLOCKED' | 'FAILED' | 'CANCELLED';

export interface RunStatus {
  runId: string;
  instruction: string;
  workspace: string;
  phase: Phase | 'finished';
  status: RunStatusValue;
  tasks: TaskRecord[];
  /** Phase executions so far, e.g. { goal_understanding: 1, execution: 2 }. */
  phaseRuns: Partial<Record<Phase, number>>;
  usage: TokenUsage;
  goal?: Goal;
  reflection?: Reflection;
  blocked: { taskId: string; reason: string }[];
  error?: string;
  /** R1: the plan-quality judgement of task_decomposition (attempts, scores, suggestions, decisions). */
  quality?: PlanQuality;
  /** P7: consultations of running tasks waiting for the user's answer. */
  consultations?: PendingConsultation[];
  /** X9: replans executed so far (total and per phase where they were decided). */
  replans?: { total: number; byPhase: Partial<Record<Phase, number>> };
  /** X9: the newest replan decision. The whole log is the `decisions` query. */
  lastDecision?: DecisionRecord;
  /** X9: the newest few decisions (LLM decision cut to its reasoning), so `watch` misses none between polls. */
  recentDecisions?: DecisionRecord[];
  /** X7 / X8 / X14: questions waiting for `answerClarification`. */
  questions?: Question[];
}

export type { Question, QuestionKind, QuestionStatus } from '../domain/replan/questions';

export type ClarificationAnswerInput = QuestionAnswer;
export interface ClarificationAnswerAck {
  questionId: string;
  /** Questions still waiting after this answer. */
  stillPending: string[];
}
/**
 * X14: answer a question of the run (sent to the RunWorkflow `run-<runId>`). The validator rejects
 * an unknown question id, an empty answer, a question no longer pending, and a confirmation
 * answered with something other than yes/no.
 */
export const answerClarificationUpdate = defineUpdate<ClarificationAnswerAck, [ClarificationAnswerInput]>('answerClarification');
/** X14: the fire-and-forget twin of answerClarification; an invalid answer is logged and ignored. */
export const answerClarificationSignal = defineSignal<[ClarificationAnswerInput]>('answerClarificationSignal');

/** X9: the decision log of a run with its counters and every question asked. */
export interface DecisionsView {
  records: DecisionRecord[];
  /** Old records dropped to keep the log small. */
  dropped: number;
  counters: ReplanCounters;
  questions: Question[];
}
export const decisionsQuery = defineQuery<DecisionsView>('decisions');

/** R1: one judged plan of the refinement loop (compact: issues are clipped). */
export interface PlanQualityAttempt {
  /** 1 = the initial plan. */
  attempt: number;
  acceptable: boolean;
  score?: number;
  issues: string[];
  /** R2 decision and its reason ("R2.4 quality not OK (score 55, 2 issue(s)) → replan"). */
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

/** Summary of a task's outcome reported by the execution phase to the run. */
export interface TaskProgress {
  tasks: TaskRecord[];
  usage: TokenUsage;
}

export const statusQuery = defineQuery<RunStatus>('status');
/** Sent by the execution phase to its run on each task state change, so `status` is live. */
export const taskProgressSignal = defineSignal<[TaskProgress]>('taskProgress');
/** P7: sent by a task to its run when a consultation opens (consultation set) or closes (null). */
export const taskConsultationSignal = defineSignal<[{ taskId: string; consultation: PendingConsultation | null }]>('taskConsultation');

/** X1/X9: a replan decision asked after an action of the execution phase that wants no replan (the run logs it). */
export const executionDecisionSignal = defineSignal<[{ taskId: string; decision: ReplanDecision; parseError?: string }]>('executionDecision');

export interface TaskStatus {
  taskId: string;
  state: TaskRecord['state'];
  iteration: number;
  maxIterations: number;
  lastJudgeReason?: string;
  usage: TokenUsage;
  /** P2 / P7: the pacemaker's view of the task. */
  pacemaker?: { maxLoops: number; vitals: Vitals; interventions: number };
  /** P7: the consultation waiting for the user's answer, if any. */
  consultation?: PendingConsultation;
}
export const taskStatusQuery = defineQuery<TaskStatus>('taskStatus');

/** P7: the user's answer to a consultation: a choice 1–4, its key or its effect; the text where the choice needs it (validateConsultationAnswer). */
export interface ConsultationAnswerInput {
  /** When given, it must be the pending consultation's id. */
  consultationId?: string;
  choice: string | number;
  guidance?: string;
}
export interface ConsultationAnswerAck {
  taskId: string;
  consultationId: string;
  effect: ConsultationEffect;
  /** The chosen choice's key. */
  choice: string;
}
/**
 * P7: answer a task's pending consultation (sent to the TaskWorkflow `<run wf id>.task-<taskId>`).
 * The validator rejects: no consultation pending, a wrong id, a malformed payload, a choice the
 * pattern does not offer, a missing text where the choice needs one.
 */
export const answerConsultationUpdate = defineUpdate<ConsultationAnswerAck, [ConsultationAnswerInput]>('answerConsultation');
/** P7: the fire-and-forget twin of answerConsultation; an invalid answer is logged and ignored. */
export const answerConsultationSignal = defineSignal<[ConsultationAnswerInput]>('answerConsultationSignal');
