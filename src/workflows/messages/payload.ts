// What every message handler does first: parse the payload with its zod schema. Anyone who
// can reach Temporal can send anything, so nothing a message carries is used before this.
import { z } from 'zod';
import { lazySchema } from '../../domain/lazy-schema';
import { CONSULTATION_EFFECTS, INTERVENTION_KINDS } from '../../domain/pacemaker';
import { TaskState, type TaskRecord } from '../../domain/types';
import type { TokenUsage } from '../../domain/usage';

/** A parsed payload, or why it was refused (short enough for a log line or an update error). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export function parsePayload<T>(schema: z.ZodType<T>, payload: unknown): Parsed<T> {
  const r = schema.safeParse(payload);
  if (r.success) return { ok: true, value: r.data };
  const issues = r.error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join('.') : 'payload'}: ${i.message}`);
  return { ok: false, reason: `invalid payload (${issues.join('; ').slice(0, 500)})` };
}

// ---------------------------------------------------------------- fields the messages share

/** A workflow, task, question or consultation id. */
export const idField = lazySchema(() => z.string().min(1).max(200));
export const textField = (max: number) => z.string().max(max);
export const countField = lazySchema(() => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));
/** A message's sequence number (1, 2, …). */
export const seqField = lazySchema(() => z.number().int().min(1).max(Number.MAX_SAFE_INTEGER));

export const UsageSchema: z.ZodType<TokenUsage> = lazySchema(() =>
  z.strictObject({ promptTokens: countField, completionTokens: countField, totalTokens: countField, calls: countField }),
);

export const TaskRecordSchema: z.ZodType<TaskRecord> = lazySchema(() =>
  z.strictObject({
    id: idField,
    title: textField(2000),
    description: textField(20_000),
    acceptanceCriteria: z.array(textField(4000)).max(100),
    dependencies: z.array(idField).max(500),
    scopePaths: z.array(textField(1000)).max(200),
    profile: textField(100) as z.ZodType<TaskRecord['profile']>,
    state: z.enum(Object.values(TaskState) as [TaskState, ...TaskState[]]),
    replanningInfo: z
      .strictObject({
        iteration: countField,
        maxIterations: countField,
        originalTaskId: idField.optional(),
        replacedBy: z.array(idField).max(100),
        replanReason: textField(4000).optional(),
      })
      .optional(),
    summary: textField(8000).optional(),
    stuck: textField(2000).optional(),
  }),
);

/** A task's consultation waiting for the user, as the run reads it from the task. */
export const ConsultationSchema = lazySchema(() =>
  z.strictObject({
    id: idField,
    taskId: idField,
    kind: z.enum(INTERVENTION_KINDS),
    iteration: countField,
    maxLoops: countField,
    message: textField(8000),
    messageJa: textField(8000).optional(),
    trigger: textField(2000),
    choices: z
      .array(
        z.strictObject({
          number: countField,
          key: textField(100),
          effect: z.enum(CONSULTATION_EFFECTS),
          label: textField(500),
          ja: textField(500),
          needsText: z.boolean(),
        }),
      )
      .max(10),
    timeoutMinutes: z.number().min(0).max(1e6),
  }),
);
