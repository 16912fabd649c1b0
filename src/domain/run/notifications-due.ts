// What a change of the run's state makes due on its issue or merge request (X10, X11): the
// notifications with their texts, and the checklist comment's text. Keyed so that nothing is
// posted twice however the states are grouped. Pure: src/workflows/run/notifications.ts compares
// the last published state with the current one; src/domain/notifications.ts says how to deliver.
import type { DecisionRecord, PlanSnapshot } from '../replan/decision-log';
import type { Question } from '../replan/questions';
import { clip, clipLine } from '../text';
import { TaskState } from '../types';
import { decisionName, replanTypeName } from '../words/decisions';
import { phaseName } from '../words/phases';
import { runChecklist } from './checklist';
import type { RunState } from './state';
import { replannerCommand } from '../printed-commands';

// ---------------------------------------------------------------- the checklist

const reasonOf = (r: DecisionRecord): string | undefined => {
  const x = r.llm_decision.reasoning;
  return typeof x === 'string' && x.trim() ? x : undefined;
};

/**
 * The checklist comment's text: the run's own checklist (the Web UI's, runChecklist: bounded to
 * 20 KB, well under GitHub's 65,536-character comment limit), or undefined while the run has no plan
 * yet (nothing to post).
 */
export function checklistText(s: RunState): string | undefined {
  return s.tasks.length === 0 ? undefined : runChecklist(s);
}

// ---------------------------------------------------------------- notifications

export type NotificationKind =
  'replan_decided' | 'replan_started' | 'replan_completed' | 'replan_failed' | 'replan_overridden' | 'clarification_needed';

export interface Notification {
  kind: NotificationKind;
  /** Unique within the run (e.g. `replan-3.decided`): the marker that finds it again on a retry. */
  key: string;
  /** The comment's Markdown (without the marker). */
  body: string;
}

export const NOTIFICATION_HEADINGS: Readonly<Record<NotificationKind, string>> = {
  replan_decided: '## 🔄 Plan Revision Decided by AI',
  replan_started: '## ▶️ Plan Revision Started',
  replan_completed: '## ✅ Plan Revision Completed',
  replan_failed: '## ❌ Plan Revision Failed',
  replan_overridden: '## ⛔ Plan Revision Overridden by a Limit',
  clarification_needed: '## ❓ Clarification Needed (AI Decision)',
};

const textList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []);
const bullets = (items: string[]) => (items.length ? items.slice(0, 20).map((x) => `- ${clipLine(x, 500)}`) : ['- none']);
// V8: the kinds of change and the phases in the README's words.
const typeName = replanTypeName;
const percent = (c: number) => `${Math.round(c * 100)}%`;

/** A replan was decided: "Plan Revision Decided by AI" with the phase, confidence, reasoning, issues found and recommended actions. */
export function replanDecidedMessage(r: DecisionRecord): string {
  const d = r.llm_decision;
  const issues = [...textList(d.issues_found), ...textList(d.issues_identified), ...textList(d.missing_steps)];
  return [
    NOTIFICATION_HEADINGS.replan_decided,
    '',
    `**Phase**: ${phaseName(r.phase)}`,
    `**Confidence**: ${percent(r.confidence)}`,
    `**Revision**: ${typeName(r.replan_type)}${r.target_phase ? ` (back to ${phaseName(r.target_phase)})` : ''} · ${decisionName(r.replan_id)}`,
    ...(r.message ? [`**Note**: ${clipLine(r.message, 500)}`] : []),
    '',
    '**Reasoning**:',
    clip(typeof d.reasoning === 'string' && d.reasoning.trim() ? d.reasoning.trim() : 'not given', 3000),
    '',
    '**Issues Found**:',
    ...bullets(issues),
    '',
    '**Recommended Actions**:',
    ...bullets([...textList(d.recommended_actions), ...textList(d.additional_actions)]),
    '',
    `*${r.timestamp}*`,
  ].join('\n');
}

/**
 * An answered question is no plan change: the comments its phase's rerun makes due (posted as
 * before, so the run's steps stay the same) say what happens in words.
 */
function answeredQuestionMessage(r: DecisionRecord, at: string, started: boolean): string {
  const phase = phaseName(r.target_phase ?? r.phase);
  return [
    started ? `## ▶️ Working With Your Answer` : `## ✅ Your Answer Is Taken In`,
    '',
    started
      ? `The ${phase} phase runs again with your answer (${decisionName(r.replan_id)}).`
      : `The ${phase} phase ran again with your answer (${decisionName(r.replan_id)}); the plan goes on from there.`,
    '',
    `*${at}*`,
  ].join('\n');
}

/** The replan under way (its phase runs again). */
export function replanStartedMessage(r: DecisionRecord, at: string): string {
  if (r.outcome === 'clarify') return answeredQuestionMessage(r, at, true);
  return [
    NOTIFICATION_HEADINGS.replan_started,
    '',
    `**Revision**: ${typeName(r.replan_type)} · ${decisionName(r.replan_id)}`,
    `**Decided in**: ${phaseName(r.phase)}`,
    ...(r.target_phase ? [`**Running again from**: ${phaseName(r.target_phase)}`] : []),
    '',
    `*${at}*`,
  ].join('\n');
}

function progressOf(p: PlanSnapshot | undefined): string | undefined {
  if (!p || p.tasks.length === 0) return undefined;
  const counted = p.tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
  return `${counted.filter((t) => t.state === TaskState.DONE).length}/${counted.length} tasks done`;
}

/** The replan's phase finished: the new plan stands. */
export function replanCompletedMessage(r: DecisionRecord, at: string): string {
  if (r.outcome === 'clarify') return answeredQuestionMessage(r, at, false);
  const after = r.plan_after;
  const progress = progressOf(after);
  return [
    NOTIFICATION_HEADINGS.replan_completed,
    '',
    `**Revision**: ${typeName(r.replan_type)} · ${decisionName(r.replan_id)}`,
    ...(r.duration_ms !== undefined ? [`**Duration**: ${(r.duration_ms / 1000).toFixed(1)} s`] : []),
    ...(after?.tasks.length ? [`**New plan**: ${after.tasks.length} task(s)${progress ? `, ${progress}` : ''}`] : []),
    ...(after?.note ? [`**Note**: ${clipLine(after.note, 500)}`] : []),
    '',
    `*${at}*`,
  ].join('\n');
}

/** The replan failed to execute; the plan before it was restored. */
export function replanFailedMessage(r: DecisionRecord, at: string): string {
  const why = r.plan_after?.note?.replace(/^failed: /, '') ?? r.override_reason ?? 'not known';
  return [
    NOTIFICATION_HEADINGS.replan_failed,
    '',
    `**Revision**: ${typeName(r.replan_type)} · ${decisionName(r.replan_id)}`,
    `**Reason**: ${clipLine(why, 1000)}`,
    '',
    'The plan before this revision was restored; the run asks the AI for alternatives and goes on.',
    '',
    `*${at}*`,
  ].join('\n');
}

/** The LLM wanted a replan, the limits (or loop detection) refused it. */
export function replanOverriddenMessage(r: DecisionRecord): string {
  return [
    NOTIFICATION_HEADINGS.replan_overridden,
    '',
    `**Phase**: ${phaseName(r.phase)}`,
    `**Confidence**: ${percent(r.confidence)}`,
    `**Wanted**: ${typeName(r.replan_type ?? (typeof r.llm_decision.replan_type === 'string' ? r.llm_decision.replan_type : undefined))} · ${decisionName(r.replan_id)}`,
    `**Why not**: ${clipLine(r.message ?? r.override_reason ?? 'a replan limit was reached', 1000)}`,
    '',
    '**Reasoning**:',
    clip(typeof r.llm_decision.reasoning === 'string' ? r.llm_decision.reasoning.trim() : 'not given', 3000),
    '',
    'The current plan continues.',
    '',
    `*${r.timestamp}*`,
  ].join('\n');
}

/**
 * "Clarification Needed (AI Decision)" — the questions, why, and the assumptions
 * used if nobody answers. How to answer: a reply `/answer q1 …` when the run reads its thread
 * (`repliesRead`; runs from before that answer through the CLI only), or the CLI.
 */
export function clarificationMessage(runId: string, qs: readonly Question[], context: string | undefined, repliesRead = false): string {
  const assumptions = [...new Set(qs.flatMap((q) => q.assumptions))];
  const waits = qs.find((q) => q.timeoutMinutes !== null)?.timeoutMinutes;
  return [
    NOTIFICATION_HEADINGS.clarification_needed,
    '',
    "I've analyzed the task and need some clarification to proceed effectively:",
    '',
    '**Questions**:',
    ...qs.map((q, i) => `${i + 1}. ${clipLine(q.text, 1000)} (${q.id})`),
    '',
    '**Context**:',
    clip(context?.trim() || 'not given', 3000),
    '',
    '**If no response**:',
    waits !== undefined && waits !== null
      ? `I will proceed with the following assumptions after ${waits} minute(s):`
      : 'I will wait for an answer; these are the assumptions I would make:',
    ...bullets(assumptions),
    '',
    repliesRead
      ? `Please answer with a reply \`/answer ${qs[0]?.id ?? 'q1'} <your answer>\` (one per question; write access needed), or \`${replannerCommand('answer', runId, qs[0]?.id ?? 'q1', '"<your answer>"')}\`.`
      : `Please answer with \`${replannerCommand('answer', runId, qs[0]?.id ?? 'q1', '"<your answer>"')}\` (one per question; replies to this comment are not read).`,
  ].join('\n');
}

/**
 * The notifications due between two states of a run (the last one published and the current
 * one): a decision to replan, a replan started, completed or failed, an override by a limit, and
 * questions to the user. Keyed by replan id and question id, so nothing is posted twice however
 * the states are grouped.
 */
export function notificationsBetween(prev: RunState, next: RunState, at: string, opts: { repliesRead?: boolean } = {}): Notification[] {
  const out: Notification[] = [];
  const before = new Map(prev.log.records.map((r) => [r.replan_id, r]));
  for (const r of next.log.records) {
    const old = before.get(r.replan_id);
    if (!old && r.replan_id && (r.outcome === 'replan' || r.outcome === 'confirm')) {
      out.push({ kind: 'replan_decided', key: `${r.replan_id}.decided`, body: replanDecidedMessage(r) });
    }
    if (!old && r.outcome === 'override') {
      out.push({ kind: 'replan_overridden', key: `${r.replan_id}.overridden`, body: replanOverriddenMessage(r) });
    }
    const wasOpen = !old || old.result === 'pending';
    // A clarification nobody answered completes as 'no_response_assumed': no revision ran, nothing to report.
    if (wasOpen && r.executed && r.result === 'success' && r.override_reason === undefined) {
      out.push({ kind: 'replan_completed', key: `${r.replan_id}.completed`, body: replanCompletedMessage(r, at) });
    }
    if (wasOpen && r.result === 'failure') {
      out.push({ kind: 'replan_failed', key: `${r.replan_id}.failed`, body: replanFailedMessage(r, at) });
    }
  }
  const started = next.inProgress;
  if (started && started.replanId !== prev.inProgress?.replanId) {
    const r = next.log.records.find((x) => x.replan_id === started.replanId);
    if (r) out.push({ kind: 'replan_started', key: `${r.replan_id}.started`, body: replanStartedMessage(r, at) });
  }
  const asked = new Set(prev.questions.map((q) => q.id));
  const fresh = next.questions.filter((q) => !asked.has(q.id) && q.kind !== 'budget');
  const byReplan = new Map<string, Question[]>();
  for (const q of fresh) byReplan.set(q.replanId, [...(byReplan.get(q.replanId) ?? []), q]);
  for (const [replanId, qs] of byReplan) {
    const r = next.log.records.find((x) => x.replan_id === replanId);
    const body = clarificationMessage(next.runId, qs, r ? reasonOf(r) : undefined, opts.repliesRead);
    out.push({ kind: 'clarification_needed', key: `${qs[0]!.id}.asked`, body });
  }
  // Order as they happened: decided → started → questions → completed / failed / overridden.
  const order: NotificationKind[] = [
    'replan_failed',
    'replan_decided',
    'replan_overridden',
    'replan_started',
    'clarification_needed',
    'replan_completed',
  ];
  return out.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
}
