// Every LLM reply schema, one import point (valid under strict structured outputs, M1): activities
// import reply schemas from here only. The LLM speaks snake_case; the `to*` helpers convert to the domain's
// camelCase types. The domain imports nothing outside it (docs/architecture.md, "Layers"): the goal
// and the reflection are domain types (src/domain/types.ts) that GoalSchema and ReflectionSchema
// must produce exactly, and the schemas the domain's policy is written against (the replan decision,
// the task judge, the plan-quality judge) are defined in src/domain and re-exported here.
import { z } from 'zod';
import { BOUNDS } from '../domain/config';
import { toTaskProfile } from '../domain/pacemaker/calculator';
import { TASK_PROFILES, type ActionPlan, type Goal, type Reflection, type TaskSpec } from '../domain/types';

export { decisionSchemaFor, NO_REPLAN, parseDecision, type ReplanDecision } from '../domain/replan/decision';
export { QualityJudgeResultSchema, type QualityJudgeResult } from '../domain/refinement/quality';

/**
 * A planner reply may hold at most this many tasks. Twice the largest planning.maxTasks, so a
 * plan over the configured limit is still seen and sent back with the limit named, while a runaway
 * reply never reaches workflow history.
 */
export const MAX_REPLY_TASKS = 2 * BOUNDS.maxTasks;

// An optional field is nullable on the wire (strict mode makes the model write every key); null
// and a missing key both read as absent, so the same schema validates every rung's reply.
const strings = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);
const text = z
  .string()
  .nullish()
  .transform((v) => v ?? '');

/**
 * The task profile enum (UNKNOWN included) on the wire; a reply outside it (or none, or not text)
 * becomes UNKNOWN (base 8), never another profile.
 */
const profile = z.preprocess(toTaskProfile, z.enum(TASK_PROFILES));

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * The schema as is, if its replies are exactly the domain's type T (src/domain/types.ts); else it
 * does not compile, so a field added or changed on either side fails the build here.
 */
const producing =
  <T>() =>
  <S extends z.ZodType>(schema: S & (Same<z.output<S>, T> extends true ? unknown : never)): S =>
    schema;

export const GoalSchema = producing<Goal>()(
  z.object({
    main_objective: z.string().min(1),
    success_criteria: z.array(z.string()).min(1),
    constraints: strings,
    ambiguities: strings,
    assumptions: strings,
    task_profile: profile,
  }),
);

export const PlannedTaskSchema = z.object({
  id: z.string().min(1),
  title: z.string().min(1),
  description: text,
  acceptance_criteria: z.array(z.string()).min(1),
  dependencies: strings,
  scope_paths: strings,
  profile,
});

export const DecompositionSchema = z.object({
  tasks: z.array(PlannedTaskSchema).min(1).max(MAX_REPLY_TASKS),
  rationale: text,
});

export function toTaskSpecs(tasks: z.output<typeof PlannedTaskSchema>[]): TaskSpec[] {
  return tasks.map((t) => ({
    id: t.id,
    title: t.title,
    description: t.description,
    acceptanceCriteria: t.acceptance_criteria,
    dependencies: t.dependencies,
    scopePaths: t.scope_paths,
    profile: t.profile,
  }));
}

export const ActionSequenceSchema = z.object({
  actions: z.array(
    z.object({
      task_id: z.string(),
      steps: z.array(z.string()).min(1),
    }),
  ),
});
export type ActionSequence = z.output<typeof ActionSequenceSchema>;

export function toActionPlan(seq: ActionSequence): ActionPlan {
  const plan: ActionPlan = {};
  for (const a of seq.actions) plan[a.task_id] = [...(plan[a.task_id] ?? []), ...a.steps];
  return plan;
}

/** The task judge's verdict (policy and schema live in the domain). */
export { JudgeResultSchema as JudgeSchema, type JudgeResult as Judgement } from '../domain/replan/judge-outcome';

export const ReflectionSchema = producing<Reflection>()(
  z.object({
    evaluation_result: z.enum(['success', 'partial_success', 'failure']),
    achievement_rate: z.number().min(0).max(100),
    issues_identified: strings,
    additional_actions: strings,
    revision_scope: z
      .enum(['minor', 'moderate', 'major'])
      .nullish()
      .transform((v) => v ?? 'minor'),
    summary: text,
  }),
);
