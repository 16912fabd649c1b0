// The LLM's replan decision (X2): zod schemas per phase, parsing of raw replies, and the replan
// types and levels with their target phases. Pure (zod only): runs inside workflow sandboxes.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { PHASES, type Phase } from '../types';
import { itemToText } from '../text';

// ------------------------------------------------------------------------------------------------
// Replan types and levels

export const REPLAN_TYPES = [
  'clarification_request',
  'goal_revision',
  'task_redecomposition',
  'action_regeneration',
  'retry',
  'partial_replan',
  'full_replan',
  'plan_revision',
] as const;
export type ReplanType = (typeof REPLAN_TYPES)[number];

export const REPLAN_LEVELS = [1, 2, 3, 4, 5] as const;
/** 1 retry the action · 2 partial replan of the remaining actions · 3 regenerate the action sequence · 4 redecompose tasks · 5 re-understand the goal. */
export type ReplanLevel = (typeof REPLAN_LEVELS)[number];

/** The phase a level jumps back to (the run then goes forward again from there). */
export const PHASE_FOR_LEVEL: Readonly<Record<ReplanLevel, Phase>> = {
  1: 'execution', // retry the same action
  2: 'action_sequence', // replan the actions after the failure, completed ones kept
  3: 'action_sequence', // regenerate the whole action sequence
  4: 'task_decomposition',
  5: 'goal_understanding',
};

/** The canonical replan type of each level. */
export const TYPE_FOR_LEVEL: Readonly<Record<ReplanLevel, ReplanType>> = {
  1: 'retry',
  2: 'partial_replan',
  3: 'action_regeneration',
  4: 'task_redecomposition',
  5: 'goal_revision',
};

const LEVEL_FOR_TYPE: Readonly<Record<ReplanType, ReplanLevel>> = {
  clarification_request: 5,
  goal_revision: 5,
  task_redecomposition: 4,
  action_regeneration: 3,
  partial_replan: 2,
  retry: 1,
  // The two "generic" types: their level comes from the decision (see policy.resolveReplan);
  // these are the defaults. A full replan is for when the plan's fundamental assumptions no longer
  // hold (level 4: decompose the tasks again); a plan revision adds or changes actions after
  // reflection and goes back to execution.
  full_replan: 4,
  plan_revision: 2,
};

/** Default level of a replan type. */
export function levelForReplanType(type: ReplanType): ReplanLevel {
  return LEVEL_FOR_TYPE[type];
}

/** The replan type a phase asks for when the LLM names none (each phase's own kind of replan). */
export const DEFAULT_TYPE_FOR_PHASE: Readonly<Record<Phase, ReplanType>> = {
  goal_understanding: 'goal_revision',
  task_decomposition: 'task_redecomposition',
  action_sequence: 'action_regeneration',
  execution: 'partial_replan',
  reflection: 'plan_revision',
};

/**
 * Carry-over on the plan checklist: partial replans and action regeneration (levels 1–3) keep the
 * checks of completed work; task redecomposition and goal reconfirmation (4–5) start a new checklist.
 */
export function keepsCompletedWork(level: ReplanLevel): boolean {
  return level <= 3;
}

export function phaseIndex(phase: Phase): number {
  return PHASES.indexOf(phase);
}

// ------------------------------------------------------------------------------------------------
// Schemas

/** Lower-case, trimmed, spaces/hyphens → underscores: "Partial Replan" → "partial_replan". */
function normEnum(v: unknown): unknown {
  return typeof v === 'string'
    ? v
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_')
    : v;
}
const NONE_WORDS = new Set(['', 'none', 'null', 'n/a', 'na', 'no_replan']);

/** A list of text items; missing/null → []. Non-string items (objects) become compact JSON lines. */
const textList = lazySchema(() =>
  z.preprocess(
    (v) => (v === null || v === undefined ? [] : v),
    z
      .array(z.union([z.string(), z.number(), z.record(z.string(), z.unknown())]), {
        error: 'must be a list',
      })
      .transform((items) => items.map(itemToText)),
  ),
);
/** Optional text; null → undefined. */
const optText = lazySchema(() => z.preprocess((v) => (v === null ? undefined : v), z.string().optional()));
/** Optional enum, lenient about case/spacing; null/"none" → undefined. */
function optEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(
    (v) => {
      const n = normEnum(v);
      return n === null || (typeof n === 'string' && NONE_WORDS.has(n)) ? undefined : n;
    },
    z.enum(values, { error: `must be one of ${values.join(', ')}` }).optional(),
  );
}

export const BaseDecisionSchema = lazySchema(() =>
  z.object({
    replan_needed: z.boolean({ error: 'must be true or false' }),
    confidence: z
      .number({ error: 'must be a number between 0 and 1' })
      .min(0, { error: 'must be between 0 and 1' })
      .max(1, { error: 'must be between 0 and 1' }),
    reasoning: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string()),
    /** null when no replan is wanted ("none" is read as null). */
    replan_type: z.preprocess(
      (v) => {
        const n = normEnum(v);
        return n === undefined || (typeof n === 'string' && NONE_WORDS.has(n)) ? null : n;
      },
      z.enum(REPLAN_TYPES, { error: `must be one of ${REPLAN_TYPES.join(', ')} or none` }).nullable(),
    ),
    target_phase: optEnum(PHASES),
    replan_level: z.preprocess(
      (v) => (v === null ? undefined : v),
      z
        .number({ error: 'must be a whole number 1..5' })
        .int({ error: 'must be a whole number 1..5' })
        .min(1, { error: 'must be a whole number 1..5' })
        .max(5, { error: 'must be a whole number 1..5' })
        .transform((n) => n as ReplanLevel)
        .optional(),
    ),
    issues_found: textList,
    recommended_actions: textList,
    clarification_needed: z.preprocess((v) => (v === null || v === undefined ? false : v), z.boolean()),
    clarification_questions: textList,
  }),
);

const GoalExtras = { assumptions_to_make: textList };
const DecompositionExtras = {
  missing_steps: textList,
  recommended_granularity: optText,
  scope_adjustment: optText,
};
const ActionExtras = {
  unavailable_tools: textList,
  alternative_tools: textList,
  dependency_issues: textList,
  plan_adjustments: textList,
};
export const ERROR_CLASSIFICATIONS = ['transient', 'persistent', 'fatal'] as const;
const ExecutionExtras = {
  error_classification: optEnum(ERROR_CLASSIFICATIONS),
  recovery_strategy: optText,
  affected_actions: textList,
};
export const EVALUATION_RESULTS = ['success', 'partial_success', 'failure'] as const;
export const REVISION_SCOPES = ['minor', 'moderate', 'major'] as const;
const ReflectionExtras = {
  evaluation_result: optEnum(EVALUATION_RESULTS),
  achievement_rate: z.preprocess(
    (v) => (v === null ? undefined : v),
    z
      .number({ error: 'must be a number between 0 and 100' })
      .min(0, { error: 'must be between 0 and 100' })
      .max(100, { error: 'must be between 0 and 100' })
      .optional(),
  ),
  issues_identified: textList,
  additional_actions: textList,
  revision_scope: optEnum(REVISION_SCOPES),
};

export const GoalDecisionSchema = lazySchema(() => BaseDecisionSchema.extend(GoalExtras));
export const DecompositionDecisionSchema = lazySchema(() => BaseDecisionSchema.extend(DecompositionExtras));
export const ActionDecisionSchema = lazySchema(() => BaseDecisionSchema.extend(ActionExtras));
export const ExecutionDecisionSchema = lazySchema(() => BaseDecisionSchema.extend(ExecutionExtras));
export const ReflectionDecisionSchema = lazySchema(() => BaseDecisionSchema.extend(ReflectionExtras));

/** All extras optional: the shape every phase's decision fits into. */
const AnyDecisionSchema = lazySchema(() =>
  BaseDecisionSchema.extend({
    ...GoalExtras,
    ...DecompositionExtras,
    ...ActionExtras,
    ...ExecutionExtras,
    ...ReflectionExtras,
  }),
);

export type BaseDecision = z.output<typeof BaseDecisionSchema>;
/** A decision of any phase: the base fields plus whichever phase fields were present. */
export type ReplanDecision = BaseDecision & Partial<Omit<z.output<typeof AnyDecisionSchema>, keyof BaseDecision>>;

const SCHEMA_FOR_PHASE = {
  goal_understanding: GoalDecisionSchema,
  task_decomposition: DecompositionDecisionSchema,
  action_sequence: ActionDecisionSchema,
  execution: ExecutionDecisionSchema,
  reflection: ReflectionDecisionSchema,
} as const;

/**
 * The decision schema of a phase. Accepts the bare object or the wrapper
 * `{ "replan_decision": {...} }`; unknown fields are dropped; missing lists default to [].
 */
export function decisionSchemaFor<P extends Phase>(phase: P): z.ZodType<z.output<(typeof SCHEMA_FOR_PHASE)[P]>, unknown> {
  // Built once per phase: every replan decision parses with it, and the LLM request's JSON Schema
  // is derived from it once (the gateway caches by schema identity).
  let schema = phaseSchemas.get(phase);
  if (!schema) {
    schema = z.preprocess(unwrap, SCHEMA_FOR_PHASE[phase]);
    phaseSchemas.set(phase, schema);
  }
  return schema as z.ZodType<z.output<(typeof SCHEMA_FOR_PHASE)[P]>, unknown>;
}
const phaseSchemas = new Map<Phase, z.ZodType>();

function unwrap(v: unknown): unknown {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'replan_decision' in v) {
    const inner = v.replan_decision;
    if (typeof inner === 'object' && inner !== null) return inner;
  }
  return v;
}

// ------------------------------------------------------------------------------------------------
// Parsing a raw reply (a reply that cannot be parsed counts as "no replan", X13)

export type ParseDecisionResult = { ok: true; decision: ReplanDecision } | { ok: false; reason: string };

/** Validates an already-parsed JSON value against the phase's schema. */
export function validateDecision(phase: Phase, value: unknown): ParseDecisionResult {
  const r = decisionSchemaFor(phase).safeParse(value);
  if (r.success) return { ok: true, decision: r.data };
  const first = r.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, reason: `invalid replan decision: ${first}` };
}

/**
 * Try 1. the whole reply as JSON; 2. JSON inside a markdown code block (```json
 * blocks first, then any fenced block); 3. otherwise not ok — the caller treats that as
 * "no replan", logs the reason and goes on (use NO_REPLAN(reason)).
 */
export function parseDecision(phase: Phase, text: string): ParseDecisionResult {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'empty reply' };
  const whole = tryJson(trimmed);
  if (whole.ok) return validateDecision(phase, whole.value);

  const blocks = fencedBlocks(trimmed);
  if (blocks.length === 0) return { ok: false, reason: 'reply is neither JSON nor contains a markdown code block' };
  let lastReason = 'no code block holds valid JSON';
  for (const block of blocks) {
    const parsed = tryJson(block.body);
    if (!parsed.ok) continue;
    const v = validateDecision(phase, parsed.value);
    if (v.ok) return v;
    lastReason = v.reason;
  }
  return { ok: false, reason: lastReason };
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Fenced blocks in order, ```json (or ```JSON, ```jsonc) ones first. */
function fencedBlocks(text: string): { lang: string; body: string }[] {
  const out: { lang: string; body: string }[] = [];
  const re = /(```+|~~~+)[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)\n?[ \t]*\1/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push({ lang: (m[2] ?? '').toLowerCase(), body: (m[3] ?? '').trim() });
  }
  return [...out.filter((b) => b.lang.startsWith('json')), ...out.filter((b) => !b.lang.startsWith('json'))];
}

/** The decision used when none could be obtained or parsed: no replan, with the reason kept. */
export function NO_REPLAN(reason: string): ReplanDecision {
  return {
    replan_needed: false,
    confidence: 0,
    reasoning: reason,
    replan_type: null,
    issues_found: [],
    recommended_actions: [],
    clarification_needed: false,
    clarification_questions: [],
  };
}
