// The sections of the config file (replanning, task re-decomposition, the sandbox, plan size, LLM
// requests, the budget), each with its defaults (src/domain/config/index.ts assembles them into the
// whole config).
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { MAX_BUDGET_TOKENS, MAX_BUDGET_USD } from '../budget';
import { BOUNDS, count, flag, nonNegative, perType, positive, prob, section } from './fields';

export const ON_REPLAN_FAILURE = ['continue', 'abort'] as const;
export type OnReplanFailure = (typeof ON_REPLAN_FAILURE)[number];

export const ReplanningConfigSchema = lazySchema(() =>
  section({
    enabled: flag(true),
    /** A replan that cannot run and for which escalation found no way forward: go on with assumptions, or stop the run. */
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

/** Task re-decomposition when a task's judge asks for a replan (the task's own `replanning` block). */
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
    // A run may only narrow the worker's sandbox (anyone who can reach Temporal can start a run).
    /** Network for commands: absent = the worker's setting; true is granted only where the worker allows network. */
    network: z.boolean({ error: 'must be true or false' }).optional(),
    /** Only `true` (the default): whether commands are sandboxed is the worker's setting. */
    sandbox: z
      .boolean({ error: 'must be true or false' })
      .refine((v) => v, { error: NO_SANDBOX_REFUSED })
      .optional(),
  }),
);

/** Plan size. A decomposition or re-decomposition over maxTasks goes back to the planner once, then fails. */
export const PlanningConfigSchema = lazySchema(() =>
  section({
    maxTasks: count(30, 1, BOUNDS.maxTasks),
  }),
);

/** LLM requests. */
export const LLM_TIMEOUT_MAX_SECONDS = 3600;
/** A progress limit (src/domain/llm-timeouts.ts): seconds, 1 to a day. */
const limitSeconds = () =>
  z
    .number({ error: `must be a number of seconds between 1 and ${BOUNDS.machineTimeoutSeconds}` })
    .min(1, { error: `must be a number of seconds between 1 and ${BOUNDS.machineTimeoutSeconds}` })
    .max(BOUNDS.machineTimeoutSeconds, { error: `must be a number of seconds between 1 and ${BOUNDS.machineTimeoutSeconds}` })
    .optional();
export const LLM_MIN_REPLY_TOKENS = 64;
export const LLM_MAX_REPLY_TOKENS = 1_000_000;
export const LlmConfigSchema = lazySchema(() =>
  section({
    /**
     * The total cap of every LLM request of the run (absent: the worker's REPLANNER_LLM_TIMEOUT_MS,
     * unset: none). The limits below watch progress; this one bounds the whole request.
     */
    timeoutSeconds: z
      .number({ error: `must be a number of seconds between 1 and ${LLM_TIMEOUT_MAX_SECONDS}` })
      .min(1, { error: `must be a number of seconds between 1 and ${LLM_TIMEOUT_MAX_SECONDS}` })
      .max(LLM_TIMEOUT_MAX_SECONDS, { error: `must be a number of seconds between 1 and ${LLM_TIMEOUT_MAX_SECONDS}` })
      .optional(),
    /** The wait for a connection (absent: the worker's setting, 10 s). Past it: an outage. */
    connectTimeoutSeconds: limitSeconds(),
    /** The wait for the first token of a short prompt (absent: the worker's setting, 300 s); longer prompts add their reading time. */
    firstTokenTimeoutSeconds: limitSeconds(),
    /** The slowest prompt reading speed the first-token wait allows for, in tokens/s (absent: the worker's setting, 8). */
    readTokensPerSecond: z
      .number({ error: 'must be a number of tokens per second between 0.1 and 100000' })
      .min(0.1, { error: 'must be a number of tokens per second between 0.1 and 100000' })
      .max(100_000, { error: 'must be a number of tokens per second between 0.1 and 100000' })
      .optional(),
    /** The longest gap between two tokens of a reply (absent: the worker's setting, 60 s). */
    stallTimeoutSeconds: limitSeconds(),
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

/** The run's budget. No maxTokens and no maxCostUsd: no budget. */
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
