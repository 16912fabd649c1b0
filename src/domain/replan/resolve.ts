// What an LLM replan decision asks for: whether it wants a replan at all, its type, level and
// target phase (resolved from what it names), and the key of its trigger for loop detection, with
// the triggers that already looped (the next decision's prompt warns about them).
import type { ReplannerConfig } from '../config';
import { normalizeForKey } from '../text';
import type { Phase } from '../types';
import {
  DEFAULT_TYPE_FOR_PHASE,
  PHASE_FOR_LEVEL,
  TYPE_FOR_LEVEL,
  keepsCompletedWork,
  levelForReplanType,
  phaseIndex,
  type ReplanDecision,
  type ReplanLevel,
  type ReplanType,
} from './decision';
import type { ReplanCounters } from './limits';

export interface ResolvedReplan {
  /** The replan type asked for (after defaults and clamping). */
  type: ReplanType;
  /** The counter and limit it is charged to (a full replan counts as the type of its level). */
  countedAs: ReplanType;
  level: ReplanLevel;
  /** The phase the run jumps back to. */
  targetPhase: Phase;
  /** Whether completed work and its checklist checks are kept (levels 1–3) or a new checklist starts (4–5). */
  keepsCompletedWork: boolean;
  /** Loop-detection key of this trigger. */
  triggerKey: string;
  /** Set when the decision's own type/level/target was adjusted, saying why. */
  note?: string;
}

/** The LLM asks the user something (explicit type, or the flag with at least one question). */
export function wantsClarification(d: ReplanDecision): boolean {
  return d.replan_type === 'clarification_request' || (d.clarification_needed && d.clarification_questions.length > 0);
}

export function wantsReplan(d: ReplanDecision): boolean {
  return d.replan_needed || wantsClarification(d);
}

const TYPE_FOR_TARGET: Readonly<Record<Phase, ReplanType>> = {
  goal_understanding: 'goal_revision',
  task_decomposition: 'task_redecomposition',
  action_sequence: 'action_regeneration',
  execution: 'retry',
  reflection: 'plan_revision',
};
const LEVEL_FOR_TARGET: Readonly<Record<Phase, ReplanLevel>> = {
  goal_understanding: 5,
  task_decomposition: 4,
  action_sequence: 3,
  execution: 2,
  reflection: 2,
};
const LEVEL_FOR_SCOPE = { minor: 2, moderate: 3, major: 4 } as const;

/**
 * Type, level and target phase of a decision.
 * - Clarification wins when asked for. Otherwise the named type, else the type of the named level,
 *   else of the named target phase, else the phase's own default.
 * - Specific types fix their level and target (the type is the decision's most telling field; an
 *   LLM may well pair partial_replan with task_decomposition). The generic full_replan and
 *   plan_revision take the decision's replan_level, else its target_phase, else (plan_revision)
 *   its revision_scope minor/moderate/major → 2/3/4, else their default level. A full replan is at
 *   least level 3.
 * - A replan never jumps *forward*: a target after the current phase becomes the phase's default.
 */
export function resolveReplan(phase: Phase, d: ReplanDecision): ResolvedReplan {
  let type: ReplanType;
  if (wantsClarification(d)) type = 'clarification_request';
  else if (d.replan_type) type = d.replan_type;
  else if (d.replan_level) type = TYPE_FOR_LEVEL[d.replan_level];
  else if (d.target_phase) type = TYPE_FOR_TARGET[d.target_phase];
  else type = DEFAULT_TYPE_FOR_PHASE[phase];

  let level = levelOf(type, d);
  let note: string | undefined;
  if (phaseIndex(PHASE_FOR_LEVEL[level]) > phaseIndex(phase)) {
    const fallback = DEFAULT_TYPE_FOR_PHASE[phase];
    note = `${type} (level ${level}) would jump forward from ${phase}; using ${fallback} instead`;
    type = fallback;
    level = levelOf(type, d);
  }
  const countedAs = type === 'full_replan' ? TYPE_FOR_LEVEL[level] : type;
  const resolved: ResolvedReplan = {
    type,
    countedAs,
    level,
    targetPhase: PHASE_FOR_LEVEL[level],
    keepsCompletedWork: keepsCompletedWork(level),
    triggerKey: keyOf(phase, type, d),
  };
  if (note) resolved.note = note;
  return resolved;
}

function levelOf(type: ReplanType, d: ReplanDecision): ReplanLevel {
  if (type === 'full_replan') {
    const l = d.replan_level ?? (d.target_phase ? LEVEL_FOR_TARGET[d.target_phase] : levelForReplanType(type));
    return l < 3 ? 3 : l;
  }
  if (type === 'plan_revision') {
    if (d.replan_level) return d.replan_level;
    if (d.target_phase) return LEVEL_FOR_TARGET[d.target_phase];
    if (d.revision_scope) return LEVEL_FOR_SCOPE[d.revision_scope];
  }
  return levelForReplanType(type);
}

// ------------------------------------------------------------------------------------------------
// Trigger keys for loop detection

/** The first stated problem of a decision (what "triggered" it). */
function firstIssue(d: ReplanDecision): string {
  const lists = [
    d.issues_found,
    d.issues_identified,
    d.missing_steps,
    d.unavailable_tools,
    d.dependency_issues,
    d.affected_actions,
    d.clarification_questions,
  ];
  for (const l of lists) {
    const first = l?.find((s) => s.trim() !== '');
    if (first) return first;
  }
  return d.reasoning;
}

/**
 * A stable key of "the same trigger": phase + resolved replan type + the first issue,
 * normalised (case, punctuation, numbers folded) so rephrasings like "Error at line 12" and
 * "error at line 13." match.
 */
function keyOf(phase: Phase, type: ReplanType, d: ReplanDecision): string {
  return `${phase}|${type}|${normalizeForKey(firstIssue(d))}`;
}

/** A trigger key as people read it: "execution / retry: \"the first issue\"". */
export function describeTrigger(key: string): string {
  const [phase, type, issue] = key.split('|', 3);
  return `${phase} / ${type}${issue ? `: "${issue}"` : ''}`;
}

/** A trigger that already caused `count` replans. */
export interface LoopingTrigger {
  key: string;
  count: number;
}

/**
 * The triggers that already reached same_trigger_max_count (sorted by key), which the next
 * replan-decision prompt names so the LLM tries a different approach (src/llm/prompts/replan-feedback.ts).
 * None while loop detection is off.
 */
export function loopingTriggers(counters: ReplanCounters, config: ReplannerConfig): LoopingTrigger[] {
  const g = config.replanning.global;
  if (!g.infinite_loop_detection) return [];
  return Object.entries(counters.byTrigger)
    .filter(([, n]) => n >= g.same_trigger_max_count)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, count]) => ({ key, count }));
}
