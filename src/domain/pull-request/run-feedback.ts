// G4: how feedback on the run's pull request goes through the replanning loop. The triggers of one
// read become one decision at the execution phase: its context carries their text verbatim
// (bounded), and a decision that wants a change adds tasks: feedback on a pull request never
// re-plans what was done and pushed (the branch only grows), so whatever replan the model names,
// it runs as a plan revision whose recommended actions are the new tasks. The first issue names
// the feedback, so the same check failing again is the same trigger to the loop detection (X6).
import { wantsReplan, type ReplanDecision } from '../replan';
import type { ReplanContext } from '../replan/prompt-context';
import type { Jump } from '../run/plan';
import type { RunState } from '../run/state';
import { clipCounted, clipLine } from '../text';
import { TaskState } from '../types';
import { MAX_TRIGGER_TEXT_CHARS, type PullRequestTrigger } from './feedback';

/** "pull request #<n>" / "merge request !<n>". */
export function pullRequestName(service: 'github' | 'gitlab', n: number): string {
  return service === 'github' ? `pull request #${n}` : `merge request !${n}`;
}

/** G4: the feedback of one read as the prompt shows it: each trigger with who or what it came from, verbatim, bounded. */
export function feedbackText(triggers: readonly PullRequestTrigger[]): string {
  const parts = triggers.map((t) => {
    switch (t.kind) {
      case 'check_failed':
        return `A check failed on the head ${t.headSha.slice(0, 12)}:\n${t.text}`;
      case 'changes_requested':
        return `@${t.author} requested changes in a review:\n${t.text}`;
      case 'command':
        return `@${t.author} asked the run (/replanner):\n${t.text}`;
    }
  });
  return clipCounted(parts.join('\n\n---\n\n'), MAX_TRIGGER_TEXT_CHARS);
}

/** X6: what the loop detection compares: the feedback's kind and source, not its wording. */
export function feedbackIssue(t: PullRequestTrigger): string {
  switch (t.kind) {
    case 'check_failed':
      return `pull request check ${clipLine(t.name, 80)} failed`;
    case 'changes_requested':
      return `pull request review by ${t.author} requests changes`;
    case 'command':
      return `pull request request by ${t.author}`;
  }
}

/**
 * The task id the model is shown for the pull request's feedback (the prompt's "executed action").
 * Records of it say `about: 'pull_request_feedback'` and name no task: a plan may have a task
 * called "review" too. Records from before that carry this id as their task.
 */
export const FEEDBACK_TASK_ID = 'review';

/** A decision about the pull request's feedback (a record from before `about` existed: its pseudo task, when the plan has no such task). */
export function isFeedbackRecord(r: { about?: string; task_id?: string }, s: Pick<RunState, 'tasks'>): boolean {
  return r.about === 'pull_request_feedback' || (r.task_id === FEEDBACK_TASK_ID && !s.tasks.some((t) => t.id === FEEDBACK_TASK_ID));
}

/** G4: the execution-phase context of a decision about feedback (the plan's progress as it stands). */
export function feedbackContext(s: RunState, triggers: readonly PullRequestTrigger[], source: string): ReplanContext {
  const active = s.tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
  const done = active.filter((t) => t.state === TaskState.DONE).length;
  return {
    phase: 'execution',
    executed: { taskId: FEEDBACK_TASK_ID, title: `feedback on ${source}`, state: 'FEEDBACK', summary: clipLine(feedbackIssue(triggers[0]!), 200) },
    progress: { completed: done, total: active.length, errorCount: 0, consecutiveErrors: 0, remaining: [] },
    feedback: { source, text: feedbackText(triggers) },
  };
}

/** The task a change asks for when the model names none: the feedback itself. */
function fallbackAction(triggers: readonly PullRequestTrigger[]): string {
  return clipCounted(`Address this feedback on the pull request, then check the result:\n\n${feedbackText(triggers)}`, 2000);
}

/**
 * G4: the decision as the run takes it: unchanged when it wants no change (the reply says why);
 * otherwise a plan revision at level 2 (new tasks after the done ones: the model's additional or
 * recommended actions, else the feedback itself), never a question, with the feedback's issue first.
 */
export function feedbackDecision(d: ReplanDecision, triggers: readonly PullRequestTrigger[]): ReplanDecision {
  const issue = feedbackIssue(triggers[0]!);
  const issues_found = [issue, ...d.issues_found.filter((i) => i !== issue)];
  if (!wantsReplan(d)) return { ...d, issues_found };
  const named = (d.additional_actions?.length ? d.additional_actions : d.recommended_actions).filter((a) => a.trim());
  return {
    ...d,
    replan_needed: true,
    replan_type: 'plan_revision',
    replan_level: 2,
    target_phase: 'action_sequence',
    clarification_needed: false,
    clarification_questions: [],
    issues_found,
    additional_actions: named.length ? named : [fallbackAction(triggers)],
  };
}

/**
 * G4: the jump a decision about feedback makes: always new tasks after the done ones (an
 * alternative the model proposed after a refusal may name another replan: it runs as this one).
 */
export function feedbackJump(j: Jump, triggers: readonly PullRequestTrigger[]): Jump {
  if (j.type === 'plan_revision' && j.target === 'action_sequence' && j.additionalActions?.length) return j;
  const { taskId: _taskId, ...rest } = j;
  return {
    ...rest,
    target: 'action_sequence',
    type: 'plan_revision',
    keepsCompletedWork: true,
    additionalActions: j.additionalActions?.length ? j.additionalActions : [fallbackAction(triggers)],
  };
}
