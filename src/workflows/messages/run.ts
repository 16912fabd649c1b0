// The run's public messages (sent to the RunWorkflow `run-<runId>` by the CLI, the Web UI or
// `temporal workflow query/signal/update --name ...`): its views, the answer to its questions, and
// pause / resume. Each update has a fire-and-forget signal twin that logs and ignores what it refuses.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { lazySchema } from '../../domain/lazy-schema';
import { MAX_PAUSE_REASON_CHARS } from '../../domain/run/pause';
import { ANSWER_SIGNAL } from '../../domain/run/waiting';
import type { PauseState } from '../../domain/run/state';
import type { DecisionsView, RunStatusView } from '../../domain/run/views';
import type { RunEventsPage } from '../../domain/run/event-log';
import { MAX_ANSWER_CHARS, type QuestionAnswer } from '../../domain/replan/questions';
import { idField, textField } from './payload';

export type { RunEvent, RunEventsPage } from '../../domain/run/event-log';
export type { DecisionsView } from '../../domain/run/views';
export type { PauseState, PendingConsultation, PlanQuality, PlanQualityAttempt } from '../../domain/run/state';
export type { Question } from '../../domain/replan/questions';

// ---------------------------------------------------------------- the views (queries: no history event)

/** What `status` returns: a view computed from the run's state on each query. */
export type RunStatus = RunStatusView;
export const statusQuery = defineQuery<RunStatus>('status');
export const decisionsQuery = defineQuery<DecisionsView>('decisions');
/**
 * The run's events after seq `afterSeq` (0: from the oldest kept), with the oldest seq it still
 * keeps and how many after the cursor it dropped. `watch` reads it with its cursor: each event once, in order.
 */
export const eventsQuery = defineQuery<RunEventsPage, [number]>('events');

// ---------------------------------------------------------------- the answer to a question

export const ClarificationAnswerSchema: z.ZodType<QuestionAnswer> = lazySchema(() =>
  z.strictObject({
    questionId: idField,
    answer: textField(MAX_ANSWER_CHARS),
  }),
);
export type ClarificationAnswerInput = QuestionAnswer;
export interface ClarificationAnswerAck {
  questionId: string;
  /** Questions still waiting after this answer. */
  stillPending: string[];
}
/**
 * Answer a question of the run. The validator rejects an unknown question id, an empty
 * answer, a question no longer pending, and a confirmation answered with something other than yes/no.
 */
export const answerClarificationUpdate = defineUpdate<ClarificationAnswerAck, [ClarificationAnswerInput]>('answerClarification');
/** The fire-and-forget twin of answerClarification; an invalid answer is logged and ignored. */
export const answerClarificationSignal = defineSignal<[ClarificationAnswerInput]>('answerClarificationSignal');

// ---------------------------------------------------------------- the Web UI's answer

/** A consultation's answer sent to the run (it passes it to the task, which takes the first answer). */
export interface ConsultationAnswerToRun {
  taskId: string;
  /** The choice's number (1–4) or key, as the run's details list them. */
  choice: number | string;
  guidance?: string;
  /** When given, it must be the task's pending consultation. */
  consultationId?: string;
}
/** What a person types in the Web UI's "Send a Signal" input: a question's answer or a consultation's. */
export type RunAnswerInput = QuestionAnswer | ConsultationAnswerToRun;
export const RunAnswerSchema: z.ZodType<RunAnswerInput> = lazySchema(() =>
  z.union([
    ClarificationAnswerSchema,
    z.strictObject({
      taskId: idField,
      choice: z.union([z.number(), textField(100)]),
      guidance: textField(8000).optional(),
      consultationId: idField.optional(),
    }),
  ]),
);
/**
 * Answer a question (`{"questionId":"q1","answer":"…"}`) or a task's consultation
 * (`{"taskId":"t2","choice":2}`) from the Web UI's own "Send a Signal" action, typed as JSON. Checked
 * like the updates; what cannot be taken (malformed, unknown, already answered) is logged and ignored.
 */
export const answerSignal = defineSignal<[RunAnswerInput]>(ANSWER_SIGNAL);
/** What the Web UI's "Send a Signal" shows beside the signal's name. */
export const ANSWER_SIGNAL_HELP =
  'Answer a question: {"questionId":"q1","answer":"your answer"}; or a task\'s consultation: {"taskId":"t2","choice":2} (with "guidance":"text" where the choice needs it). The run\'s current details show what waits.';

// ---------------------------------------------------------------- pause and resume

export interface PauseInput {
  /** Why (shown by `status`), at most MAX_PAUSE_REASON_CHARS. */
  reason?: string;
}
/** No payload (the temporal CLI without --input), null, or an object with an optional reason. */
export const PauseInputSchema: z.ZodType<PauseInput | undefined | null> = lazySchema(() =>
  z
    .strictObject({ reason: textField(MAX_PAUSE_REASON_CHARS).optional() })
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
 * Pause the run at its next safe point: no new phase, task, worker step or LLM call starts;
 * calls in flight finish and are kept. Pausing a paused run is acknowledged; a finished run is
 * refused with its final status.
 */
export const pauseUpdate = defineUpdate<PauseAck, [PauseInput]>('pause');
/** Resume a paused run where it stopped; resuming a running run is acknowledged. */
export const resumeUpdate = defineUpdate<PauseAck, []>('resume');
/** The fire-and-forget twins; an invalid payload or a finished run is logged and ignored. */
export const pauseSignal = defineSignal<[PauseInput?]>('pauseSignal');
export const resumeSignal = defineSignal<[]>('resumeSignal');

// ---------------------------------------------------------------- the run's workspace (one running run per workspace)

/** Whether the run holds its workspace: it does, or another running run (`holder`) does and this run ended refused. */
export type WorkspaceHold = { held: true } | { held: false; holder?: string; reason: string };
/**
 * Waits until the run has taken its workspace's lock (its first step) or was refused it. The
 * client starts a run with this update (update-with-start), so it learns at once whether the run
 * starts or the workspace is busy. Carries nothing; asking again later answers the same.
 */
export const workspaceHoldUpdate = defineUpdate<WorkspaceHold, []>('workspaceHold');
