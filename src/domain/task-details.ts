// What a task workflow's "Current Details" show in the Temporal Web UI: the task, where its
// worker → judge loop is, the files it changed so far and the worker steps with their tool calls.
// Pure and bounded (the newest steps only; the UI's details limit is 20 KB).
import type { FileChange } from './file-changes';
import { DETAILS_MAX_BYTES } from './run/checklist';
import { clip, clipUtf8 } from './text';
import { FAILURE_LINE_CHARS, type WorkerStepReport } from './worker-steps';

/** One worker step as the details list it: iteration, step number, tool calls, final answer. */
export interface TaskStepLine {
  iteration: number;
  step: number;
  actions: string[];
  toolErrors: number;
  /** Why its first failed tool call failed (one bounded line). */
  failure?: string;
  summary?: string;
  /** The stuck detector ended the iteration at this step (its note). */
  stuck?: string;
}

export const TASK_DETAIL_STEPS = 30;
const MAX_ACTIONS_PER_STEP = 8;
const MAX_ACTION_CHARS = 160;

/** Appends a step report to the bounded list (the newest TASK_DETAIL_STEPS). */
export function addStepLine(lines: readonly TaskStepLine[], iteration: number, step: number, r: WorkerStepReport): TaskStepLine[] {
  const line: TaskStepLine = {
    iteration,
    step,
    actions: r.actions.slice(0, MAX_ACTIONS_PER_STEP).map((a) => clip(a, MAX_ACTION_CHARS)),
    toolErrors: r.toolErrors,
    ...(r.failure !== undefined ? { failure: clip(r.failure, FAILURE_LINE_CHARS) } : {}),
    ...(r.summary !== undefined ? { summary: r.summary.replace(/\s+/g, ' ').slice(0, 300) } : {}),
  };
  return [...lines, line].slice(-TASK_DETAIL_STEPS);
}

/** Marks the newest line (the step the detector stopped at) with the stuck note. */
export function markStuckLine(lines: readonly TaskStepLine[], note: string): TaskStepLine[] {
  const last = lines[lines.length - 1];
  return last ? [...lines.slice(0, -1), { ...last, stuck: clip(note, 300) }] : [...lines];
}

export interface TaskDetailsView {
  taskId: string;
  title: string;
  state: string;
  iteration: number;
  maxIterations: number;
  lastJudgeReason?: string;
  consultation?: string;
  /** The stuck detector's newest note, with the totals of the task. */
  stuck?: string;
  steps: readonly TaskStepLine[];
  /** Steps before the listed ones (dropped to keep the details small). */
  earlierSteps: number;
  /** The files the worker changed so far (addFileChanges), and how many more are not listed. */
  files?: readonly FileChange[];
  unlistedFiles?: number;
}

const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;

/** ` (1 write, 2 edits)`: how the worker changed the file (a write replaces it: its old lines are not counted). */
function fileHow(f: FileChange): string {
  const parts = [f.writes ? `${f.writes} write${f.writes > 1 ? 's' : ''}` : '', f.edits ? `${f.edits} edit${f.edits > 1 ? 's' : ''}` : ''];
  const how = parts.filter(Boolean).join(', ');
  return how ? ` (${how})` : '';
}

/** "1 failed: bubblewrap not found at …", the reason when the step reported one. */
export function failedNote(s: Pick<TaskStepLine, 'toolErrors' | 'failure'>): string {
  return `${s.toolErrors} failed${s.failure ? `: ${s.failure}` : ''}`;
}

/** The task's current details in Markdown. */
export function taskDetails(v: TaskDetailsView): string {
  const out = [
    `## Task ${v.taskId}: ${v.title.replace(/\s+/g, ' ').slice(0, 200)}`,
    '',
    `**State**: ${v.state} · iteration ${v.iteration} of at most ${v.maxIterations}`,
  ];
  if (v.lastJudgeReason) out.push('', `**Judge**: ${v.lastJudgeReason.replace(/\s+/g, ' ').slice(0, 500)}`);
  if (v.stuck) out.push('', `**Stuck**: ${v.stuck.replace(/\s+/g, ' ').slice(0, 500)}`);
  if (v.consultation) out.push('', `**Waiting for your answer**: ${v.consultation.replace(/\s+/g, ' ').slice(0, 500)}`);
  out.push('', '### Files changed');
  if (!v.files?.length && !v.unlistedFiles) out.push('_No file written or edited yet._');
  for (const f of v.files ?? []) out.push(`- ${code(f.path)} +${f.added} −${f.removed}${fileHow(f)}`);
  if (v.unlistedFiles) out.push(`_${v.unlistedFiles} more file(s) not listed._`);
  out.push('', '### Worker steps');
  if (v.earlierSteps > 0) out.push(`_${v.earlierSteps} earlier step(s) not shown._`);
  if (!v.steps.length) out.push('_No worker step yet._');
  for (const s of v.steps) {
    const calls = s.actions.length ? s.actions.map(code).join(', ') : 'no tool call';
    const errors = s.toolErrors ? ` (${failedNote(s)})` : '';
    out.push(`- iteration ${s.iteration}, step ${s.step}: ${calls}${errors}${s.summary !== undefined ? ` — answer: ${s.summary}` : ''}`);
    if (s.stuck) out.push(`  - ${s.stuck}`);
  }
  return clipUtf8(out.join('\n'), DETAILS_MAX_BYTES);
}
