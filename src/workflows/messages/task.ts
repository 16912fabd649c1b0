// A task's public messages (sent to the TaskWorkflow `<run workflow id>.task-<taskId>` by the CLI's
// `watch` and `answer`): its status, and the answer to its pacemaker consultation.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ConsultationEffect, Vitals } from '../../domain/pacemaker';
import type { PendingConsultation } from '../../domain/run/state';
import type { StuckStatus } from '../../domain/stuck';
import type { TaskStepLine } from '../../domain/task-details';
import type { TaskRecord } from '../../domain/types';
import type { TokenUsage } from '../../domain/usage';

export interface TaskStatus {
  taskId: string;
  state: TaskRecord['state'];
  iteration: number;
  maxIterations: number;
  lastJudgeReason?: string;
  usage: TokenUsage;
  /** The pacemaker's view of the task. */
  pacemaker?: { maxLoops: number; vitals: Vitals; interventions: number };
  /** The consultation waiting for the user's answer, if any. */
  consultation?: PendingConsultation;
  /** The newest [DUCK_PACEMAKER] lines of this task (start, per-loop stall / vitals change, interventions, end). */
  pacemakerLog?: string[];
  /** The stuck detector's newest finding in this task and the steps and tokens repeats cost. */
  stuck?: StuckStatus;
  /** The newest worker steps with their tool calls (what `watch` shows while the task runs). */
  steps?: TaskStepLine[];
}
export const taskStatusQuery = defineQuery<TaskStatus>('taskStatus');

// The consultation answer's schema lives with its validation in src/domain/pacemaker (one home).

/** The user's answer to a consultation: a choice 1–4, its key or its effect; the text where the choice needs it (validateConsultationAnswer). */
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
 * Answer a task's pending consultation. The validator rejects: no consultation pending, a wrong
 * id, a malformed payload, a choice the pattern does not offer, a missing text where the choice needs one.
 */
export const answerConsultationUpdate = defineUpdate<ConsultationAnswerAck, [ConsultationAnswerInput]>('answerConsultation');
/** The fire-and-forget twin of answerConsultation; an invalid answer is logged and ignored. */
export const answerConsultationSignal = defineSignal<[ConsultationAnswerInput]>('answerConsultationSignal');
