// What the system does with an LLM replan decision: the overrides that refuse it (X6), the
// confidence bands and clarification questions (what the decision asks for is resolved in
// ./resolve). Pure and deterministic: same input → same outcome, no clock, no randomness; runs
// inside workflow sandboxes.
//
// ORDER OF CHECKS (the first that applies decides):
//   1. not wanted            replan_needed false and no clarification asked      → none
//   2. disabled              replanning.enabled false (config or REPLANNING_ENABLED) → override 'disabled'
//   3. limits: can this replan still run? The type's limit, then the global one → override
//                            'phase_limit' | 'global_limit'  (escalate: tell the LLM, ask for
//                            alternatives, then the user — except for a decision below
//                            user_confirmation_threshold, which step 4 would ignore anyway)
//   4. confidence:
//        < user_confirmation_threshold (0.3)            → ignore (keep the plan, log, notify user)
//        < min_confidence_threshold (0.5), i.e. 0.3–0.5:
//            clarification request                      → clarify (asking the user *is* the check)
//            require_user_confirmation_on_low_confidence → confirm (ask the user), unless step 5
//                                                         would refuse it anyway: users are never
//                                                         asked to confirm a replan that cannot run
//            flag off                                   → override 'low_confidence' (below the
//                                                         minimum confidence a replan never runs)
//        A user's "yes" (input.userConfirmed) skips this step on re-evaluation.
//   5. loop detection: the same trigger already caused same_trigger_max_count replans
//                            → override 'loop_detected' (the LLM is told to try another approach)
//   6. bands: ≥ 0.8 → replan at once; [min, 0.8) → replan with a warning
//      (clarification requests → clarify, with the same warning rule).
// Boundaries: exactly 0.8 is "at once", exactly the min threshold (0.5) replans with a warning,
// exactly 0.3 asks for confirmation; a limit is reached when used == max.
import type { ReplannerConfig } from '../config';
import { clipCounted } from '../text';
import type { Phase } from '../types';
import type { ReplanDecision } from './decision';
import { LIMIT_KEY, globalLimit, limitFor, type ReplanCounters } from './limits';
import { describeTrigger, resolveReplan, wantsReplan, type ResolvedReplan } from './resolve';
import { replanTypeName } from '../words/decisions';
import { phaseName, withPhaseNames } from '../words/phases';

/** At or above this confidence a replan runs at once, without a warning (a fixed band, not a setting). */
export const HIGH_CONFIDENCE = 0.8;

// ------------------------------------------------------------------------------------------------
// The outcome

export type OverrideReason = 'phase_limit' | 'global_limit' | 'low_confidence' | 'loop_detected' | 'disabled';

export interface LimitInfo {
  /** Config key path of the limit, e.g. `replanning.execution.max_partial_replans`. */
  key: string;
  used: number;
  max: number;
}

export type PolicyOutcome =
  | { action: 'none'; reason: string }
  | (ResolvedReplan & {
      action: 'replan';
      confidence: number;
      band: 'immediate' | 'warning' | 'user_confirmed';
      warning?: string;
    })
  | (ResolvedReplan & {
      action: 'clarify';
      confidence: number;
      questions: string[];
      /** What the run assumes if nobody answers. */
      assumptions: string[];
      /** Continue on the assumptions after timeoutMinutes without an answer. */
      autoAssume: boolean;
      timeoutMinutes: number;
      warning?: string;
    })
  | (ResolvedReplan & { action: 'confirm'; confidence: number; message: string })
  | (ResolvedReplan & {
      action: 'ignore';
      confidence: number;
      reason: 'very_low_confidence';
      message: string;
      notifyUser: true;
    })
  | (ResolvedReplan & {
      action: 'override';
      confidence: number;
      reason: OverrideReason;
      message: string;
      /** Limits and loops escalate (tell the LLM, ask for alternatives, then the user). */
      escalate: boolean;
      limit?: LimitInfo;
    });

export interface PolicyInput {
  phase: Phase;
  decision: ReplanDecision;
  counters: ReplanCounters;
  config: ReplannerConfig;
  /** Defaults to the decision's own key (resolveReplan: phase, type and first issue, normalised). */
  triggerKey?: string;
  /** The user confirmed this decision after a 'confirm' outcome: the low-confidence step is skipped. */
  userConfirmed?: boolean;
}

const pct = (c: number) => `${Math.round(c * 100)}%`;
const num = (c: number) => String(Math.round(c * 100) / 100);

/** Decide what to do with the LLM's decision. See ORDER OF CHECKS at the top of this file. */
export function evaluateReplanDecision(input: PolicyInput): PolicyOutcome {
  const { phase, decision: d, counters, config } = input;
  const replanning = config.replanning;
  const thresholds = replanning.llm_decision;
  const c = d.confidence;

  // 1. not wanted
  if (!wantsReplan(d)) return { action: 'none', reason: d.reasoning || 'the LLM sees no need to replan' };

  const resolved = resolveReplan(phase, d);
  if (input.triggerKey) resolved.triggerKey = input.triggerKey;
  const base = { ...resolved, confidence: c };
  // V8: the change in words (the machine names stay in the record's fields).
  const what = `to ${replanTypeName(resolved.type)} after the ${phaseName(phase)} phase (back to ${phaseName(resolved.targetPhase)})`;
  const refuse = (reason: OverrideReason, escalate: boolean, message: string, limit?: LimitInfo): PolicyOutcome => ({
    ...base,
    action: 'override',
    reason,
    escalate,
    ...(limit ? { limit } : {}),
    message,
  });

  // 2. disabled
  if (!replanning.enabled) {
    return refuse('disabled', false, `Replan not executed: replanning is disabled (replanning.enabled: false). The AI proposed ${what}.`);
  }

  // 3. limits: the type's own, then the global one
  const escalate = c >= thresholds.user_confirmation_threshold;
  const max = limitFor(resolved.countedAs, config);
  const used = counters.byType[resolved.countedAs] ?? 0;
  if (max !== null && used >= max) {
    const key = `replanning.${LIMIT_KEY[resolved.countedAs] ?? ''}`;
    const message = `Plan change refused: the limit for "${replanTypeName(resolved.countedAs)}" is reached (${used}/${max}, ${key}). The AI proposed ${what}.`;
    return refuse('phase_limit', escalate, message, { key, used, max });
  }
  const gmax = globalLimit(config);
  if (counters.total >= gmax) {
    const key = 'replanning.global.max_total_replans';
    const message = `Plan change refused: this run has used all of its plan changes and questions (${counters.total}/${gmax}, ${key}). The AI proposed ${what}.`;
    return refuse('global_limit', escalate, message, { key, used: counters.total, max: gmax });
  }

  // 4. confidence below the min threshold
  const loop = loopCheck(input, resolved);
  const clarification = resolved.type === 'clarification_request';
  if (c < thresholds.user_confirmation_threshold) {
    return {
      ...base,
      action: 'ignore',
      reason: 'very_low_confidence',
      notifyUser: true,
      message: `Plan kept: the AI's confidence ${pct(c)} is below ${num(thresholds.user_confirmation_threshold)}, too unsure to change it. The AI proposed ${what}.`,
    };
  }
  const belowMin = c < thresholds.min_confidence_threshold && !input.userConfirmed;
  if (belowMin && !clarification) {
    if (!thresholds.require_user_confirmation_on_low_confidence) {
      const below = `confidence ${pct(c)} is below min_confidence_threshold ${num(thresholds.min_confidence_threshold)}`;
      return refuse('low_confidence', false, `Plan kept: ${below} and user confirmation is off. The AI proposed ${what}.`);
    }
    if (!loop) {
      return {
        ...base,
        action: 'confirm',
        message: `The AI proposes ${what} with low confidence (${pct(c)}). Reason: ${clipCounted(d.reasoning || '(none given)', 500)} Confirm to change the plan, or decline to keep it.`,
      };
    }
  }

  // 5. loop
  if (loop) return { ...base, ...loop };

  // 6. bands
  const warning =
    c >= HIGH_CONFIDENCE
      ? undefined
      : belowMin
        ? `Asking the user with low confidence ${pct(c)} (below ${num(thresholds.min_confidence_threshold)}).`
        : `Replanning with moderate confidence ${pct(c)} (below ${num(HIGH_CONFIDENCE)}).`;
  if (clarification) {
    const goalUnderstanding = replanning.goal_understanding;
    return {
      ...base,
      action: 'clarify',
      questions: clarificationQuestions(d),
      assumptions: d.assumptions_to_make ?? [],
      autoAssume: goalUnderstanding.auto_assume_on_no_response,
      timeoutMinutes: goalUnderstanding.auto_assume_timeout_minutes,
      ...(warning ? { warning } : {}),
    };
  }
  if (input.userConfirmed && c < thresholds.min_confidence_threshold) {
    return { ...base, action: 'replan', band: 'user_confirmed' };
  }
  return warning ? { ...base, action: 'replan', band: 'warning', warning } : { ...base, action: 'replan', band: 'immediate' };
}

/** A reply that could not be parsed counts as "no replan"; any other decision goes through the policy. */
export function decisionOutcome(input: PolicyInput & { parseError?: string }): PolicyOutcome {
  return input.parseError ? { action: 'none', reason: `unparseable reply: ${input.parseError}` } : evaluateReplanDecision(input);
}

function loopCheck(
  input: PolicyInput,
  resolved: ResolvedReplan,
): { action: 'override'; reason: 'loop_detected'; escalate: true; message: string; limit: LimitInfo } | undefined {
  const g = input.config.replanning.global;
  if (!g.infinite_loop_detection) return undefined;
  const n = input.counters.byTrigger[resolved.triggerKey] ?? 0;
  if (n < g.same_trigger_max_count) return undefined;
  return {
    action: 'override',
    reason: 'loop_detected',
    escalate: true,
    limit: { key: 'replanning.global.same_trigger_max_count', used: n, max: g.same_trigger_max_count },
    message: `Plan change refused as a loop: the same reason (${withPhaseNames(describeTrigger(resolved.triggerKey))}) has already caused ${n} plan changes (same_trigger_max_count ${g.same_trigger_max_count}). Try a different approach instead of repeating this change.`,
  };
}

/** The questions to ask; if the LLM gave none, one built from its issues or reasoning. */
function clarificationQuestions(d: ReplanDecision): string[] {
  const qs = d.clarification_questions.filter((q) => q.trim() !== '');
  if (qs.length) return qs;
  const about = d.issues_found[0] ?? d.reasoning;
  return [about ? `Could you clarify the following? ${clipCounted(about, 500)}` : 'Could you clarify the goal of this task?'];
}
