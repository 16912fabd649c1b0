// X11: the plan checklist comment (seed 004 §11.4), edited in place on every revision.
// Pure: no clock — pass `revisedAt` if a timestamp should be shown.
import { oneLine } from './text';
import { TaskState } from './types';

export interface ChecklistTask {
  id: string;
  title: string;
  state: TaskState;
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
}

export const CHECKLIST_HISTORY_SUMMARY = '📜 Previous Plan History';
const HISTORY_OPEN = `<details>\n<summary>${CHECKLIST_HISTORY_SUMMARY}</summary>`;

/** X11: title of the comment. */
export function checklistTitle(revision: number): string {
  return revision >= 1 ? `Execution Plan (Revised #${revision})` : 'Execution Plan';
}

/**
 * X11: done / total / percent of a plan. REPLACED_BY_REPLAN tasks are superseded by their
 * replacements and do not count; every other task (CANCELLED and BLOCKED included) counts
 * towards the total; only DONE counts as done. Percent is rounded; 0 tasks → 0%.
 */
export function checklistProgress(tasks: readonly Pick<ChecklistTask, 'state'>[]): { done: number; total: number; percent: number } {
  const counted = tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
  const done = counted.filter((t) => t.state === TaskState.DONE).length;
  const total = counted.length;
  return { done, total, percent: total === 0 ? 0 : Math.round((done * 100) / total) };
}

/** X11: e.g. "Progress: 3/5 (60%) complete · Plan Revisions: 2". */
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

function taskLine(t: ChecklistTask): string {
  const item = `**${oneLine(t.id)}**: ${oneLine(t.title)}`;
  if (t.state === TaskState.REPLACED_BY_REPLAN) return `- [ ] ~~${item}~~ — replaced by replan`;
  const box = t.state === TaskState.DONE ? '[x]' : '[ ]';
  return `- ${box} ${item}${STATE_NOTES[t.state] ?? ''}`;
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
 * X11: the checklist comment (seed 004 §11.4.2, §11.4.4, §11.4.5):
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
  if (input.previousPlans.length > 0) {
    out.push('', HISTORY_OPEN, '');
    input.previousPlans.forEach((plan, i) => out.push(historyEntry(plan, i), ''));
    out.push('</details>');
  }
  return out.join('\n');
}

/**
 * X11 / seed 004 §11.4.3: does a replan of this type keep the completed checks?
 * partial_replan, action_regeneration → yes (completed tasks stay checked); retry and
 * plan_revision (reflection adds actions to the same plan) → yes;
 * task_redecomposition, goal_revision, clarification_request (goal reconfirmation) and
 * full_replan (§11.4.1: a new checklist replaces the old) → no, a new checklist starts.
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
