// The run's plan checklist (V1, X11), built from its RunState. One source for every place a person
// sees the plan: the run workflow's current details in the Web UI, the run's memo (shown with no
// worker running) and the checklist comment on the run's issue or merge request. Pure.
import { carriesOverChecks, renderChecklist, renderUnderRevision, type ChecklistInput } from '../checklist';
import { TaskState } from '../types';
import { clipCounted, clipUtf8, oneLine, utf8Bytes } from '../text';
import { replanTypeName } from '../words/decisions';
import { phaseName } from '../words/phases';
import type { Goal, TaskRecord } from '../types';

/** The checklist's revisions so far (earlier plans are folded away under the current one), kept in RunState (bounded). */
export interface ChecklistHistory {
  /** Plan revisions so far (n of "Execution Plan (Revised #n)"). */
  revision: number;
  /** Why the current plan was revised (the deciding LLM's reasoning, short). */
  reason?: string;
  /** The replan type of the current revision (its machine name, e.g. partial_replan). */
  type?: string;
  /** Workflow time of the current revision. */
  at?: string;
  /** Earlier checklists (rendered, without their own history), oldest first, at most MAX_PREVIOUS_PLANS. */
  previousPlans: string[];
  /** Earlier checklists dropped to keep the history small. */
  dropped: number;
  /** A revision that starts a new checklist (task redecomposition, goal reconfirmation) waits for its new plan. */
  awaitingPlan?: boolean;
}

export const MAX_PREVIOUS_PLANS = 5;
const MAX_PREVIOUS_PLAN_CHARS = 3000;
const MAX_REASON_CHARS = 300;
const MAX_TITLE_CHARS = 120;
/** The Web UI's limit for a workflow's details (static details: 20 KB); the checklist stays below it. */
export const DETAILS_MAX_BYTES = 20_000;
/** The Web UI's limit for a workflow's static summary (200 bytes). */
export const SUMMARY_MAX_BYTES = 200;

/** What of the run its checklist is made from (RunState has it). */
export interface ChecklistSource {
  tasks: readonly TaskRecord[];
  checklist?: ChecklistHistory;
}

export const emptyChecklistHistory = (): ChecklistHistory => ({ revision: 0, previousPlans: [], dropped: 0 });

/** The run's static summary (one line, the list view) and static details (the instruction), clipped to the UI's limits. */
export function runStaticMetadata(instruction: string, instructionFile?: string): { staticSummary: string; staticDetails: string } {
  const line = oneLine(instruction);
  const file = instructionFile ? `\n\n_The whole instruction is in ${instructionFile}._` : '';
  const head = '**Instruction**:\n\n';
  return {
    staticSummary: clipUtf8(`replanner run: ${line}`, SUMMARY_MAX_BYTES),
    staticDetails: `${head}${clipUtf8(instruction.trim(), DETAILS_MAX_BYTES - utf8Bytes(head) - utf8Bytes(file))}${file}`,
  };
}

const STOPPED: readonly TaskState[] = [TaskState.BLOCKED, TaskState.CANCELLED];

/** The checklist input of a run's current plan. */
function checklistInput(s: ChecklistSource): ChecklistInput {
  const h = s.checklist ?? emptyChecklistHistory();
  // A new checklist is being made (the planner runs): the old tasks are in the history, none here.
  const tasks = h.awaitingPlan
    ? []
    : s.tasks.map((t) => ({
        id: t.id,
        title: clipCounted(t.title, MAX_TITLE_CHARS),
        state: t.state,
        // A blocked or cancelled task says why on its line.
        ...(STOPPED.includes(t.state) && t.summary ? { reason: t.summary } : {}),
      }));
  return {
    revision: h.revision,
    ...(h.reason ? { reason: h.type ? `${h.reason} (${replanTypeName(h.type)})` : h.reason } : {}),
    tasks,
    previousPlans: h.previousPlans,
    replanCount: h.revision,
    ...(h.at ? { revisedAt: h.at } : {}),
  };
}

/** What the comment adds to the run's checklist (src/domain/run/tracker-comment.ts). */
export interface ChecklistExtras {
  /** Blocks under the plan (pending questions and how to answer, deliveries that failed). */
  notes?: readonly string[];
  /** Blocks kept in the history section after the earlier plans. */
  history?: readonly string[];
  /** The text's bound in UTF-8 bytes (default: the Web UI's DETAILS_MAX_BYTES). */
  maxBytes?: number;
}

/** The banner of a plan under revision (a new checklist is being made). */
function revisionBanner(h: ChecklistHistory): string {
  const what = h.type ? ` (${replanTypeName(h.type)})` : '';
  const why = h.reason ? `: ${h.reason}` : '';
  return `> 🔄 **Under revision #${h.revision}**${what}${why}. This plan stands until the new one is made.`;
}

/**
 * The run's checklist in Markdown (revision number and reason, progress, earlier plans folded away, a progress line), bounded to DETAILS_MAX_BYTES:
 * the oldest earlier plans go first, then the plan list is cut. While a revision makes a new
 * checklist, the last real plan is shown marked as under revision (never an empty 0/0 plan).
 */
export function runChecklist(s: ChecklistSource, extras: ChecklistExtras = {}): string {
  const input = checklistInput(s);
  const h = s.checklist ?? emptyChecklistHistory();
  const revising = h.awaitingPlan && h.previousPlans.length > 0;
  let previous = revising ? h.previousPlans.slice(0, -1) : [...input.previousPlans];
  let dropped = h.dropped;
  const more = { ...(extras.notes ? { notes: extras.notes } : {}), ...(extras.history ? { extraHistory: extras.history } : {}) };
  for (;;) {
    let text = revising
      ? renderUnderRevision({ lastPlan: h.previousPlans.at(-1)!, banner: revisionBanner(h), earlierPlans: previous, ...more })
      : renderChecklist({ ...input, previousPlans: previous, ...more });
    if (h.awaitingPlan && !revising) text = text.replace('_No tasks._', '_The new plan is being made…_');
    if (dropped > 0) text = `${text}\n\n_${dropped} earlier plan(s) not shown._`;
    const max = extras.maxBytes ?? DETAILS_MAX_BYTES;
    if (utf8Bytes(text) <= max) return text;
    if (!previous.length) return clipUtf8(text, max);
    previous = previous.slice(1);
    dropped += 1;
  }
}

/**
 * What the run's current details show in the Web UI: what it waits for from a person (`lead`,
 * first: the question and how to answer it, or the pause and how to resume), the goal, where the
 * run is, and the checklist.
 */
export function runDetails(s: ChecklistSource & { phase: string; goal?: Goal }, status: string, lead = ''): string {
  const head = [...(lead ? [lead] : []), `**Status**: ${status} · phase ${phaseName(s.phase)}`];
  if (s.goal) head.push(`**Goal**: ${clipCounted(s.goal.main_objective.replace(/\s+/g, ' '), 500)}`);
  const text = `${head.join('\n\n')}\n\n${runChecklist(s)}`;
  return clipUtf8(text, DETAILS_MAX_BYTES);
}

/**
 * A replan is carried out. The checklist gets its next revision; the one
 * before goes into the history. Partial replan and action regeneration (and retry, plan revision)
 * keep the completed checks (the jump keeps DONE tasks); task redecomposition and goal
 * reconfirmation start a new checklist (awaitingPlan until the new decomposition). A replan before
 * any plan exists (e.g. a clarification after goal understanding) revises nothing.
 */
export function reviseChecklist(s: ChecklistSource, r: { type: string; keepsChecks?: boolean; reason?: string; at?: string }): ChecklistHistory {
  const h = s.checklist ?? emptyChecklistHistory();
  if (!s.tasks.length || h.awaitingPlan) return h;
  const current = renderChecklist({ ...checklistInput(s), previousPlans: [] });
  const plans = [...h.previousPlans, clipCounted(current, MAX_PREVIOUS_PLAN_CHARS)];
  const over = Math.max(0, plans.length - MAX_PREVIOUS_PLANS);
  const next: ChecklistHistory = {
    revision: h.revision + 1,
    type: r.type,
    previousPlans: plans.slice(over),
    dropped: h.dropped + over,
  };
  if (r.reason) next.reason = clipCounted(oneLine(r.reason), MAX_REASON_CHARS);
  if (r.at) next.at = r.at;
  // The jump's own rule where known (a generic type's level decides), else the type's (which types keep completed checks is listed above).
  if (!(r.keepsChecks ?? carriesOverChecks(r.type))) next.awaitingPlan = true;
  return next;
}

/** The new plan of a revision that started a new checklist has arrived. */
export function planArrived(h: ChecklistHistory | undefined): ChecklistHistory | undefined {
  if (!h?.awaitingPlan) return h;
  const next = { ...h };
  delete next.awaitingPlan;
  return next;
}

/** How often a checklist change alone (a task checked off) may rewrite the run's memo. */
export const CHECKLIST_MEMO_INTERVAL_MS = 5_000;

/**
 * Whether a changed checklist is written to the memo now. Each write is a history event
 * carrying the text, and during execution the checklist changes at every task transition: a
 * checklist-only change is written at most every CHECKLIST_MEMO_INTERVAL_MS (the Web UI's current
 * details, answered by a worker, show every change at once). Phase, status, decision and question
 * changes write the whole memo, checklist included, at once; so do the run's end and continue-as-new.
 * With no worker, the memo may lag the last task transitions of the last few seconds.
 */
export function checklistMemoDue(p: { changed: boolean; sinceLastMs: number; final: boolean }): boolean {
  return p.changed && (p.final || p.sinceLastMs >= CHECKLIST_MEMO_INTERVAL_MS);
}
