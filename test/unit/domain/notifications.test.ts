// X10 / X11: the notification texts (seed 004 §11.2–11.3), when they are due, how a failed delivery
// is judged, the config section and the CLI flags.
import { ConfigError, parseConfig, parseGithubFlag, parseGitlabFlag } from '../../../src/domain/config';
import { runChecklist } from '../../../src/domain/run/checklist';
import { checklistMarker, classifyDeliveryFailure, notifyTargetOf, targetAllowed, targetLabel, withMarker } from '../../../src/domain/notifications';
import { emptyLedger, noteDelivered, notificationsLine, noteUndelivered } from '../../../src/domain/run/deliveries';
import { checklistText, clarificationMessage, notificationsBetween, replanDecidedMessage } from '../../../src/domain/run/notifications-due';
import type { DecisionRecord } from '../../../src/domain/replan';
import type { Question } from '../../../src/domain/replan/questions';
import { initialRunState, type RunState } from '../../../src/domain/run/state';
import { TaskState, type Phase, type TaskRecord } from '../../../src/domain/types';
import { taskSpec } from '../../support/tasks';
import { expectToContainAll } from '../../support/expectations';

const AT = '2026-11-25T03:00:00.000Z';

function record(over: Partial<DecisionRecord> = {}): DecisionRecord {
  return {
    replan_id: 'replan-1',
    phase: 'execution',
    llm_decision: {
      reasoning: 'the tool is unavailable',
      issues_found: ['npm is missing', 'tests cannot run'],
      recommended_actions: ['use the bundled runner'],
    },
    confidence: 0.85,
    executed: true,
    timestamp: AT,
    result: 'pending',
    outcome: 'replan',
    replan_type: 'partial_replan',
    target_phase: 'action_sequence',
    ...over,
  };
}

const task = (id: string, state: TaskState): TaskRecord => ({ ...taskSpec(id, { profile: 'UNKNOWN' }), state });

function state(over: Partial<RunState> = {}): RunState {
  return { ...initialRunState({ runId: 'r1', instruction: 'do it', workspace: '/tmp/w' }), ...over };
}

describe('X10 message formats (seed 004 §11.2, §11.3)', () => {
  it('X10 "Plan Revision Decided by AI" has the seed fields in order: phase, confidence %, reasoning, issues, recommended actions, timestamp', () => {
    const text = replanDecidedMessage(record());
    const lines = text.split('\n');
    expect(lines[0]).toBe('## 🔄 Plan Revision Decided by AI');
    expectToContainAll(text, [
      '**Phase**: Execution',
      '**Confidence**: 85%',
      '**Reasoning**:\nthe tool is unavailable',
      '**Issues Found**:\n- npm is missing\n- tests cannot run',
      '**Recommended Actions**:\n- use the bundled runner',
    ]);
    expect(lines.at(-1)).toBe(`*${AT}*`);
    const order = ['**Phase**', '**Confidence**', '**Reasoning**', '**Issues Found**', '**Recommended Actions**', `*${AT}*`].map((k) =>
      text.indexOf(k),
    );
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('X10 "Clarification Needed (AI Decision)": numbered questions, context, and the assumptions used if nobody answers', () => {
    const qs: Question[] = ['Which format?', 'Which folder?'].map((text, i) => ({
      id: `q${i + 1}`,
      kind: 'clarification',
      phase: 'goal_understanding',
      replanId: 'replan-1',
      text,
      assumptions: ['JSON', 'the repository root'],
      timeoutMinutes: 30,
      askedAt: AT,
      status: 'pending',
    }));
    const text = clarificationMessage('r1', qs, 'the instruction names no format');
    expect(text.split('\n')[0]).toBe('## ❓ Clarification Needed (AI Decision)');
    expectToContainAll(text, [
      "I've analyzed the task and need some clarification to proceed effectively:",
      '**Questions**:\n1. Which format? (q1)\n2. Which folder? (q2)',
      '**Context**:\nthe instruction names no format',
      '**If no response**:\nI will proceed with the following assumptions after 30 minute(s):\n- JSON\n- the repository root',
      'npx replanner answer r1 q1',
    ]);
  });
});

/** Replan 1, decided in `decidedIn`, under way in `target`. */
const underWay = (decidedIn: Phase, target: Phase): NonNullable<RunState['inProgress']> => ({
  replanId: 'replan-1',
  startedMs: 0,
  decidedIn,
  target,
  decision: {} as never,
  context: {} as never,
});

describe('X10 which notifications are due between two states', () => {
  it('V8 an answered question is no plan change: its rerun is said in words, not as a plan revision (the same comments are due)', () => {
    const asked = record({
      phase: 'goal_understanding',
      outcome: 'clarify',
      replan_type: 'clarification_request',
      target_phase: 'goal_understanding',
    });
    const running = state({ log: { records: [asked], nextSeq: 2, dropped: 0 }, inProgress: underWay('goal_understanding', 'goal_understanding') });
    const started = notificationsBetween(state(), running, AT);
    expect(started.map((n) => n.kind)).toEqual(['replan_started']);
    const done = state({ log: { records: [{ ...asked, result: 'success' }], nextSeq: 2, dropped: 0 } });
    const completed = notificationsBetween(running, done, AT);
    expect(completed.map((n) => n.kind)).toEqual(['replan_completed']);
    expect(started[0]!.body).toContain('The Goal phase runs again with your answer (decision 1).');
    expect(completed[0]!.body).toContain('## ✅ Your Answer Is Taken In');
    for (const n of [...started, ...completed]) expect(n.body).not.toMatch(/Plan Revision|replan|clarification_request|goal_understanding/i);
  });

  it('X10 decided + started, then completed; an override; a failure; questions — each once, keyed by replan or question id', () => {
    const s0 = state();
    const decided = record();
    const s1 = state({ log: { records: [decided], nextSeq: 2, dropped: 0 }, inProgress: underWay('execution', 'action_sequence') });
    expect(notificationsBetween(s0, s1, AT).map((n) => n.kind)).toEqual(['replan_decided', 'replan_started']);
    expect(notificationsBetween(s1, s1, AT)).toEqual([]);
    const done = { ...decided, result: 'success' as const, duration_ms: 1500, plan_after: { tasks: [{ id: 'a', title: 'a', state: 'DONE' }] } };
    const s2 = state({ log: { records: [done], nextSeq: 2, dropped: 0 } });
    const completed = notificationsBetween(s1, s2, AT);
    expect(completed.map((n) => [n.kind, n.key])).toEqual([['replan_completed', 'replan-1.completed']]);
    expect(completed[0]!.body).toContain('## ✅ Plan Revision Completed');
    expect(completed[0]!.body).toContain('1/1 tasks done');

    const over = record({
      replan_id: 'replan-2',
      outcome: 'override',
      executed: false,
      result: 'skipped',
      override_reason: 'limit_exceeded',
      message: 'partial replans used up (2/2)',
    });
    const s3 = state({ log: { records: [done, over], nextSeq: 3, dropped: 0 } });
    const overridden = notificationsBetween(s2, s3, AT);
    expect(overridden.map((n) => n.kind)).toEqual(['replan_overridden']);
    expect(overridden[0]!.body).toContain('## ⛔ Plan Revision Overridden by a Limit');
    expect(overridden[0]!.body).toContain('partial replans used up (2/2)');

    const failed = record({ replan_id: 'replan-3', result: 'failure', plan_after: { tasks: [], note: 'failed: the planner timed out' } });
    const s4 = state({ log: { records: [done, over, failed], nextSeq: 4, dropped: 0 } });
    const f = notificationsBetween(s3, s4, AT);
    expect(f.map((n) => n.kind)).toEqual(['replan_failed', 'replan_decided']);
    expect(f[0]!.body).toContain('**Reason**: the planner timed out');

    const q: Question = {
      id: 'q1',
      kind: 'clarification',
      phase: 'goal_understanding',
      replanId: 'replan-3',
      text: 'Which?',
      assumptions: ['A'],
      timeoutMinutes: null,
      askedAt: AT,
      status: 'pending',
    };
    const s5 = { ...s4, questions: [q] };
    expect(notificationsBetween(s4, s5, AT).map((n) => [n.kind, n.key])).toEqual([['clarification_needed', 'q1.asked']]);
    expect(notificationsBetween(s5, { ...s5, questions: [{ ...q, status: 'answered' as const, answer: 'x' }] }, AT)).toEqual([]);
  });

  it('X10 no notification for "no replan", a low-confidence ignore, a budget question, or an assumed clarification', () => {
    const none = record({ outcome: 'none', executed: false, result: 'skipped' });
    const ignore = record({ replan_id: 'replan-2', outcome: 'ignore', executed: false, result: 'skipped' });
    const assumed = record({ replan_id: 'replan-3', outcome: 'clarify', result: 'success', override_reason: 'no_response_assumed' });
    const budgetQ: Question = {
      id: 'q1',
      kind: 'budget',
      phase: 'execution',
      replanId: '',
      text: 'raise?',
      assumptions: [],
      timeoutMinutes: null,
      askedAt: AT,
      status: 'pending',
    };
    const next = state({ log: { records: [none, ignore, assumed], nextSeq: 4, dropped: 0 }, questions: [budgetQ] });
    expect(notificationsBetween(state(), next, AT)).toEqual([]);
  });
});

describe('X11 the checklist from the run state', () => {
  it("X11 no plan → nothing to post; a plan → the run's own checklist (the one the Web UI shows)", () => {
    expect(checklistText(state())).toBeUndefined();
    const s1 = state({ tasks: [task('a', TaskState.DONE), task('b', TaskState.READY)] });
    expect(checklistText(s1)).toBe(runChecklist(s1));
    expect(checklistText(s1)).toContain('## 📋 Execution Plan\n');
    expect(checklistText(s1)).toContain('Progress: 1/2 (50%) complete');
  });
});

describe('X10 delivery failures', () => {
  const now = Date.parse(AT);
  it('X10 401/403/404 are not retried and say what to check; 5xx and no response are retried', () => {
    expect(classifyDeliveryFailure({ service: 'github', status: 403, nowMs: now })).toEqual({
      kind: 'access_rejected',
      retryable: false,
      message: "GitHub: 403 Forbidden (check GITHUB_TOKEN's scope)",
    });
    expect(classifyDeliveryFailure({ service: 'gitlab', status: 401, nowMs: now })).toMatchObject({
      retryable: false,
      message: 'GitLab: 401 Unauthorized (check GITLAB_TOKEN)',
    });
    expect(classifyDeliveryFailure({ service: 'github', status: 404, nowMs: now }).retryable).toBe(false);
    expect(classifyDeliveryFailure({ service: 'github', status: 422, nowMs: now }).retryable).toBe(false);
    expect(classifyDeliveryFailure({ service: 'github', status: 502, detail: 'Bad Gateway', nowMs: now })).toEqual({
      kind: 'outage',
      retryable: true,
      message: 'GitHub: 502 server error — Bad Gateway',
    });
    expect(classifyDeliveryFailure({ service: 'gitlab', nowMs: now, detail: 'fetch failed', network: 'other' })).toEqual({
      kind: 'outage',
      retryable: true,
      message: 'GitLab: no response — fetch failed',
    });
  });

  it('X10 a rate limit is retried at its reset (GitHub 403 with x-ratelimit-remaining 0, 429 with retry-after), however far away', () => {
    const reset = String(Math.floor(now / 1000) + 30);
    expect(
      classifyDeliveryFailure({ service: 'github', status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, nowMs: now }),
    ).toEqual({
      kind: 'rate_limit',
      retryable: true,
      retryAfterMs: 30_000,
      message: 'GitHub: 403 rate limited until 2026-11-25T03:00:30.000Z',
    });
    expect(classifyDeliveryFailure({ service: 'gitlab', status: 429, headers: { 'Retry-After': '7' }, nowMs: now })).toMatchObject({
      retryable: true,
      retryAfterMs: 7000,
    });
    const far = classifyDeliveryFailure({ service: 'github', status: 429, headers: { 'retry-after': '3600' }, nowMs: now });
    expect(far).toMatchObject({ retryable: true, retryAfterMs: 3_600_000 });
    expect(far.message).toBe('GitHub: 429 rate limited until 2026-11-25T04:00:00.000Z');
  });

  it('X10 the status line of a run from before the delivery queue: deliveries, then the last error and how many were not delivered', () => {
    const t = notifyTargetOf({ github: { repo: 'octo/app', issue: 12 } })!;
    let l = noteDelivered(emptyLedger(t), 77);
    expect(l.checklistCommentId).toBe(77);
    expect(notificationsLine(l)).toBe('Notifications: 1 delivered to GitHub octo/app#12');
    for (let i = 0; i < 3; i++) l = noteUndelivered(l, "GitHub: 403 Forbidden (check GITHUB_TOKEN's scope)", AT);
    expect(notificationsLine(l)).toBe(
      "Notifications: GitHub: 403 Forbidden (check GITHUB_TOKEN's scope) — 3 notifications not delivered (1 delivered to GitHub octo/app#12)",
    );
  });
});

describe('X10 targets: config and flags', () => {
  it('X10 X12 notifications.github / .gitlab are checked strictly with their key paths', () => {
    expect(notifyTargetOf(parseConfig({ notifications: { github: { repo: 'octo/app', pull: 5 } } }).notifications)).toEqual({
      service: 'github',
      repo: 'octo/app',
      kind: 'pull',
      number: 5,
    });
    const gl = parseConfig({
      notifications: { gitlab: { project: 'grp/sub/proj', merge_request: 45, url: 'https://gitlab.example.com' } },
    }).notifications;
    expect(targetLabel(notifyTargetOf(gl)!)).toBe('GitLab grp/sub/proj!45');
    expect(notifyTargetOf(parseConfig({}).notifications)).toBeUndefined();
    const bad = (raw: unknown) => {
      try {
        parseConfig(raw);
      } catch (e) {
        return (e as ConfigError).message;
      }
      return 'accepted';
    };
    expect(bad({ notifications: { github: { repo: 'octo', issue: 1 } } })).toContain('notifications.github.repo: must be "owner/name"');
    expect(bad({ notifications: { github: { repo: 'octo/app' } } })).toContain('notifications.github: needs issue: N or pull: N');
    expect(bad({ notifications: { github: { repo: 'octo/app', issue: 1, pull: 2 } } })).toContain(
      'notifications.github: give issue or pull, not both',
    );
    expect(bad({ notifications: { github: { repo: 'octo/app', issue: 0 } } })).toContain('notifications.github.issue: must be a whole number ≥ 1');
    expect(bad({ notifications: { github: { repo: 'octo/app', isue: 1 } } })).toContain(
      'notifications.github.isue: unknown key (did you mean "issue"?)',
    );
    expect(bad({ notifications: { gitlab: { project: 'g/p', issue: 1, url: 'ftp://x' } } })).toContain(
      'notifications.gitlab.url: must be an http(s) URL',
    );
    expect(bad({ notifications: { github: { repo: 'a/b', issue: 1 }, gitlab: { project: 'g/p', issue: 1 } } })).toContain('not both');
    expect(bad({ notifications: { slack: {} } })).toContain('notifications.slack: unknown key');
  });

  it('X10 --github owner/repo#N and --gitlab group/project!N | #N', () => {
    expect(parseGithubFlag('octo/app#123')).toEqual({ ok: true, value: { repo: 'octo/app', issue: 123 } });
    expect(parseGitlabFlag('grp/proj!45')).toEqual({ ok: true, value: { project: 'grp/proj', merge_request: 45 } });
    expect(parseGitlabFlag('grp/sub/proj#12')).toEqual({ ok: true, value: { project: 'grp/sub/proj', issue: 12 } });
    expect(parseGithubFlag('octo/app')).toMatchObject({ ok: false, reason: expect.stringContaining('owner/repo#NUMBER') });
    expect(parseGithubFlag('octo#1')).toMatchObject({ ok: false });
    expect(parseGitlabFlag('grp/proj!0')).toMatchObject({ ok: false });
  });

  it('X11 the checklist marker names the run', () => {
    expect(checklistMarker('r1')).toBe('<!-- replanner:checklist run=r1 -->');
  });
});

describe('S2 what the LLM wrote cannot act on the issue', () => {
  it('S2 X10 GitLab quick actions and @mentions in posted text are neutralized; the marker line stays', () => {
    const body = withMarker(checklistMarker('r1'), 'reasoning:\n/merge\n  /close\nping @octocat and @team-x; mail a@b is text');
    const lines = body.split('\n');
    expect(lines[0]).toBe('<!-- replanner:checklist run=r1 -->');
    expect(lines.slice(1).some((l) => /^\s*\//.test(l))).toBe(false);
    expect(body).not.toMatch(/@[A-Za-z0-9]/);
    expect(body.replace(/\u200b/g, '')).toBe(`${checklistMarker('r1')}\nreasoning:\n/merge\n  /close\nping @octocat and @team-x; mail a@b is text`);
  });

  it('S2 X10 REPLANNER_NOTIFY_ALLOW: unset allows any target; set, only the listed ones (owner/* for an owner)', () => {
    const gh = notifyTargetOf({ github: { repo: 'Octo/App', issue: 1 } })!;
    const gl = notifyTargetOf({ gitlab: { project: 'grp/sub/proj', issue: 1 } })!;
    expect(targetAllowed(gh, undefined)).toBe(true);
    expect(targetAllowed(gh, ' ')).toBe(true);
    expect(targetAllowed(gh, 'octo/app')).toBe(true);
    expect(targetAllowed(gh, 'octo/*')).toBe(true);
    expect(targetAllowed(gh, 'other/app, octo/other')).toBe(false);
    expect(targetAllowed(gl, 'grp/*')).toBe(true);
    expect(targetAllowed(gl, 'grp/proj')).toBe(false);
  });
});
