// G3 / G4 / G5: the run's side of its pull request, pure: the decision feedback makes (new tasks,
// never a re-plan of pushed work), the words the run writes on the thread, what it keeps and shows.
import {
  FEEDBACK_TASK_ID,
  feedbackContext,
  feedbackDecision,
  feedbackJump,
  isFeedbackRecord,
  pullRequestName,
} from '../../../src/domain/pull-request/run-feedback';
import { recordReplanDecision } from '../../../src/domain/run/decisions';
import { withEvents } from '../../../src/domain/run/events';
import { emptyProgress } from '../../../src/domain/replan/prompt-context';
import { decisionLine } from '../../../src/client/render';
import { runEventLines } from '../../../src/client/render-events';
import type { PullRequestTrigger } from '../../../src/domain/pull-request/feedback';
import {
  answeredTrigger,
  followExpired,
  follow,
  pullRequestProjectOf,
  startPullRequest,
  stopFollowing,
  textPrint,
} from '../../../src/domain/pull-request/run-state';
import {
  askInsteadReply,
  fixReply,
  fixRoundResult,
  issueReference,
  noChangeReply,
  pullRequestBodyOf,
  pullRequestTitleOf,
} from '../../../src/domain/pull-request/run-text';
import { followingLine, runGitView, pullRequestLine, startRunGit, recordCommit } from '../../../src/domain/git/run-git';
import { NO_REPLAN, resolveReplan } from '../../../src/domain/replan';
import { displayStatus } from '../../../src/domain/run/pause';
import { initialRunState, type RunState } from '../../../src/domain/run/state';
import { waitingLine, waitingMarkdown } from '../../../src/domain/run/waiting';
import { TaskState } from '../../../src/domain/types';
import { taskRecord } from '../../support/tasks';
import { parseConfig } from '../../../src/domain/config';

const task = taskRecord;

const check: PullRequestTrigger = {
  kind: 'check_failed',
  key: 'check:abc:check:ci',
  headSha: 'abcdef0123456789',
  name: 'ci',
  text: 'Check "ci" failed.\n\nIts summary:\nexpected 2, got 3',
};
const review: PullRequestTrigger = { kind: 'changes_requested', key: 'review:7', reviewId: '7', author: 'alice', text: 'Please rename parse.' };

function runWithPr(): RunState {
  const s = initialRunState({ runId: 'r1', instruction: 'make the parser', workspace: '/w' });
  const git = { ...recordCommit(startRunGit({ branch: 'replanner/r1', base: 'main', baseSha: 'b0', remote: 'origin' }), 'a', 'c1'.padEnd(40, '0')) };
  return {
    ...s,
    tasks: [task('a', TaskState.DONE, 'parser written')],
    git: { ...git, pr: { ...startPullRequest({ service: 'github', repo: 'octo/app' }), number: 12, url: 'https://x/pull/12', ready: true } },
  };
}

describe('feedback through the replanning loop (G4)', () => {
  it('G4 the context carries the feedback verbatim; the decision adds tasks (plan revision, level 2), never a question or a re-plan of pushed work', () => {
    const s = runWithPr();
    const ctx = feedbackContext(s, [check, review], pullRequestName('github', 12));
    expect(ctx.phase).toBe('execution');
    expect(ctx.phase === 'execution' && ctx.feedback?.text).toContain('expected 2, got 3');
    expect(ctx.phase === 'execution' && ctx.feedback?.text).toContain('@alice requested changes in a review:\nPlease rename parse.');
    const asked = {
      ...NO_REPLAN('x'),
      replan_needed: true,
      confidence: 0.9,
      replan_type: 'goal_revision' as const,
      clarification_needed: true,
      clarification_questions: ['why?'],
      recommended_actions: ['fix the parser'],
    };
    const d = feedbackDecision(asked, [check]);
    expect(d).toMatchObject({ replan_type: 'plan_revision', replan_level: 2, clarification_needed: false, additional_actions: ['fix the parser'] });
    expect(d.issues_found[0]).toBe('pull request check ci failed');
    const r = resolveReplan('execution', d);
    expect(r).toMatchObject({ type: 'plan_revision', targetPhase: 'action_sequence', keepsCompletedWork: true });
    // The same check failing again (other words from the model) is the same trigger for the loop detection.
    expect(resolveReplan('execution', feedbackDecision({ ...asked, issues_found: ['something else'] }, [check])).triggerKey).toBe(r.triggerKey);
    // No change wanted: the decision stays as it is (the reply says why).
    expect(feedbackDecision(NO_REPLAN('fine as it is'), [check]).replan_needed).toBe(false);
    // No action named: the feedback itself is the task.
    expect(feedbackDecision({ ...asked, recommended_actions: [] }, [check]).additional_actions![0]).toContain('expected 2, got 3');
  });

  it('G4 any other jump an alternative proposes runs as new tasks after the done ones', () => {
    const j = feedbackJump({ target: 'execution', type: 'retry', keepsCompletedWork: true, feedback: 'f', taskId: 'a' }, [check]);
    expect(j).toMatchObject({ target: 'action_sequence', type: 'plan_revision', keepsCompletedWork: true });
    expect(j.taskId).toBeUndefined();
    expect(j.additionalActions![0]).toContain('Check "ci" failed');
  });
});

describe('what the run writes on its pull request (G3 / G4)', () => {
  it('G3 title from the goal; body: the checklist, the changes of plan, Refs or Closes', () => {
    const s = runWithPr();
    expect(pullRequestTitleOf({ instruction: 'line one\nline two' })).toBe('line one');
    expect(
      pullRequestTitleOf({
        instruction: 'x',
        goal: { main_objective: 'Parse dates', success_criteria: [], constraints: [], ambiguities: [], assumptions: [], task_profile: 'UNKNOWN' },
      }),
    ).toBe('Parse dates');
    expect(issueReference({ kind: 'issue', number: 4 }, false)).toBe('Refs #4');
    expect(issueReference({ kind: 'issue', number: 4 }, true)).toBe('Closes #4');
    expect(issueReference({ kind: 'merge_request', number: 4 }, true)).toBe('Refs !4');
    const body = pullRequestBodyOf(s, 'Closes #4');
    expect(body).toContain('do a');
    expect(body.trimEnd().endsWith('Closes #4')).toBe(true);
    expect(textPrint(body)).toBe(textPrint(pullRequestBodyOf(s, 'Closes #4')));
    expect(textPrint(body)).not.toBe(textPrint(pullRequestBodyOf(s, 'Refs #4')));
  });

  it('G3 the body tells the changes of plan in the README words, not the machine names', () => {
    const s0 = runWithPr();
    const s: RunState = {
      ...s0,
      log: {
        ...s0.log,
        records: [
          {
            replan_id: 'replan-7',
            phase: 'execution',
            task_id: 'review',
            llm_decision: { reasoning: 'the check asks for a fix' },
            confidence: 0.9,
            executed: true,
            timestamp: '2026-01-01T00:00:00.000Z',
            result: 'success',
            outcome: 'replan',
            replan_type: 'plan_revision',
            target_phase: 'action_sequence',
          },
        ],
      },
    };
    const body = pullRequestBodyOf(s, undefined);
    expect(body).toContain(
      '- **decision 7** after Execution (feedback on this pull request): plan changed: add the missing work as new tasks (back to Steps) · done — the check asks for a fix',
    );
    for (const machine of ['plan_revision', 'action_sequence', 'replan-7']) expect(body).not.toContain(machine);
  });

  it('G4 X9 a decision about the feedback names no task: a plan task called "review" is still a task, in the body, decisions and watch', () => {
    const s0 = runWithPr();
    const feedback = recordReplanDecision(s0, {
      phase: 'execution',
      decision: NO_REPLAN('the check asks for a fix'),
      outcome: { action: 'none', reason: 'no change wanted' },
      context: feedbackContext(s0, [review], 'PR #12'),
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    expect(feedback.record.task_id).toBeUndefined();
    expect(feedback.record.about).toBe('pull_request_feedback');
    const onTask = recordReplanDecision(
      { ...feedback.state, tasks: [...feedback.state.tasks, task('review', TaskState.DONE)] },
      {
        phase: 'execution',
        decision: NO_REPLAN('the review task went well'),
        outcome: { action: 'none', reason: 'no change wanted' },
        context: { phase: 'execution', executed: { taskId: 'review', title: 'review the code', state: 'DONE' }, progress: emptyProgress(2) },
        timestamp: '2026-01-01T00:00:01.000Z',
      },
    );
    expect(onTask.record).toMatchObject({ task_id: 'review' });
    expect(onTask.record.about).toBeUndefined();
    // The record's own words (decisions) and the event `watch` prints.
    expect(decisionLine(feedback.record)).toContain('Execution (feedback on the pull request)');
    expect(decisionLine(onTask.record)).toContain('Execution (task review)');
    const events = withEvents(s0, onTask.state, '2026-01-01T00:00:02.000Z').events!.events.filter((e) => e.kind === 'decision');
    expect(events.map((e) => runEventLines(e, 'r1', true).join())).toEqual([
      expect.stringContaining('Execution (feedback on the pull request)'),
      expect.stringContaining('Execution (task review)'),
    ]);
    // A record from before `about`: its pseudo task is feedback only when the plan has no task of that id.
    const legacy = {
      ...feedback.record,
      task_id: FEEDBACK_TASK_ID,
      about: undefined,
      outcome: 'replan' as const,
      executed: true,
      result: 'success' as const,
    };
    expect(isFeedbackRecord(legacy, s0)).toBe(true);
    expect(isFeedbackRecord(legacy, onTask.state)).toBe(false);
    expect(isFeedbackRecord(onTask.record, onTask.state)).toBe(false);
    expect(isFeedbackRecord(feedback.record, onTask.state)).toBe(true);
  });

  it('G4 the reply names the new commits, a blocked fix task, or why nothing changed / cannot change', () => {
    const s0 = runWithPr();
    const answering = { triggers: [answeredTrigger(review)], headBefore: s0.git!.head, tasksBefore: ['a'] };
    const s = {
      ...s0,
      tasks: [...s0.tasks, task('add-1', TaskState.DONE), task('add-2', TaskState.BLOCKED, 'no tests found')],
      git: recordCommit(s0.git!, 'add-1', 'f'.repeat(40)),
    };
    const result = fixRoundResult(s, answering);
    expect(result).toEqual({
      commits: [{ sha: 'f'.repeat(40), taskId: 'add-1', title: 'do add-1' }],
      blocked: [{ taskId: 'add-2', reason: 'no tests found' }],
    });
    const reply = fixReply({ answering, ...result, branch: 'replanner/r1' });
    expect(reply).toContain('In answer to the review of @alice, the run pushed 1 commit to `replanner/r1`');
    expect(reply).toContain('ffffffffffff do add-1 (task add-1)');
    expect(reply).toContain('task add-2 could not be finished: no tests found');
    expect(answeredTrigger(review).inReplyTo).toEqual({ kind: 'review', id: '7', author: 'alice' });
    expect(noChangeReply('the review of @alice', 'already handled')).toContain('changed nothing: already handled');
    expect(askInsteadReply('the failed check "ci"', 'replan limit reached')).toContain('will not try again by itself');
  });
});

describe('what the run keeps and shows of its pull request (G5)', () => {
  it('G5 FOLLOWING while it follows (WAITING and PAUSED first), the one line in status, list and the Web UI', () => {
    const s = runWithPr();
    expect(displayStatus(s)).toBe('RUNNING');
    const following = {
      ...s,
      git: { ...s.git!, pr: { ...follow(s.git!.pr!, '2026-01-01T00:00:00Z'), summary: '2 of 3 checks passing, changes requested by @alice' } },
    };
    expect(displayStatus(following)).toBe('FOLLOWING');
    expect(followingLine(following.git)).toBe('following PR #12: 2 of 3 checks passing, changes requested by @alice');
    expect(waitingLine(following)).toBe('following PR #12: 2 of 3 checks passing, changes requested by @alice');
    expect(waitingMarkdown(following)).toContain('**Following PR #12: 2 of 3 checks passing');
    expect(pullRequestLine(runGitView(following.git))).toBe(
      'Pull request: PR #12 (ready for review) https://x/pull/12 — 2 of 3 checks passing, changes requested by @alice',
    );
    expect(displayStatus({ ...following, pause: { kind: 'user', by: 'user', since: 'x' } })).toBe('PAUSED');
    expect(displayStatus({ ...following, git: { ...following.git, pr: stopFollowing(following.git.pr) } })).toBe('RUNNING');
    const gitlab = { ...following.git, pr: { ...following.git.pr, project: { service: 'gitlab' as const, project: 'g/p' } } };
    expect(followingLine(gitlab)).toMatch(/^following MR !12/);
  });

  it('G4 following ends after followHours with nothing new', () => {
    const p = follow(startPullRequest({ service: 'github', repo: 'o/r' }), '2026-01-01T00:00:00Z');
    expect(followExpired(p, Date.parse('2026-01-03T23:59:59Z'), 72)).toBe(false);
    expect(followExpired(p, Date.parse('2026-01-04T00:00:00Z'), 72)).toBe(true);
    expect(followExpired(stopFollowing(p), Date.parse('2027-01-01T00:00:00Z'), 72)).toBe(false);
  });

  it('G3 the repository: the pullRequest keys, else the notifications', () => {
    expect(pullRequestProjectOf(parseConfig({ pullRequest: { open: true, github: 'octo/app' } }))).toEqual({ service: 'github', repo: 'octo/app' });
    expect(pullRequestProjectOf(parseConfig({ notifications: { gitlab: { project: 'g/p', issue: 3, url: 'https://gl.example' } } }))).toEqual({
      service: 'gitlab',
      project: 'g/p',
      url: 'https://gl.example',
    });
    expect(pullRequestProjectOf(parseConfig({}))).toBeUndefined();
    expect(parseConfig({}).pullRequest).toMatchObject({
      branch: false,
      open: false,
      remote: 'origin',
      followHours: 72,
      pollSeconds: 30,
      closesIssue: false,
    });
    expect(() => parseConfig({ pullRequest: { pollSeconds: 120 } })).toThrow(/pullRequest.pollSeconds/);
    expect(() => parseConfig({ pullRequest: { base: 'a..b' } })).toThrow(/not a branch name/);
  });
});
