// X12 / J8: the configuration schema with the seeds' defaults. Pure (zod only): the parsed config is
// passed into workflows, so this module must stay free of fs/env; see src/client/config-load.ts for those.
//
// Layout (YAML):
//   replanning:          seed 004 §12.1, snake_case keys exactly as in the seed (phase replanning)
//     enabled, on_replan_failure, llm_decision.*, goal_understanding.*, task_decomposition.*,
//     action_sequence.*, execution.*, reflection.*, global.*
//   task_replanning:     seed 000 "replanning" block (judge → planner re-decomposition), camelCase
//   execution:           task execution bounds
//   planning:            Replanner's plan bounds (maxTasks); may also wrap the seed's replanning block
//   refinement, pacemaker: their own schemas (refinement/config, pacemaker/config), checked here too
// The seed's own wrapper `planning: { enabled: true, replanning: {...} }` is accepted as well.
// Unknown keys are rejected with their full path (typo protection).
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { budgetConfigProblems, MAX_BUDGET_TOKENS, MAX_BUDGET_USD } from './budget';
import { GITHUB_REPO, GITLAB_PROJECT, MAX_ISSUE_NUMBER } from './notifications';
import { PacemakerConfigSchema } from './pacemaker/config';
import { RefinementConfigSchema } from './refinement/config';

const prob = (dflt: number) =>
  z
    .number({ error: 'must be a number between 0 and 1' })
    .min(0, { error: 'must be between 0 and 1' })
    .max(1, { error: 'must be between 0 and 1' })
    .default(dflt);
// S3: every number has a sane maximum too, so no config can ask for unbounded work or waits.
const count = (dflt: number, min: number, max: number) =>
  z
    .number({ error: `must be a whole number ≥ ${min}` })
    .int({ error: `must be a whole number ≥ ${min}` })
    .min(min, { error: `must be a whole number ≥ ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .default(dflt);
const positive = (dflt: number, max: number) =>
  z
    .number({ error: 'must be a number > 0' })
    .positive({ error: 'must be a number > 0' })
    .max(max, { error: `must be at most ${max}` })
    .default(dflt);
const nonNegative = (dflt: number, max: number) =>
  z
    .number({ error: 'must be a number ≥ 0' })
    .min(0, { error: 'must be a number ≥ 0' })
    .max(max, { error: `must be at most ${max}` })
    .default(dflt);

/** S3 maxima: machine waits (commands, LLM calls) at most a day; waits for a human at most 30 days. */
export const BOUNDS = {
  maxTasks: 200,
  replansPerType: 100,
  totalReplans: 1000,
  machineTimeoutSeconds: 24 * 60 * 60,
  humanWaitMinutes: 30 * 24 * 60,
  parallelTasks: 64,
  taskIterations: 100,
  redecompositionIterations: 20,
} as const;
const perType = (dflt: number) => count(dflt, 0, BOUNDS.replansPerType);
const flag = (dflt: boolean) => z.boolean({ error: 'must be true or false' }).default(dflt);
const section = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, { error: 'must be a mapping (key: value)' }).prefault({} as never);

export const ON_REPLAN_FAILURE = ['continue', 'abort'] as const;
export type OnReplanFailure = (typeof ON_REPLAN_FAILURE)[number];

export const ReplanningConfigSchema = lazySchema(() =>
  section({
    enabled: flag(true),
    /** X13 / seed §13.2 step 4: after escalation found no way forward, go on with assumptions or stop. */
    on_replan_failure: z.enum(ON_REPLAN_FAILURE, { error: `must be one of ${ON_REPLAN_FAILURE.join(', ')}` }).default('continue'),
    llm_decision: section({
      min_confidence_threshold: prob(0.5),
      require_user_confirmation_on_low_confidence: flag(true),
      user_confirmation_threshold: prob(0.3),
    }),
    goal_understanding: section({
      max_clarification_requests: perType(2),
      auto_assume_on_no_response: flag(true),
      auto_assume_timeout_minutes: nonNegative(30, BOUNDS.humanWaitMinutes),
    }),
    task_decomposition: section({ max_redecomposition_attempts: perType(3) }),
    action_sequence: section({ max_regeneration_attempts: perType(3) }),
    execution: section({ max_action_retries: perType(3), max_partial_replans: perType(2) }),
    reflection: section({ max_plan_revisions: perType(2) }),
    global: section({
      max_total_replans: count(10, 0, BOUNDS.totalReplans),
      infinite_loop_detection: flag(true),
      same_trigger_max_count: count(2, 1, BOUNDS.replansPerType),
    }),
  }),
);

/** J8: judge-driven task re-decomposition (seed 000's `replanning` block). */
export const TaskReplanningConfigSchema = lazySchema(() =>
  section({
    enabled: flag(true),
    maxIterations: count(3, 0, BOUNDS.redecompositionIterations),
    timeoutSeconds: positive(300, BOUNDS.machineTimeoutSeconds),
  }),
);

export const NO_SANDBOX_REFUSED = "a run cannot turn the sandbox off: the sandbox is the worker's setting; start the worker with --no-sandbox";

export const ExecutionConfigSchema = lazySchema(() =>
  section({
    maxParallelTasks: count(3, 1, BOUNDS.parallelTasks),
    maxTaskIterations: count(5, 1, BOUNDS.taskIterations),
    commandTimeoutSeconds: positive(120, BOUNDS.machineTimeoutSeconds),
    // S1: a run may only narrow the worker's sandbox (anyone who can reach Temporal can start a run).
    /** Network for commands: absent = the worker's setting; true is granted only where the worker allows network. */
    network: z.boolean({ error: 'must be true or false' }).optional(),
    /** Only `true` (the default): whether commands are sandboxed is the worker's setting. */
    sandbox: z
      .boolean({ error: 'must be true or false' })
      .refine((v) => v, { error: NO_SANDBOX_REFUSED })
      .optional(),
  }),
);

/** S3: plan size. A decomposition or re-decomposition over maxTasks goes back to the planner once, then fails. */
export const PlanningConfigSchema = lazySchema(() =>
  section({
    maxTasks: count(30, 1, BOUNDS.maxTasks),
  }),
);

/** M1: LLM requests. */
export const LLM_TIMEOUT_MAX_SECONDS = 3600;
export const LLM_MIN_REPLY_TOKENS = 64;
export const LLM_MAX_REPLY_TOKENS = 1_000_000;
export const LlmConfigSchema = lazySchema(() =>
  section({
    /** The request timeout of every LLM call of the run (absent: the worker's, 120 s); for slow local models. */
    timeoutSeconds: z
      .number({ error: `must be a number of seconds between 1 and ${LLM_TIMEOUT_MAX_SECONDS}` })
      .min(1, { error: `must be a number of seconds between 1 and ${LLM_TIMEOUT_MAX_SECONDS}` })
      .max(LLM_TIMEOUT_MAX_SECONDS, { error: `must be a number of seconds between 1 and ${LLM_TIMEOUT_MAX_SECONDS}` })
      .optional(),
    /**
     * The longest reply any LLM call of the run may generate, sent as `max_tokens` (absent: none
     * sent, the server's own limit). For small local models, which can otherwise generate until their
     * context is full; a cut reply fails its schema and is retried like any bad reply.
     */
    maxReplyTokens: z
      .number({ error: `must be a whole number of tokens between ${LLM_MIN_REPLY_TOKENS} and ${LLM_MAX_REPLY_TOKENS}` })
      .int({ error: `must be a whole number of tokens between ${LLM_MIN_REPLY_TOKENS} and ${LLM_MAX_REPLY_TOKENS}` })
      .min(LLM_MIN_REPLY_TOKENS, { error: `must be a whole number of tokens between ${LLM_MIN_REPLY_TOKENS} and ${LLM_MAX_REPLY_TOKENS}` })
      .max(LLM_MAX_REPLY_TOKENS, { error: `must be a whole number of tokens between ${LLM_MIN_REPLY_TOKENS} and ${LLM_MAX_REPLY_TOKENS}` })
      .optional(),
  }),
);

/** O3: the run's budget. No maxTokens and no maxCostUsd: no budget. */
const price = lazySchema(() =>
  z
    .number({ error: 'must be a number ≥ 0 (US dollars per million tokens)' })
    .min(0, { error: 'must be a number ≥ 0 (US dollars per million tokens)' })
    .max(MAX_BUDGET_USD, { error: `must be at most ${MAX_BUDGET_USD}` }),
);
export const BudgetConfigSchema = lazySchema(() =>
  section({
    maxTokens: z
      .number({ error: 'must be a whole number of tokens > 0' })
      .int({ error: 'must be a whole number of tokens > 0' })
      .positive({ error: 'must be a whole number of tokens > 0' })
      .max(MAX_BUDGET_TOKENS, { error: `must be at most ${MAX_BUDGET_TOKENS}` })
      .optional(),
    maxCostUsd: z
      .number({ error: 'must be a number of US dollars > 0' })
      .positive({ error: 'must be a number of US dollars > 0' })
      .max(MAX_BUDGET_USD, { error: `must be at most ${MAX_BUDGET_USD}` })
      .optional(),
    /** Which entry of `prices` the run's model is (absent: the only entry). */
    model: z.string({ error: 'must be a model name' }).min(1, { error: 'must be a model name' }).max(200).optional(),
    prices: z
      .record(
        z.string().min(1).max(200),
        z.strictObject({ inputPerMTok: price, outputPerMTok: price }, { error: 'must be a mapping { inputPerMTok, outputPerMTok }' }),
        { error: 'must be a mapping of model name → { inputPerMTok, outputPerMTok }' },
      )
      .optional(),
  }),
);

// Tested with .test(), not zod's .regex(): zod resets a pattern's lastIndex, and the workflow
// sandbox freezes shared modules' objects (src/workflows/preload.ts).
const HTTP_URL = /^https?:\/\/[^\s/]+/;
/** X10: the issue or merge request the run posts to (tokens are the worker's: GITHUB_TOKEN / GITLAB_TOKEN). */
const issueNumber = () =>
  z
    .number({ error: 'must be a whole number ≥ 1' })
    .int({ error: 'must be a whole number ≥ 1' })
    .min(1, { error: 'must be a whole number ≥ 1' })
    .max(MAX_ISSUE_NUMBER, { error: `must be at most ${MAX_ISSUE_NUMBER}` })
    .optional();
const oneOf = (a: string, b: string) => (v: Record<string, unknown>, ctx: z.core.$RefinementCtx) => {
  const given = [a, b].filter((k) => v[k] !== undefined);
  if (given.length !== 1) {
    ctx.addIssue({ code: 'custom', path: [], message: given.length ? `give ${a} or ${b}, not both` : `needs ${a}: N or ${b}: N`, input: undefined });
  }
};
export const NotificationsConfigSchema = lazySchema(() =>
  section({
    github: z
      .strictObject(
        {
          repo: z.string({ error: 'must be "owner/name"' }).refine((v) => GITHUB_REPO.test(v), { error: 'must be "owner/name"' }),
          issue: issueNumber(),
          pull: issueNumber(),
        },
        { error: 'must be a mapping { repo, issue | pull }' },
      )
      .superRefine(oneOf('issue', 'pull'))
      .optional(),
    gitlab: z
      .strictObject(
        {
          project: z
            .string({ error: 'must be "group/project" or a project id' })
            .refine((v) => GITLAB_PROJECT.test(v), { error: 'must be "group/project" or a project id' }),
          issue: issueNumber(),
          merge_request: issueNumber(),
          url: z
            .string({ error: 'must be an http(s) URL' })
            .max(2000)
            .refine((v) => HTTP_URL.test(v), { error: 'must be an http(s) URL, e.g. https://gitlab.example.com' })
            .optional(),
        },
        { error: 'must be a mapping { project, issue | merge_request, url? }' },
      )
      .superRefine(oneOf('issue', 'merge_request'))
      .optional(),
  }),
);

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
export type PlanningConfig = ReplannerConfig['planning'];
export type ReplanningConfig = ReplannerConfig['replanning'];
export type TaskReplanningConfig = ReplannerConfig['task_replanning'];
export type ExecutionConfig = ReplannerConfig['execution'];
export type BudgetConfig = ReplannerConfig['budget'];
export type NotificationsConfig = ReplannerConfig['notifications'];

export interface ConfigIssue {
  /** Dotted key path, e.g. `replanning.llm_decision.min_confidence_threshold` ('' = the root). */
  path: string;
  message: string;
}

/** A config that cannot be used. The message names the key path(s) and the reason. */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[] | string) {
    const list = typeof issues === 'string' ? [{ path: '', message: issues }] : issues;
    super(`invalid config: ${list.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`);
    this.name = 'ConfigError';
    this.issues = list;
  }
}

// ---------------------------------------------------------------------------------------------
// S2 / S3: the run options of a RunWorkflow input. Anyone who can reach Temporal can start a run
// with any payload, so the workflow checks them too: known keys only, every number bounded.

const bounded = (min: number, max: number, int = true) => {
  const n = z.number({ error: `must be a number between ${min} and ${max}` });
  return (int ? n.int({ error: `must be a whole number between ${min} and ${max}` }) : n)
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` })
    .optional();
};
const DAY_MS = BOUNDS.machineTimeoutSeconds * 1000;
const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Temporal duration (ms number, or "90 s" / "3 minutes" / "1h") in ms; undefined when unreadable. */
export function durationMs(v: number | string): number | undefined {
  if (typeof v === 'number') return v;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\s*$/i.exec(v);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const key = unit.startsWith('ms') || unit.startsWith('milli') ? 'ms' : unit[0]!;
  return Number(m[1]) * DURATION_UNITS_MS[key]!;
}

export const RunOptionsInputSchema = lazySchema(() =>
  z.strictObject(
    {
      maxParallelTasks: bounded(1, BOUNDS.parallelTasks),
      workerMaxSteps: bounded(1, 200),
      workerHeartbeatTimeoutMs: bounded(1000, 600_000),
      commandTimeoutMs: bounded(1, DAY_MS),
      llmMaxAttempts: bounded(1, 20),
      llmRetryInitialMs: bounded(1, 60_000),
      llmCallTimeout: z
        .union([z.number(), z.string()], { error: 'must be a duration (ms, or text like "3 minutes")' })
        .refine(
          (v) => {
            const ms = durationMs(v);
            return ms !== undefined && ms >= 1 && ms <= DAY_MS;
          },
          { error: 'must be a duration between 1 ms and 24 hours' },
        )
        .optional(),
      maxGraphRepairs: bounded(0, 10),
      continueAsNewAfterEvents: bounded(1, 40_000),
    },
    { error: 'must be a mapping (key: value)' },
  ),
);

/** S2/S3: checks a run's options (RunInput.options); throws ConfigError naming `options.<key>`. */
export function checkRunOptions(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  const r = RunOptionsInputSchema.safeParse(raw, { reportInput: true });
  if (r.success) return;
  throw new ConfigError(
    r.error.issues.flatMap((i): ConfigIssue[] =>
      i.code === 'unrecognized_keys'
        ? i.keys.map((k) => ({ path: `options.${k}`, message: 'unknown key' }))
        : describeIssue(i, false).map((d) => ({ ...d, path: d.path ? `options.${d.path}` : 'options' })),
    ),
  );
}

/** Parses (and defaults) a raw config object, e.g. parsed YAML. null/undefined → all defaults. */
export function parseConfig(raw: unknown): ReplannerConfig {
  const { value, prefix } = unwrapSeedPlanning(raw ?? {});
  const r = ReplannerConfigSchema.safeParse(value, { reportInput: true });
  if (r.success) return r.data;
  throw new ConfigError(r.error.issues.flatMap((i) => describeIssue(i, prefix)));
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

// ---------------------------------------------------------------------------------------------

/**
 * Seed 004 §12.1 nests `replanning` under `planning:`; accept that spelling too. `planning:` also
 * holds Replanner's own plan bounds (maxTasks), validated by PlanningConfigSchema.
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

function describeIssue(issue: z.core.$ZodIssue, seedPrefix: boolean): ConfigIssue[] {
  const base = issue.path.map(String);
  if (seedPrefix && base[0] === 'replanning') base.unshift('planning');
  const join = (p: string[]) => p.join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => {
      const hint = suggestKey(issue.path.map(String), k);
      return { path: join([...base, k]), message: `unknown key${hint ? ` (did you mean "${hint}"?)` : ''}` };
    });
  }
  let message = issue.message;
  if (issue.code === 'invalid_type' && message.startsWith('Invalid input')) message = `must be a ${issue.expected}`;
  if ('input' in issue && issue.input !== undefined) message += ` (got ${show(issue.input)})`;
  return [{ path: join(base), message }];
}

function suggestKey(parentPath: string[], key: string): string | undefined {
  let node: unknown = DEFAULT_CONFIG;
  for (const p of parentPath) node = isRecord(node) ? node[p] : undefined;
  // O3 / X10 / M1: keys that are all optional (absent from the defaults) are named here.
  const optionalKeys: Record<string, string[]> = {
    budget: ['maxTokens', 'maxCostUsd', 'model', 'prices'],
    llm: ['timeoutSeconds', 'maxReplyTokens'],
    notifications: ['github', 'gitlab'],
    'notifications.github': ['repo', 'issue', 'pull'],
    'notifications.gitlab': ['project', 'issue', 'merge_request', 'url'],
  };
  const keys = optionalKeys[parentPath.join('.')] ?? (isRecord(node) ? Object.keys(node) : undefined);
  if (!keys) return undefined;
  let best: { k: string; d: number } | undefined;
  for (const k of keys) {
    const d = editDistance(k.toLowerCase(), key.toLowerCase());
    if (!best || d < best.d) best = { k, d };
  }
  return best && best.d <= Math.max(2, Math.floor(key.length / 4)) ? best.k : undefined;
}

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return 'nothing';
  try {
    const s = JSON.stringify(v);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  } catch {
    // BigInt or a circular structure: name the kind rather than print '[object Object]'.
    return typeof v === 'bigint' ? `${v}n` : `a ${typeof v} that is not JSON`;
  }
}
