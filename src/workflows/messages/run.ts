// The run's public messages (sent to the RunWorkflow `run-<runId>` by the CLI, the Web UI or
// `temporal workflow query/signal/update --name ...`): its views, the answer to its questions, and
// pause / resume. Each update has a fire-and-forget signal twin that logs and ignores what it refuses.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { lazySchema } from '../../domain/lazy-schema';
import { MAX_PAUSE_REASON_CHARS } from '../../domain/run/pause';
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
 * V2: the run's events after seq `afterSeq` (0: from the oldest kept), with the oldest seq it still
 * keeps and how many after the cursor it dropped. `watch` reads it with its cursor: each event once, in order.
 */
export const eventsQuery = defineQuery<RunEventsPage, [number]>('events');

// ---------------------------------------------------------------- X14 the answer to a question

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
 * X14: answer a question of the run. The validator rejects an unknown question id, an empty
 * answer, a question no longer pending, and a confirmation answered with something other than yes/no.
 */
export const answerClarificationUpdate = defineUpdate<ClarificationAnswerAck, [ClarificationAnswerInput]>('answerClarification');
/** X14: the fire-and-forget twin of answerClarification; an invalid answer is logged and ignored. */
export const answerClarificationSignal = defineSignal<[ClarificationAnswerInput]>('answerClarificationSignal');

// ---------------------------------------------------------------- O1 pause and resume

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
 * O1: pause the run at its next safe point: no new phase, task, worker step or LLM call starts;
 * calls in flight finish and are kept. Pausing a paused run is acknowledged; a finished run is
 * refused with its final status.
 */
export const pauseUpdate = defineUpdate<PauseAck, [PauseInput]>('pause');
/** O1: resume a paused run where it stopped; resuming a running run is acknowledged. */
export const resumeUpdate = defineUpdate<PauseAck, []>('resume');
/** O1: the fire-and-forget twins; an invalid payload or a finished run is logged and ignored. */
export const pauseSignal = defineSignal<[PauseInput?]>('pauseSignal');
export const resumeSignal = defineSignal<[]>('resumeSignal');
