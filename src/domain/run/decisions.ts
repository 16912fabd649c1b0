// X5 / X9 / X13: the run's replan decisions and counters: every decision enters the log here, a
// replan is counted when it is carried out, the replan under way is started and ended, and what
// the user said and the alternatives already asked for are kept for later prompts.
import {
  appendDecision,
  completeDecision,
  recordReplan,
  type CompletionInput,
  type DecisionRecord,
  type NewDecisionInput,
  type ReplanType,
} from '../replan';
import type { Phase } from '../types';
import type { ReplanInProgress, RunState } from './state';

/** X9: one decision, whatever route it came by, enters the log here. */
export function recordDecision(s: RunState, input: NewDecisionInput): { state: RunState; record: DecisionRecord } {
  const r = appendDecision(s.log, input);
  return { state: { ...s, log: r.log }, record: r.record };
}

export function completeReplan(s: RunState, replanId: string, c: CompletionInput): RunState {
  return { ...s, log: completeDecision(s.log, replanId, c) };
}

/** A confirmed decision (X7) now runs: executed, still pending until its phase finishes. */
export function markExecuted(s: RunState, replanId: string): RunState {
  return { ...s, log: { ...s.log, records: s.log.records.map((r) => (r.replan_id === replanId ? { ...r, executed: true } : r)) } };
}

/** X5: a replan (or a clarification) is counted when it is carried out. */
export function countReplan(s: RunState, type: ReplanType, triggerKey: string, phase: Phase): RunState {
  return { ...s, counters: recordReplan(s.counters, type, triggerKey, phase) };
}

export function startReplan(s: RunState, p: ReplanInProgress): RunState {
  return { ...s, inProgress: p };
}

export function endReplan(s: RunState): RunState {
  const next = { ...s };
  delete next.inProgress;
  return next;
}

export function addNotes(s: RunState, notes: string[]): RunState {
  return { ...s, notes: [...s.notes, ...notes] };
}

export function markAlternativesAsked(s: RunState, key: string): RunState {
  return { ...s, alternativesAsked: [...s.alternativesAsked, key] };
}
