// The configuration schema with its defaults (X12). Pure (zod only): the parsed config is
// passed into workflows, so this module must stay free of fs/env; see src/client/config-load.ts for those.
//
// Layout (YAML):
//   replanning:          the phases' replan decisions, snake_case keys (phase replanning)
//     enabled, on_replan_failure, llm_decision.*, goal_understanding.*, task_decomposition.*,
//     action_sequence.*, execution.*, reflection.*, global.*
//   task_replanning:     re-decomposition of a task its judge says to replan, camelCase
//   execution:           task execution bounds
//   planning:            Replanner's plan bounds (maxTasks); may also wrap the replanning block
//   refinement, pacemaker: their own schemas (refinement/config, pacemaker/config), checked here too
// The wrapper `planning: { enabled: true, replanning: {...} }` is accepted as well.
// Unknown keys are rejected with their full path (typo protection).
import { z } from 'zod';
import { budgetConfigProblems } from '../budget';
import { lazySchema } from '../lazy-schema';
import { PacemakerConfigSchema } from '../pacemaker/config';
import { RefinementConfigSchema } from '../refinement/config';
import { ConfigError, describeIssue, isRecord, show, type ConfigIssue } from './issues';
import { NotificationsConfigSchema } from './notifications';
import { PullRequestConfigSchema } from './pull-request';
import {
  BudgetConfigSchema,
  ExecutionConfigSchema,
  LlmConfigSchema,
  PlanningConfigSchema,
  ReplanningConfigSchema,
  TaskReplanningConfigSchema,
} from './sections';

export const ReplannerConfigSchema = lazySchema(() =>
  z
    .strictObject(
      {
        planning: PlanningConfigSchema,
        replanning: ReplanningConfigSchema,
        task_replanning: TaskReplanningConfigSchema,
        execution: ExecutionConfigSchema,
        // One parser for the whole config (client for early errors, workflow as the source of truth).
        refinement: RefinementConfigSchema,
        pacemaker: PacemakerConfigSchema.prefault({}),
        budget: BudgetConfigSchema,
        llm: LlmConfigSchema,
        notifications: NotificationsConfigSchema,
        pullRequest: PullRequestConfigSchema,
      },
      { error: 'must be a mapping (key: value)' },
    )
    .superRefine((cfg, ctx) => {
      const d = cfg.replanning.llm_decision;
      if (d.user_confirmation_threshold > d.min_confidence_threshold) {
        ctx.addIssue({
          code: 'custom',
          path: ['replanning', 'llm_decision', 'user_confirmation_threshold'],
          message: `must not exceed replanning.llm_decision.min_confidence_threshold (${d.min_confidence_threshold})`,
          input: d.user_confirmation_threshold,
        });
      }
      if (cfg.notifications.github && cfg.notifications.gitlab) {
        ctx.addIssue({
          code: 'custom',
          path: ['notifications'],
          message: 'give notifications.github or notifications.gitlab, not both',
          input: undefined,
        });
      }
      for (const p of budgetConfigProblems(cfg.budget)) {
        ctx.addIssue({ code: 'custom', path: ['budget', p.path], message: p.message, input: undefined });
      }
    }),
);

export type ReplannerConfig = z.output<typeof ReplannerConfigSchema>;
export type TaskReplanningConfig = ReplannerConfig['task_replanning'];

export { BOUNDS } from './fields';
export { ConfigError } from './issues';
export { parseGithubFlag, parseGitlabFlag, type NotificationsConfig } from './notifications';
export { checkRunOptions } from './run-options';
export type { OnReplanFailure } from './sections';

/** Parses (and defaults) a raw config object, e.g. parsed YAML. null/undefined → all defaults. */
export function parseConfig(raw: unknown): ReplannerConfig {
  const { value, prefix } = unwrapSeedPlanning(raw ?? {});
  const r = ReplannerConfigSchema.safeParse(value, { reportInput: true });
  if (r.success) return r.data;
  throw new ConfigError(r.error.issues.flatMap((i) => describeIssue(i, prefix, DEFAULT_CONFIG)));
}

/** All defaults. Deeply frozen: derive variants with parseConfig({...}) instead of mutating it. */
export const DEFAULT_CONFIG: ReplannerConfig = deepFreeze(parseConfig({}));

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * A config may nest `replanning` under `planning:` (`planning: { enabled: true, replanning: {...} }`);
 * accept that spelling too. `planning:` also holds Replanner's own plan bounds (maxTasks), validated
 * by PlanningConfigSchema.
 */
function unwrapSeedPlanning(raw: unknown): { value: unknown; prefix: boolean } {
  if (!isRecord(raw) || !('planning' in raw)) return { value: raw, prefix: false };
  const { planning, ...rest } = raw;
  const issues: ConfigIssue[] = [];
  if (!isRecord(planning)) throw new ConfigError([{ path: 'planning', message: 'must be a mapping (key: value)' }]);
  if ('enabled' in planning && planning.enabled !== true) {
    issues.push({
      path: 'planning.enabled',
      message: `planning mode is always on in Replanner; set replanning.enabled: false to turn replanning off (got ${show(planning.enabled)})`,
    });
  }
  if ('replanning' in planning && 'replanning' in rest) {
    issues.push({ path: 'planning.replanning', message: 'given twice (also at top level replanning)' });
  }
  if (issues.length) throw new ConfigError(issues);
  const { enabled: _enabled, replanning, ...own } = planning;
  return { value: 'replanning' in planning ? { ...rest, planning: own, replanning } : { ...rest, planning: own }, prefix: 'replanning' in planning };
}
