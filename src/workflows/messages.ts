// Every signal, update and query of Replanner's workflows, in one place (B3). Names are what users
// type in `temporal workflow query/signal/update --name ...`.
// Every signal, update and query of Replanner's workflows, in one place (B3), each payload with its
// zod schema (SPEC S2): anyone who can reach Temporal can send anything, so a handler parses first.
// Names are what users type in `temporal workflow query/signal/update --name ...`.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { lazySchema } from '../domain/lazy-schema';
import { CONSULTATION_EFFECTS, INTERVENTION_KINDS, type ConsultationEffect, type Vitals } from '../domain/pacemaker';
import { PAUSE_KINDS, type PauseKind } from '../domain/run/llm-outage';
import { MAX_PAUSE_REASON_CHARS, type LlmTroubleMessage } from '../domain/run/pause';
import type { PauseState, PendingConsultation } from '../domain/run/state';
import type { ConsultationMessage } from '../domain/run/questions';
import type { DecisionsView, RunStatusView } from '../domain/run/views';
import type { TaskProgressMessage } from '../domain/run/plan';
import { MAX_NOTES_PER_READ, type RunEventsPage } from '../domain/run/event-log';
import type { TaskStepLine } from '../domain/task-details';
import { MAX_ANSWER_CHARS, type QuestionAnswer } from '../domain/replan/questions';
import { TaskState, type TaskRecord } from '../domain/types';
import type { TokenUsage } from '../domain/usage';

export type { RunEvent, RunEventsPage } from '../domain/run/event-log';
export type { DecisionsView } from '../domain/run/views';
export type { PauseState, PendingConsultation, PlanQuality, PlanQualityAttempt, RunStatusValue } from '../domain/run/state';

/** What `status` returns: a view computed from the run's state on each query. */
export type RunStatus = RunStatusView;

// ---------------------------------------------------------------- payload schemas (SPEC S2)

/** A parsed payload, or why it was refused (short enough for a log line or an update error). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export function parsePayload<T>(schema: z.ZodType<T>, payload: unknown): Parsed<T> {
  const r = schema.safeParse(payload);
  if (r.success) return { ok: true, value: r.data };
  const issues = r.error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join('.') : 'payload'}: ${i.message}`);
  return { ok: false, reason: `invalid payload (${issues.join('; ').slice(0, 500)})` };
}

const id = lazySchema(() => z.string().min(1).max(200));
const text = (max: number) => z.string().max(max);
const count = lazySchema(() => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));

const UsageSchema: z.ZodType<TokenUsage> = lazySchema(() =>
  z.strictObject({ promptTokens: count, completionTokens: count, totalTokens: count, calls: count }),
);

const TaskRecordSchema: z.ZodType<TaskRecord> = lazySchema(() =>
  z.strictObject({
    id,
    title: text(2000),
    description: text(20_000),
    acceptanceCriteria: z.array(text(4000)).max(100),
    dependencies: z.array(id).max(500),
    scopePaths: z.array(text(1000)).max(200),
    profile: text(100) as z.ZodType<TaskRecord['profile']>,
    state: z.enum(Object.values(TaskState) as [TaskState, ...TaskState[]]),
    replanningInfo: z
      .strictObject({
        iteration: count,
        maxIterations: count,
        originalTaskId: id.optional(),
        replacedBy: z.array(id).max(100),
        replanReason: text(4000).optional(),
      })
      .optional(),
    summary: text(8000).optional(),
  }),
);

const ConsultationSchema = lazySchema(() =>
  z.strictObject({
    id,
    taskId: id,
    kind: z.enum(INTERVENTION_KINDS),
    iteration: count,
    maxLoops: count,
    message: text(8000),
    trigger: text(2000),
    choices: z
      .array(
        z.strictObject({
          number: count,
          key: text(100),
          effect: z.enum(CONSULTATION_EFFECTS),
          label: text(500),
          ja: text(500),
          needsText: z.boolean(),
        }),
      )
      .max(10),
    timeoutMinutes: z.number().min(0).max(1e6),
  }),
);

export const ClarificationAnswerSchema: z.ZodType<QuestionAnswer> = lazySchema(() =>
  z.strictObject({
    questionId: id,
    answer: text(MAX_ANSWER_CHARS),
  }),
);

export const TaskProgressSchema: z.ZodType<TaskProgressMessage> = lazySchema(() =>
  z.strictObject({
    round: z.number().int().min(1).max(1e6),
    seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    tasks: z.array(TaskRecordSchema).max(1000),
    usage: UsageSchema,
    decisions: z
      .array(
        z.strictObject({
          taskId: id,
          replan: z.boolean(),
          confidence: z.number(),
          replanType: text(100).optional(),
          reasoning: text(1000).optional(),
        }),
      )
      .max(MAX_NOTES_PER_READ)
      .optional(),
    decisionsFrom: count.optional(),
  }),
);

export const TaskConsultationSchema: z.ZodType<ConsultationMessage> = lazySchema(() =>
  z.strictObject({
    taskId: id,
    consultationId: id,
    consultation: ConsultationSchema.nullable(),
  }),
);

/** S2: the task whose consultation changed (the run reads it from the task). */
export interface TaskConsultationPoke {
  taskId: string;
}
export const TaskConsultationPokeSchema: z.ZodType<TaskConsultationPoke> = lazySchema(() => z.strictObject({ taskId: id }));
/** What the run reads from a task (taskConsultationStateQuery): checked like any payload. */
export const CurrentConsultationSchema: z.ZodType<PendingConsultation | null> = lazySchema(() => ConsultationSchema.nullable());

// The consultation answer's schema lives with its validation in src/domain/pacemaker (one home).

export type { Question, QuestionKind, QuestionStatus } from '../domain/replan/questions';
export type { TaskProgressMessage } from '../domain/run/plan';
export type { ConsultationMessage } from '../domain/run/questions';

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

export const decisionsQuery = defineQuery<DecisionsView>('decisions');

export const statusQuery = defineQuery<RunStatus>('status');
/**
 * V2: the run's events after seq `afterSeq` (0: from the oldest kept), with the oldest seq it still
 * keeps and how many after the cursor it dropped. `watch` reads it with its cursor: each event once, in order.
 */
export const eventsQuery = defineQuery<RunEventsPage, [number]>('events');
/**
 * S2: a poke from the execution phase to its run: "my tasks changed, look again". Its payload is
 * never read (anyone can send this signal): the run reads the task states from its execution child
 * itself (executionProgressQuery, through a local activity that checks the workflow it asks is its
 * own child). A forged poke at worst makes the run look again and see the truth.
 */
export const taskProgressSignal = defineSignal<[unknown?]>('taskProgress');
/**
 * S2, internal: the execution phase's task states changed after version `since` (the run's last
 * applied `seq`), its current version and usage, and (V2) the replan decisions it asked from number
 * `decisionsFrom` on (the run's count of those it has). Asked by the run only (see taskProgressSignal).
 */
export const executionProgressQuery = defineQuery<TaskProgressMessage, [number, number?]>('executionProgress');
/**
 * S2 / P7: a poke from a task to its run: "my consultation opened or closed, look again". It names
 * only the task: the run reads the task's consultation from the task itself
 * (taskConsultationStateQuery, through a local activity that checks the task is a workflow of this
 * run), so a forged poke at worst makes the run look again and see the truth.
 */
export const taskConsultationSignal = defineSignal<[TaskConsultationPoke]>('taskConsultation');
/** S2 / P7, internal: the task's consultation waiting for the user's answer (null: none). Asked by the run. */
export const taskConsultationStateQuery = defineQuery<PendingConsultation | null>('taskConsultationState');

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
  /** P8: the newest [DUCK_PACEMAKER] lines of this task (start, per-loop stall / vitals change, interventions, end). */
  pacemakerLog?: string[];
  /** V2: the newest worker steps with their tool calls (what `watch` shows while the task runs). */
  steps?: TaskStepLine[];
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

// ---------------------------------------------------------------- O1 pause and resume

export interface PauseInput {
  /** Why (shown by `status`), at most MAX_PAUSE_REASON_CHARS. */
  reason?: string;
}
/** No payload (the temporal CLI without --input), null, or an object with an optional reason. */
export const PauseInputSchema: z.ZodType<PauseInput | undefined | null> = lazySchema(() =>
  z
    .strictObject({ reason: text(MAX_PAUSE_REASON_CHARS).optional() })
    .nullable()
    .optional(),
);
/** resume carries nothing: no payload, null or {}. */
export const ResumeInputSchema: z.ZodType<Record<string, never> | undefined | null> = lazySchema(() => z.strictObject({}).nullable().optional());

export interface PauseAck {
  runId: string;
  /** PAUSED after a pause, RUNNING after a resume. */
  status: 'PAUSED' | 'RUNNING';
  /** False: it was already so (acknowledged, nothing changed). */
  changed: boolean;
  pause?: PauseState;
  /** Every pause that still holds (a resume ends them all; a pause during an LLM outage shows both). */
  pauses?: PauseState[];
}
/**
 * O1: pause the run (RunWorkflow `run-<runId>`) at its next safe point: no new phase, task, worker
 * step or LLM call starts; calls in flight finish and are kept. Pausing a paused run is
 * acknowledged; a finished run is refused with its final status.
 */
export const pauseUpdate = defineUpdate<PauseAck, [PauseInput]>('pause');
/** O1: resume a paused run where it stopped; resuming a running run is acknowledged. */
export const resumeUpdate = defineUpdate<PauseAck, []>('resume');
/** O1: the fire-and-forget twins; an invalid payload or a finished run is logged and ignored. */
export const pauseSignal = defineSignal<[PauseInput?]>('pauseSignal');
export const resumeSignal = defineSignal<[]>('resumeSignal');

export interface PauseGateMessage {
  paused: boolean;
  /** O2: why (absent in older messages: the user's pause); a prober of an outage goes on while only 'llm_outage' holds. */
  kinds?: PauseKind[];
}
export const PauseGateSchema: z.ZodType<PauseGateMessage> = lazySchema(() =>
  z.strictObject({
    paused: z.boolean(),
    kinds: z.array(z.enum(PAUSE_KINDS)).max(PAUSE_KINDS.length).optional(),
  }),
);
/**
 * O1, internal: a run tells its current phase child, and the execution phase its running tasks,
 * whether they may start LLM calls. A forged one is at worst a pause: `resume` on the run tells
 * every child again.
 */
export const pauseGateSignal = defineSignal<[PauseGateMessage]>('pauseGate');

// ---------------------------------------------------------------- O2 LLM outage / rejected access

export type { LlmTroubleMessage } from '../domain/run/pause';
/** Every trouble a workflow can observe: the LLM's, and its workspace host's (workspace affinity). */
const TROUBLE_KINDS = ['unavailable', 'rejected', 'unsupported', 'recovered', 'host_offline', 'host_back'] as const;
export const LlmTroubleSchema: z.ZodType<LlmTroubleMessage> = lazySchema(() =>
  z.strictObject({
    trouble: z.enum(TROUBLE_KINDS),
    error: text(4000).optional(),
  }),
);
/** S2: who says it has LLM trouble: the workflow id of one of the run's own phase or task workflows. */
export interface LlmTroublePoke {
  from: string;
}
export const LlmTroublePokeSchema: z.ZodType<LlmTroublePoke> = lazySchema(() => z.strictObject({ from: id }));
/**
 * O2, internal: an LLM call in one of the run's workflows (`from`) failed past its quick retries
 * because the LLM is unavailable or rejected access, or succeeded again after that. S2: the claim
 * is not in the message: the run asks `from` itself (llmTroubleStateQuery, through a local activity
 * that checks `from` is a workflow of this run) and pauses only on what that workflow's own LLM
 * calls returned. A forged one changes nothing. Sent only on trouble, never per call.
 */
export const llmTroubleSignal = defineSignal<[LlmTroublePoke]>('llmTrouble');
/** O2 / S2: a workflow's own latest LLM trouble, numbered per workflow (freshTroubleObservation). */
export interface LlmTroubleObservation extends LlmTroubleMessage {
  n: number;
}
export const LlmTroubleObservationSchema: z.ZodType<LlmTroubleObservation> = lazySchema(() =>
  z.strictObject({
    trouble: z.enum(TROUBLE_KINDS),
    error: text(4000).optional(),
    n: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  }),
);
/** O2 / S2, internal: a workflow's own latest LLM trouble (null: none), asked by its run. */
export const llmTroubleStateQuery = defineQuery<LlmTroubleObservation | null>('llmTroubleState');

// ---------------------------------------------------------------- O3 budget leases (internal)

export interface BudgetRequestMessage {
  /** The asking child's workflow id: a parent serves only its own running children. */
  from: string;
  /** The child's request number (1, 2, …): the grant names it. */
  seq: number;
  /** Tokens wanted (a few calls' worth). */
  want: number;
  /** The largest single call the child has seen (the parent's estimate learns it). */
  largest: number;
  /** Tokens the child (and its children, as far as it knows) spent so far: `status` shows it. */
  spent: number;
}
const tokens = lazySchema(() => z.number().int().min(0).max(1e12));
export const BudgetRequestSchema: z.ZodType<BudgetRequestMessage> = lazySchema(() =>
  z.strictObject({
    from: id,
    seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    want: tokens.min(1),
    largest: tokens,
    spent: tokens,
  }),
);
/**
 * O3, internal: a child whose token allowance is used up asks its parent (the run, or the execution
 * phase for its tasks) for more. Sent only when an allowance runs out, never per LLM call.
 */
export const budgetRequestSignal = defineSignal<[BudgetRequestMessage]>('budgetRequest');

export interface BudgetGrantMessage {
  /** The request this grant answers. */
  seq: number;
  /** Tokens added to the child's allowance (at most what it asked for). */
  tokens: number;
}
export const BudgetGrantSchema: z.ZodType<BudgetGrantMessage> = lazySchema(() =>
  z.strictObject({
    seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    tokens: tokens.min(1),
  }),
);
/** O3, internal: a parent lends a child more tokens, answering its open request (once). */
export const budgetGrantSignal = defineSignal<[BudgetGrantMessage]>('budgetGrant');
