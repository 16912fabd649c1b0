// Messages between the workflows of one run (never sent by a user; anyone could, so each is parsed
// and checked like any other, S2). A child never tells the run what happened: it pokes ("look at
// me"), and the run reads the child's own state with a query, through the inspectOwnWorkflow local
// activity, which first checks the workflow is its own. A forged poke at worst makes the run look
// again and see the truth. Downwards, the run relays its pause; budget loans go both ways.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { lazySchema } from '../../domain/lazy-schema';
import { PAUSE_KINDS, type PauseKind } from '../../domain/run/llm-outage';
import type { LlmTroubleMessage } from '../../domain/run/pause';
import type { PendingConsultation } from '../../domain/run/state';
import type { ConsultationMessage } from '../../domain/run/questions';
import type { TaskProgressMessage } from '../../domain/run/plan';
import { MAX_NOTES_PER_READ } from '../../domain/run/event-log';
import { ConsultationSchema, countField, idField, seqField, TaskRecordSchema, textField, UsageSchema } from './payload';

export type { TaskProgressMessage } from '../../domain/run/plan';
export type { ConsultationMessage } from '../../domain/run/questions';
export type { LlmTroubleMessage } from '../../domain/run/pause';

// ---------------------------------------------------------------- the execution phase's progress

/**
 * A poke from the execution phase to its run: "my tasks changed, look again". Its payload is
 * never read: the run reads the task states from its execution child itself (executionProgressQuery).
 */
export const taskProgressSignal = defineSignal<[unknown?]>('taskProgress');
/**
 * The execution phase's task states changed after version `since` (the run's last applied
 * `seq`), its current version and usage, and the replan decisions it asked from number
 * `decisionsFrom` on (the run's count of those it has). Asked by the run only.
 */
export const executionProgressQuery = defineQuery<TaskProgressMessage, [number, number?]>('executionProgress');
/** What the run reads from its execution child (executionProgressQuery): checked like any payload. */
export const TaskProgressSchema: z.ZodType<TaskProgressMessage> = lazySchema(() =>
  z.strictObject({
    round: z.number().int().min(1).max(1e6),
    seq: seqField,
    tasks: z.array(TaskRecordSchema).max(1000),
    usage: UsageSchema,
    decisions: z
      .array(
        z.strictObject({
          taskId: idField,
          replan: z.boolean(),
          confidence: z.number(),
          replanType: textField(100).optional(),
          reasoning: textField(1000).optional(),
        }),
      )
      .max(MAX_NOTES_PER_READ)
      .optional(),
    decisionsFrom: countField.optional(),
  }),
);

// ---------------------------------------------------------------- a task's consultation with the user

/** The task whose consultation changed (the run reads it from the task). */
export interface TaskConsultationPoke {
  taskId: string;
}
export const TaskConsultationPokeSchema: z.ZodType<TaskConsultationPoke> = lazySchema(() => z.strictObject({ taskId: idField }));
/**
 * A poke from a task to its run: "my consultation opened or closed, look again". It names
 * only the task: the run reads the task's consultation from the task itself (taskConsultationStateQuery).
 */
export const taskConsultationSignal = defineSignal<[TaskConsultationPoke]>('taskConsultation');
/** The task's consultation waiting for the user's answer (null: none). Asked by the run. */
export const taskConsultationStateQuery = defineQuery<PendingConsultation | null>('taskConsultationState');
/** What the run reads from a task (taskConsultationStateQuery): checked like any payload. */
export const CurrentConsultationSchema: z.ZodType<PendingConsultation | null> = lazySchema(() => ConsultationSchema.nullable());
/** A consultation opened or closed, as the run applies it (applyConsultation). */
export const TaskConsultationSchema: z.ZodType<ConsultationMessage> = lazySchema(() =>
  z.strictObject({
    taskId: idField,
    consultationId: idField,
    consultation: ConsultationSchema.nullable(),
  }),
);

// ---------------------------------------------------------------- the pause, relayed down

export interface PauseGateMessage {
  paused: boolean;
  /** Why (absent in older messages: the user's pause); a prober of an outage goes on while only 'llm_outage' holds. */
  kinds?: PauseKind[];
}
export const PauseGateSchema: z.ZodType<PauseGateMessage> = lazySchema(() =>
  z.strictObject({
    paused: z.boolean(),
    kinds: z.array(z.enum(PAUSE_KINDS)).max(PAUSE_KINDS.length).optional(),
  }),
);
/**
 * A run tells its current phase child, and the execution phase its running tasks, whether they
 * may start LLM calls. A forged one is at worst a pause: `resume` on the run tells every child again.
 */
export const pauseGateSignal = defineSignal<[PauseGateMessage]>('pauseGate');

// ---------------------------------------------------------------- LLM outage / rejected access

/** Every trouble a workflow can observe: the LLM's, and its workspace host's (workspace affinity). */
const TROUBLE_KINDS = ['unavailable', 'rejected', 'unsupported', 'slow', 'recovered', 'host_offline', 'host_back'] as const;
export const LlmTroubleSchema: z.ZodType<LlmTroubleMessage> = lazySchema(() =>
  z.strictObject({
    trouble: z.enum(TROUBLE_KINDS),
    error: textField(4000).optional(),
  }),
);
/** Who says it has LLM trouble: the workflow id of one of the run's own phase or task workflows. */
export interface LlmTroublePoke {
  from: string;
}
export const LlmTroublePokeSchema: z.ZodType<LlmTroublePoke> = lazySchema(() => z.strictObject({ from: idField }));
/**
 * An LLM call in one of the run's workflows (`from`) failed past its quick retries because the
 * LLM is unavailable or rejected access, or succeeded again after that. The claim is not taken from the
 * message: the run asks `from` itself (llmTroubleStateQuery) and pauses only on what that
 * workflow's own LLM calls returned. A forged one changes nothing. Sent only on trouble, never per call.
 */
export const llmTroubleSignal = defineSignal<[LlmTroublePoke]>('llmTrouble');
/** A workflow's own latest LLM trouble, numbered per workflow (freshTroubleObservation). */
export interface LlmTroubleObservation extends LlmTroubleMessage {
  n: number;
}
export const LlmTroubleObservationSchema: z.ZodType<LlmTroubleObservation> = lazySchema(() =>
  z.strictObject({
    trouble: z.enum(TROUBLE_KINDS),
    error: textField(4000).optional(),
    n: seqField,
  }),
);
/** A workflow's own latest LLM trouble (null: none), asked by its run. */
export const llmTroubleStateQuery = defineQuery<LlmTroubleObservation | null>('llmTroubleState');

// ---------------------------------------------------------------- budget leases

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
    from: idField,
    seq: seqField,
    want: tokens.min(1),
    largest: tokens,
    spent: tokens,
  }),
);
/**
 * A child whose token allowance is used up asks its parent (the run, or the execution phase
 * for its tasks) for more. Sent only when an allowance runs out, never per LLM call.
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
    seq: seqField,
    tokens: tokens.min(1),
  }),
);
/** A parent lends a child more tokens, answering its open request (once). */
export const budgetGrantSignal = defineSignal<[BudgetGrantMessage]>('budgetGrant');

// ---------------------------------------------------------------- the workspace lock (one running run per workspace)

export interface WorkspaceReleaseMessage {
  /** The token the run gave its lock at start: only the run holding the workspace lets it go. */
  token: string;
}
export const WorkspaceReleaseSchema: z.ZodType<WorkspaceReleaseMessage> = lazySchema(() => z.strictObject({ token: textField(100) }));
/** The run ends: its workspace lock (`workspace-<sha256>`, its child) ends too. A wrong token is ignored and logged. */
export const releaseWorkspaceSignal = defineSignal<[WorkspaceReleaseMessage]>('releaseWorkspace');
