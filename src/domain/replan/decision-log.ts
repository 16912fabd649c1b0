// Every replan decision is recorded (X9). The log lives in workflow state and in
// continueAsNew arguments, so records are compact: long strings are cut to ~2 KB, long lists to
// 20 items, and the log keeps the newest `maxRecords` records (older ones are counted as dropped).
import type { Phase, TaskRecord } from '../types';
import type { ReplanDecision } from './decision';
import type { PolicyOutcome } from './policy';
import { clipCounted } from '../text';

export type DecisionResult = 'success' | 'failure' | 'skipped' | 'pending';

export interface DecisionRecord {
  replan_id: string;
  phase: Phase;
  /** In execution: the task (action) whose outcome the decision was about. */
  task_id?: string;
  /** G4: a decision about the pull request's feedback (no task of the plan: it names none). */
  about?: 'pull_request_feedback';
  /** The LLM's decision (compacted). */
  llm_decision: Record<string, unknown>;
  confidence: number;
  executed: boolean;
  /** Why the system did not follow the LLM (override reason, 'very_low_confidence', 'user_declined', …). */
  override_reason?: string;
  /** ISO timestamp, passed in (workflow time). */
  timestamp: string;
  result: DecisionResult;
  duration_ms?: number;
  /** The whole plan before and after the replan (tasks with their states). */
  plan_before?: PlanSnapshot;
  plan_after?: PlanSnapshot;
  /** What the policy decided (PolicyOutcome.action) and the resolved replan, for reading the log. */
  outcome?: PolicyOutcome['action'];
  replan_type?: string;
  target_phase?: Phase;
  /** Warning or override message shown to the user. */
  message?: string;
}

/** One task of a recorded plan. */
export interface PlanTaskView {
  id: string;
  title: string;
  state: string;
  dependencies?: string[];
}

/** A plan as a decision record keeps it: the goal, every task with its state, and a note (e.g. why it failed). */
export interface PlanSnapshot {
  goal?: string;
  tasks: PlanTaskView[];
  /** Tasks left out because the plan was longer than MAX_SNAPSHOT_TASKS. */
  more?: number;
  note?: string;
}

/** Bounds of a snapshot: the plan itself is bounded by planning.maxTasks; replaced tasks come on top. */
export const MAX_SNAPSHOT_TASKS = 250;
const MAX_TITLE_CHARS = 120;
/** Only the newest records keep their plans; older ones keep the rest of the record (the log stays small). */
export const MAX_RECORDS_WITH_PLANS = 25;

/** The plan as a record keeps it (pure; titles and the goal cut short). */
export function planSnapshot(goal: string | undefined, tasks: readonly TaskRecord[], note?: string): PlanSnapshot {
  const s: PlanSnapshot = {
    tasks: tasks.slice(0, MAX_SNAPSHOT_TASKS).map((t) => ({
      id: clipCounted(t.id, MAX_TITLE_CHARS),
      title: clipCounted(t.title, MAX_TITLE_CHARS),
      state: t.state,
      ...(t.dependencies.length ? { dependencies: t.dependencies.slice(0, MAX_LIST_ITEMS).map((d) => clipCounted(d, MAX_TITLE_CHARS)) } : {}),
    })),
  };
  if (goal) s.goal = clipCounted(goal, 500);
  if (tasks.length > MAX_SNAPSHOT_TASKS) s.more = tasks.length - MAX_SNAPSHOT_TASKS;
  if (note) s.note = clipCounted(note, MAX_FIELD_CHARS);
  return s;
}

/** One line of a snapshot, for the console: `goal | a[DONE], b[READY] — note`. */
export function planLine(p: PlanSnapshot): string {
  const tasks = p.tasks.map((t) => `${t.id}[${t.state}]`).join(', ') + (p.more ? `, … ${p.more} more` : '');
  return [p.goal ? `goal: ${p.goal}` : '', tasks ? `tasks: ${tasks}` : '', p.note ?? ''].filter(Boolean).join(' | ') || '(no plan yet)';
}

export interface DecisionLog {
  records: DecisionRecord[];
  /** Sequence number of the next replan id. */
  nextSeq: number;
  /** How many old records were dropped to keep the log small. */
  dropped: number;
}

export const MAX_FIELD_CHARS = 2000;
export const MAX_LIST_ITEMS = 20;
export const DEFAULT_MAX_RECORDS = 200;

export function emptyDecisionLog(): DecisionLog {
  return { records: [], nextSeq: 1, dropped: 0 };
}

/** Deep copy with strings cut to `maxChars`, lists to MAX_LIST_ITEMS (plus a "… N more" item), depth ≤ 5. */
export function compactValue(value: unknown, maxChars = MAX_FIELD_CHARS, depth = 0): unknown {
  if (typeof value === 'string') return clipCounted(value, maxChars);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 5) return clipCounted(JSON.stringify(value) ?? '', maxChars);
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_LIST_ITEMS).map((v) => compactValue(v, maxChars, depth + 1));
    if (value.length > MAX_LIST_ITEMS) items.push(`… ${value.length - MAX_LIST_ITEMS} more`);
    return items;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = compactValue(v, maxChars, depth + 1);
  return out;
}

/** The decision compacted to roughly ≤ 8 KB of JSON (strings cut harder when needed). */
function compactDecision(d: ReplanDecision): Record<string, unknown> {
  for (const max of [MAX_FIELD_CHARS, 500, 120]) {
    const c = compactValue(d, max) as Record<string, unknown>;
    if (JSON.stringify(c).length <= 8192 || max === 120) return c;
  }
  return {};
}

export interface NewDecisionInput {
  phase: Phase;
  decision: ReplanDecision;
  outcome: PolicyOutcome;
  /** ISO string from workflow time. */
  timestamp: string;
  planBefore?: PlanSnapshot;
  /** In execution: the task the decision is about. */
  taskId?: string;
  /** A decision about the pull request's feedback (DecisionRecord.about). */
  about?: DecisionRecord['about'];
  /** Defaults to `replan-<seq>`. */
  replanId?: string;
}

/**
 * Appends the record of a decision and the policy's outcome. Executed (replan/clarify) → result
 * 'pending' until completeDecision; confirm → 'pending', not executed yet; none/ignore/override → 'skipped'.
 */
export function appendDecision(
  log: DecisionLog,
  input: NewDecisionInput,
  maxRecords = DEFAULT_MAX_RECORDS,
): { log: DecisionLog; record: DecisionRecord } {
  const o = input.outcome;
  const executed = o.action === 'replan' || o.action === 'clarify';
  const record: DecisionRecord = {
    replan_id: input.replanId ?? `replan-${log.nextSeq}`,
    phase: input.phase,
    ...(input.taskId !== undefined ? { task_id: clipCounted(input.taskId, 200) } : {}),
    ...(input.about !== undefined ? { about: input.about } : {}),
    llm_decision: compactDecision(input.decision),
    confidence: input.decision.confidence,
    executed,
    timestamp: input.timestamp,
    result: executed || o.action === 'confirm' ? 'pending' : 'skipped',
    outcome: o.action,
  };
  if (o.action === 'override' || o.action === 'ignore') record.override_reason = o.reason;
  if (o.action !== 'none') {
    record.replan_type = o.type;
    record.target_phase = o.targetPhase;
  }
  const message =
    o.action === 'override' || o.action === 'ignore' || o.action === 'confirm'
      ? o.message
      : o.action === 'replan' || o.action === 'clarify'
        ? o.warning
        : undefined;
  if (message) record.message = clipCounted(message, MAX_FIELD_CHARS);
  if (input.planBefore !== undefined) record.plan_before = input.planBefore;

  const records = withoutOldPlans([...log.records, record]);
  const drop = Math.max(0, records.length - Math.max(1, maxRecords));
  return {
    log: { records: records.slice(drop), nextSeq: log.nextSeq + 1, dropped: log.dropped + drop },
    record,
  };
}

/** Records older than the newest MAX_RECORDS_WITH_PLANS that carry plans lose them. */
function withoutOldPlans(records: DecisionRecord[]): DecisionRecord[] {
  let withPlans = 0;
  const out = [...records];
  for (let i = out.length - 1; i >= 0; i--) {
    const r = out[i]!;
    if (!r.plan_before && !r.plan_after) continue;
    withPlans += 1;
    if (withPlans > MAX_RECORDS_WITH_PLANS) {
      const { plan_before: _b, plan_after: _a, ...rest } = r;
      out[i] = rest;
    }
  }
  return out;
}

export interface CompletionInput {
  result: Exclude<DecisionResult, 'pending'>;
  durationMs?: number;
  planAfter?: PlanSnapshot;
  /** E.g. a user confirmed ('confirm' → executed) or declined ('user_declined'). */
  executed?: boolean;
  overrideReason?: string;
}

/** Completes a pending record (immutable). Unknown ids leave the log unchanged. */
export function completeDecision(log: DecisionLog, replanId: string, c: CompletionInput): DecisionLog {
  return {
    ...log,
    records: log.records.map((r) => {
      if (r.replan_id !== replanId) return r;
      const next: DecisionRecord = { ...r, result: c.result };
      if (c.executed !== undefined) next.executed = c.executed;
      if (c.durationMs !== undefined) next.duration_ms = Math.max(0, Math.round(c.durationMs));
      if (c.planAfter !== undefined) next.plan_after = c.planAfter;
      if (c.overrideReason !== undefined) next.override_reason = c.overrideReason;
      return next;
    }),
  };
}

/** The newest record (the latest decision, kept across pause and resume). */
export function latestDecision(log: DecisionLog): DecisionRecord | undefined {
  return log.records[log.records.length - 1];
}
