// G3 / G4: what the run writes on its pull request, in the README's words: the title (from the
// goal), the body (the plan checklist, a summary of the decision log, `Refs #N` or, when the
// config asks, `Closes #N`), and the replies that say what a fix round changed. Pure.
import { runChecklist } from '../run/checklist';
import type { RunState } from '../run/state';
import { clipCounted, clipLine } from '../text';
import { TaskState } from '../types';
import { decisionFactsOf, decisionName, decisionSays } from '../words/decisions';
import { phaseName } from '../words/phases';
import { isFeedbackRecord } from './run-feedback';
import type { Answering } from './run-state';

/** The body stays well below GitHub's 65,536 characters (the marker and a header go on top). */
const BODY_MAX_BYTES = 55_000;
const SHOWN_DECISIONS = 10;

/** G3: the title: the goal's objective, else the instruction's first line. */
export function pullRequestTitleOf(s: Pick<RunState, 'goal' | 'instruction'>): string {
  const text = s.goal?.main_objective?.trim() || s.instruction.split('\n').find((l) => l.trim()) || 'Replanner run';
  return clipLine(text, 120);
}

/** G3: the issue the run came from, as the body names it: `Refs #12` (`Closes #12` when the config says so; GitLab merge request: `!45`). */
export function issueReference(n: { kind: 'issue' | 'pull' | 'merge_request'; number: number } | undefined, closes: boolean): string | undefined {
  if (!n) return undefined;
  if (n.kind === 'merge_request') return `Refs !${n.number}`;
  return `${closes && n.kind === 'issue' ? 'Closes' : 'Refs'} #${n.number}`;
}

/** The reasoning a decision record kept (its LLM decision is compacted: any value). */
export const reasoningOf = (d: Record<string, unknown>): string => (typeof d.reasoning === 'string' ? d.reasoning : '');

/** The body's summary of the decision log: the decisions that changed something, newest last, one line each. */
function decisionsPart(s: RunState): string[] {
  const acted = s.log.records.filter((r) => r.outcome !== undefined && r.outcome !== 'none');
  if (!acted.length) return [];
  const lines = acted.slice(-SHOWN_DECISIONS).map((r) => {
    const about = isFeedbackRecord(r, s) ? ' (feedback on this pull request)' : r.task_id ? ` (task ${r.task_id})` : '';
    const why = clipLine(r.message || reasoningOf(r.llm_decision), 200);
    return `- **${decisionName(r.replan_id)}** after ${phaseName(r.phase)}${about}: ${decisionSays(decisionFactsOf(r))}${why ? ` — ${why}` : ''}`;
  });
  const more = acted.length > SHOWN_DECISIONS ? [`- … ${acted.length - SHOWN_DECISIONS} earlier`] : [];
  return ['### Changes of plan', '', ...more, ...lines];
}

/** G3: the body: the checklist (as the issue's comment shows it), the changes of plan, the issue reference. */
export function pullRequestBodyOf(s: RunState, reference: string | undefined): string {
  const lead = `This pull request is the work of Replanner run \`${s.runId}\`: one commit per task that ended done. The run keeps this description current and answers failed checks, reviews that request changes and \`/replanner <what to do>\` comments from people who may write here.`;
  const tail = [...decisionsPart(s), ...(reference ? ['', reference] : [])].join('\n');
  const checklist = runChecklist(s, { maxBytes: BODY_MAX_BYTES - tail.length - lead.length - 100 });
  return [lead, checklist, tail].filter(Boolean).join('\n\n');
}

/** The commits a fix round made, as a reply lists them. */
export interface NewCommit {
  sha: string;
  taskId: string;
  title: string;
}

/**
 * G4: the reply after a fix round: what changed (the new commits on the branch), or that nothing
 * did and why; it names the feedback it answers.
 */
export function fixReply(p: { answering: Answering; commits: NewCommit[]; blocked: { taskId: string; reason: string }[]; branch: string }): string {
  const about = p.answering.triggers.map((t) => t.label).join(', ');
  const lines: string[] = [];
  if (p.commits.length) {
    lines.push(`In answer to ${about}, the run pushed ${p.commits.length} commit${p.commits.length === 1 ? '' : 's'} to \`${p.branch}\`:`, '');
    for (const c of p.commits) lines.push(`- ${c.sha.slice(0, 12)} ${clipLine(c.title, 120)} (task ${c.taskId})`);
  } else {
    lines.push(`The run worked on ${about} but changed no file.`);
  }
  for (const b of p.blocked) lines.push(`- task ${b.taskId} could not be finished: ${clipLine(b.reason, 300)}`);
  return lines.join('\n');
}

/** G4: the reply when the run decided that the feedback needs no change. */
export function noChangeReply(about: string, reasoning: string): string {
  return `The run looked at ${about} and changed nothing: ${clipCounted(reasoning.trim() || 'no reason given', 1000)}`;
}

/**
 * G4: the reply when a limit stops the run from acting on feedback (replan limits, a loop, the
 * budget): it asks instead of trying again.
 */
export function askInsteadReply(about: string, why: string): string {
  return [
    `The run cannot act on ${about}: ${clipCounted(why.trim(), 1000)}`,
    '',
    'It will not try again by itself. Please fix this by hand, or raise the limit in the run’s configuration and reply `/replanner <what to do>`.',
  ].join('\n');
}

/** G4: the tasks a fix round added (not in the plan before it) and their commits. */
export function fixRoundResult(s: RunState, a: Answering): { commits: NewCommit[]; blocked: { taskId: string; reason: string }[] } {
  const before = new Set(a.tasksBefore);
  const fresh = s.tasks.filter((t) => !before.has(t.id));
  const commits = fresh.flatMap((t) => {
    const sha = s.git?.commits[t.id];
    return sha ? [{ sha, taskId: t.id, title: t.title }] : [];
  });
  const blocked = fresh.filter((t) => t.state === TaskState.BLOCKED).map((t) => ({ taskId: t.id, reason: t.summary ?? '' }));
  return { commits, blocked };
}
