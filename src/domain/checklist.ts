// The plan checklist comment (X11), one comment edited in place on every revision: the revision
// number and reason, progress, completed tasks kept checked where the replan keeps them, earlier
// plans folded away. Pure: no clock — pass `revisedAt` if a timestamp should be shown.
import { clipLine, oneLine } from './text';
import { TaskState } from './types';

export interface ChecklistTask {
  id: string;
  title: string;
  state: TaskState;
  /** Why a blocked or cancelled task stopped (its summary), shown on its line. */
  reason?: string;
}

export interface ChecklistInput {
  /** 0 = the original plan ("Execution Plan"); n ≥ 1 = "Execution Plan (Revised #n)". */
  revision: number;
  /** Why the plan was revised (shown from revision 1 on). */
  reason?: string;
  /** The current plan's tasks, in display order. */
  tasks: readonly ChecklistTask[];
  /** Earlier rendered checklists (renderChecklist output), oldest first; kept in a <details> block. */
  previousPlans: readonly string[];
  /** Plan revisions so far (the "Plan Revisions: n" counter). */
  replanCount: number;
  /** Done/total of the plan before this revision; derived from the last previous plan when absent. */
  previousProgress?: { done: number; total: number };
  /** Optional timestamp text (workflow time), shown under the title. */
  revisedAt?: string;
  /** Markdown blocks shown under the progress line (the issue's own sections: questions, deliveries). */
  notes?: readonly string[];
  /** Markdown blocks kept in the history section after the earlier plans (e.g. notifications not posted). */
  extraHistory?: readonly string[];
}

export const CHECKLIST_HISTORY_SUMMARY = '📜 Previous Plan History';
const HISTORY_OPEN = `<details>\n<summary>${CHECKLIST_HISTORY_SUMMARY}</summary>`;

/** Title of the comment. */
export function checklistTitle(revision: number): string {
  return revision >= 1 ? `Execution Plan (Revised #${revision})` : 'Execution Plan';
}

/**
 * Done / total / percent of a plan. REPLACED_BY_REPLAN tasks are superseded by their
 * replacements and do not count; every other task (CANCELLED and BLOCKED included) counts
 * towards the total; only DONE counts as done. Percent is rounded; 0 tasks → 0%.
 */
export function checklistProgress(tasks: readonly Pick<ChecklistTask, 'state'>[]): { done: number; total: number; percent: number } {
  const counted = tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
  const done = counted.filter((t) => t.state === TaskState.DONE).length;
  const total = counted.length;
  return { done, total, percent: total === 0 ? 0 : Math.round((done * 100) / total) };
}

/** The progress line, e.g. "Progress: 3/5 (60%) complete · Plan Revisions: 2". */
export function progressLine(done: number, total: number, replanCount: number): string {
  const percent = total === 0 ? 0 : Math.round((done * 100) / total);
  return `Progress: ${done}/${total} (${percent}%) complete · Plan Revisions: ${replanCount}`;
}

const STATE_NOTES: Partial<Record<TaskState, string>> = {
  [TaskState.RUNNING]: ' — ⏳ in progress',
  [TaskState.NEEDS_CONTINUATION]: ' — 🔁 continuing',
  [TaskState.BLOCKED]: ' — ⛔ blocked',
  [TaskState.CANCELLED]: ' — ✖ cancelled',
};

/** A blocked task's own work failed (its reason as the execution phase words it), rather than waiting on another. */
const FAILED_REASON = /^(task failed|re-decomposition failed|re-decomposition refused)\b/i;
const MAX_REASON_LINE = 200;

/**
 * How a task that stopped reads, with its one-line reason: "❌ task failed: …" (its own work
 * failed), "⛔ blocked by a" (waits on a task that did not finish), "⛔ blocked: …" (the judge's
 * reason), "✖ cancelled: …".
 */
function stateNote(t: ChecklistTask): string {
  const why = t.reason?.trim() ? clipLine(t.reason, MAX_REASON_LINE) : undefined;
  if (!why || (t.state !== TaskState.BLOCKED && t.state !== TaskState.CANCELLED)) return STATE_NOTES[t.state] ?? '';
  if (t.state === TaskState.CANCELLED) return ` — ✖ cancelled: ${why}`;
  if (FAILED_REASON.test(why)) return ` — ❌ ${why}`;
  return /^blocked by /i.test(why) ? ` — ⛔ ${why}` : ` — ⛔ blocked: ${why}`;
}

function taskLine(t: ChecklistTask): string {
  const item = `**${oneLine(t.id)}**: ${oneLine(t.title)}`;
  if (t.state === TaskState.REPLACED_BY_REPLAN) return `- [ ] ~~${item}~~ — replaced in a plan change`;
  const box = t.state === TaskState.DONE ? '[x]' : '[ ]';
  return `- ${box} ${item}${stateNote(t)}`;
}

/** Remove a rendered checklist's own history block (its content is kept separately). */
function stripHistory(plan: string): string {
  const start = plan.indexOf(HISTORY_OPEN);
  if (start < 0) return plan;
  const end = plan.lastIndexOf('</details>');
  const tail = end > start ? plan.slice(end + '</details>'.length) : '';
  return (plan.slice(0, start) + tail).trimEnd();
}

/** Done/total of a rendered checklist, from its own (non-history) checkbox lines. */
export function progressOfRenderedChecklist(plan: string): { done: number; total: number } {
  let done = 0;
  let total = 0;
  for (const line of stripHistory(plan).split('\n')) {
    const m = /^- \[( |x)\] (~~)?/.exec(line);
    if (!m || m[2]) continue;
    total++;
    if (m[1] === 'x') done++;
  }
  return { done, total };
}

function historyEntry(plan: string, index: number): string {
  const lines = stripHistory(plan).trim().split('\n');
  let label = `Plan ${index + 1}`;
  const m = /^#{1,6} .*Execution Plan(?: \(Revised #(\d+)\))?/.exec(lines[0] ?? '');
  if (m) {
    label = m[1] ? `Revision #${m[1]}` : 'Original Plan';
    lines.shift();
  }
  const body = lines
    .map((l) => (/^#{1,5} /.test(l) ? `#${l}` : l))
    .join('\n')
    .trim();
  return `### ${label}\n\n${body}`;
}

/**
 * The checklist comment:
 *
 * ```
 * ## 📋 Execution Plan (Revised #2)
 *
 * **Revision Reason**: …
 *
 * **Previous Progress**: 2/4
 *
 * ### New Plan:
 * - [x] **task_1**: …
 * - [ ] **task_3**: …
 *
 * Progress: 3/5 (60%) complete · Plan Revisions: 2
 *
 * <details>
 * <summary>📜 Previous Plan History</summary>
 * …earlier plans, oldest first…
 * </details>
 * ```
 *
 * Revision 0 has the title "Execution Plan" and a "### Tasks:" list. Which checks are
 * kept across a revision is decided by the task states passed in (see carriesOverChecks).
 */
export function renderChecklist(input: ChecklistInput): string {
  const revision = Math.max(0, Math.floor(input.revision));
  const out: string[] = [`## 📋 ${checklistTitle(revision)}`, ''];
  if (input.revisedAt) out.push(`_${revision >= 1 ? `Revision #${revision}` : 'Created'} at ${oneLine(input.revisedAt)}_`, '');
  if (revision >= 1) {
    out.push(`**Revision Reason**: ${input.reason ? oneLine(input.reason) : 'not given'}`, '');
    const last = input.previousPlans[input.previousPlans.length - 1];
    const prev = input.previousProgress ?? (last !== undefined ? progressOfRenderedChecklist(last) : undefined);
    if (prev) out.push(`**Previous Progress**: ${prev.done}/${prev.total}`, '');
  }
  out.push(revision >= 1 ? '### New Plan:' : '### Tasks:');
  if (input.tasks.length === 0) out.push('_No tasks._');
  for (const t of input.tasks) out.push(taskLine(t));
  out.push('');
  const p = checklistProgress(input.tasks);
  out.push(progressLine(p.done, p.total, input.replanCount));
  return [out.join('\n'), ...tail(input.notes, input.previousPlans, input.extraHistory)].join('\n');
}

/** The notes under the plan, then the history block (earlier plans, oldest first, then the extra entries). */
function tail(notes: readonly string[] = [], plans: readonly string[], extra: readonly string[] = []): string[] {
  const out = notes.flatMap((n) => ['', n]);
  if (plans.length === 0 && extra.length === 0) return out;
  out.push('', HISTORY_OPEN, '');
  plans.forEach((plan, i) => out.push(historyEntry(plan, i), ''));
  extra.forEach((x) => out.push(x, ''));
  out.push('</details>');
  return out;
}

/**
 * A revision that starts a new checklist while its new plan is being made: never an empty
 * plan on the thread. The last real plan (`lastPlan`, rendered) stays, marked as under revision
 * (`banner`), its own earlier plans in the history block.
 */
export function renderUnderRevision(p: {
  lastPlan: string;
  banner: string;
  earlierPlans: readonly string[];
  notes?: readonly string[];
  extraHistory?: readonly string[];
}): string {
  const lines = stripHistory(p.lastPlan).trimEnd().split('\n');
  const head = /^#{1,6} /.test(lines[0] ?? '') ? [lines.shift()!, ''] : [];
  while (lines[0] === '') lines.shift();
  return [[...head, p.banner, '', ...lines].join('\n'), ...tail(p.notes, p.earlierPlans, p.extraHistory)].join('\n');
}

/**
 * Does a replan of this type keep the completed checks?
 * partial_replan, action_regeneration → yes (completed tasks stay checked); retry and
 * plan_revision (reflection adds actions to the same plan) → yes;
 * task_redecomposition, goal_revision, clarification_request (goal reconfirmation) and
 * full_replan (a new checklist replaces the old) → no, a new checklist starts.
 * Unknown types → no (start fresh; the old plan stays visible in the history block).
 */
export function carriesOverChecks(replanType: string): boolean {
  switch (replanType) {
    case 'partial_replan':
    case 'action_regeneration':
    case 'retry':
    case 'plan_revision':
      return true;
    default:
      return false;
  }
}
