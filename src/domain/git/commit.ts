// G1: one commit per task that ends DONE: its message (the task's title, the judge's summary, the
// trailers that find it again) and which of the working tree's changes are the task's. Pure.
import { clipCounted, oneLine } from '../text';
import { isRunRecordPath } from './branch';

export const RUN_TRAILER = 'Replanner-Run';
export const TASK_TRAILER = 'Replanner-Task';

const MAX_SUBJECT_CHARS = 120;
const MAX_BODY_CHARS = 4000;

/**
 * G1: the commit message: the title as its subject, the judge's summary as its body, then the
 * trailers `Replanner-Run` and `Replanner-Task` as the last paragraph (so `git log
 * --format=%(trailers:key=Replanner-Task)` reads them). Nothing in the summary can pass for a
 * trailer: it is a paragraph of its own, and a line of it that looks like one is indented.
 */
export function commitMessage(p: { title: string; summary?: string; runId: string; taskId: string }): string {
  const subject = clipCounted(oneLine(p.title), MAX_SUBJECT_CHARS) || `task ${p.taskId}`;
  const body = clipCounted((p.summary ?? '').replace(/\r/g, '').trim(), MAX_BODY_CHARS)
    .split('\n')
    .map((l) => (/^[A-Za-z0-9-]+:/.test(l) ? `  ${l}` : l))
    .join('\n');
  return [subject, body, `${RUN_TRAILER}: ${p.runId}\n${TASK_TRAILER}: ${p.taskId}`].filter(Boolean).join('\n\n') + '\n';
}

/**
 * G1: the paths a task's commit takes. Tasks run side by side in one workspace, so while another
 * task of the run still has work to commit (running, or done and waiting for its own commit) the
 * commit takes only the files this task's worker wrote or edited (`own`). With none, it takes
 * every change of the working tree (`changed`): also what commands changed, which no tool call
 * names. Never the run's own records.
 */
export function pathsToCommit(changed: readonly string[], own: readonly string[], othersBusy: boolean): string[] {
  const mine = new Set(own);
  return [...new Set(changed)].filter((p) => !isRunRecordPath(p) && (!othersBusy || mine.has(p)));
}
