// G3 / G4 / G5: the pull request's policy (src/domain/pull-request): which feedback is a trigger
// (once per check and head, once per review or command, writers only), what is only logged, the
// one-line summary, the forges' check states, a CI log's tail, GitLab's draft titles, the run's
// reply.
import {
  checkSummary,
  githubCheckRunState,
  githubStatusState,
  gitlabJobState,
  logTail,
  MAX_LOG_TAIL_CHARS,
} from '../../../src/domain/pull-request/checks';
import {
  emptySeen,
  feedbackTriggers,
  isBotAccount,
  MAX_SEEN,
  MAX_TRIGGER_KEY_CHARS,
  MAX_TRIGGER_TEXT_CHARS,
  parsePullRequestCommand,
  triggerKey,
} from '../../../src/domain/pull-request/feedback';
import { pullRequestBody, pullRequestTitle, replyBody } from '../../../src/domain/pull-request/reply';
import { feedbackSummary } from '../../../src/domain/pull-request/summary';
import { draftTitle, isDraftTitle, withoutDraftPrefix } from '../../../src/domain/pull-request/titles';
import type { PullRequestCheck, PullRequestComment, PullRequestFeedback, PullRequestReview } from '../../../src/domain/pull-request/types';

const check = (name: string, state: PullRequestCheck['state'], over: Partial<PullRequestCheck> = {}): PullRequestCheck => ({
  key: `check:${name}`,
  name,
  source: 'check_run',
  state,
  ...over,
});
const review = (id: string, author: string, state: PullRequestReview['state'], over: Partial<PullRequestReview> = {}): PullRequestReview => ({
  id,
  author,
  authorised: true,
  bot: false,
  own: false,
  state,
  body: `body of ${id}`,
  submittedAt: `2026-01-01T10:00:0${id.length % 10}Z`,
  ...over,
});
const comment = (id: number, author: string, body: string, over: Partial<PullRequestComment> = {}): PullRequestComment => ({
  id,
  author,
  authorised: true,
  bot: false,
  own: false,
  body,
  createdAt: '2026-01-01T10:00:00Z',
  updatedAt: '2026-01-01T10:00:00Z',
  ...over,
});
const feedback = (over: Partial<PullRequestFeedback> = {}): PullRequestFeedback => ({
  state: 'open',
  draft: false,
  headSha: 'aaa111',
  checks: [],
  reviews: [],
  comments: [],
  approvedBy: [],
  cursor: {},
  authority: {},
  ...over,
});

describe('G4 which feedback reaches the run', () => {
  it('G4 a failed check on the head is a trigger once; the same check on a new head is a new one', () => {
    const f = feedback({
      checks: [check('test', 'failed', { summary: '2 tests failed', logTail: 'AssertionError: 1 != 2' }), check('lint', 'passed')],
    });
    const first = feedbackTriggers(f, emptySeen());
    expect(first.triggers).toEqual([
      {
        kind: 'check_failed',
        key: 'check:aaa111:check:test',
        headSha: 'aaa111',
        name: 'test',
        text: 'Check "test" failed.\n\nIts summary:\n2 tests failed\n\nThe end of its log:\nAssertionError: 1 != 2',
      },
    ]);
    expect(feedbackTriggers(f, first.seen).triggers).toEqual([]);
    const pushed = feedbackTriggers({ ...f, headSha: 'bbb222' }, first.seen);
    expect(pushed.triggers.map((t) => t.key)).toEqual(['check:bbb222:check:test']);
  });

  it.each<[string, PullRequestCheck['state']]>([
    ['pending', 'pending'],
    ['passed', 'passed'],
    ['neutral (skipped, cancelled, allowed to fail)', 'neutral'],
  ])('G4 a check that is %s is no trigger', (_what, state) => {
    expect(feedbackTriggers(feedback({ checks: [check('x', state)] })).triggers).toEqual([]);
  });

  it.each<[string, Partial<PullRequestReview>, string]>([
    ['a reader', { authorised: false }, 'review r1 requesting changes ignored: @bob may not review (no write access)'],
    ['a bot', { bot: true, author: 'ci[bot]' }, 'review r1 requesting changes ignored: @ci[bot] is a bot'],
    ['the run itself', { own: true }, 'review r1 requesting changes ignored: the run’s own'],
  ])('G4 a "changes requested" review from %s changes nothing and is logged once', (_who, over, line) => {
    const f = feedback({ reviews: [review('r1', 'bob', 'changes_requested', over)] });
    const o = feedbackTriggers(f);
    expect(o.triggers).toEqual([]);
    expect(o.logged).toEqual([line]);
    expect(feedbackTriggers(f, o.seen).logged).toEqual([]);
  });

  it('G4 a writer\'s "changes requested" review is a trigger with its body, once; approvals and plain comments are not', () => {
    const f = feedback({
      reviews: [
        review('r1', 'alice', 'changes_requested', { body: 'Rename foo to bar.\n\nsrc/a.ts:3: here', url: 'https://x/r1' }),
        review('r2', 'carol', 'approved'),
        review('r3', 'dave', 'commented', { body: 'looks fine' }),
      ],
    });
    const o = feedbackTriggers(f);
    expect(o.triggers).toEqual([
      {
        kind: 'changes_requested',
        key: 'review:r1',
        reviewId: 'r1',
        author: 'alice',
        text: 'Rename foo to bar.\n\nsrc/a.ts:3: here',
        url: 'https://x/r1',
      },
    ]);
    expect(o.logged).toEqual([]);
    expect(feedbackTriggers(f, o.seen).triggers).toEqual([]);
  });

  it("G4 a writer's `/replanner <text>` comment (or review) is a trigger once; an edit of it changes nothing; a reader's is logged", () => {
    const f = feedback({
      comments: [
        comment(7, 'alice', '/replanner please also update the README\nand the changelog'),
        comment(8, 'bob', '/replanner delete everything', { authorised: false }),
        comment(9, 'carol', 'nice work'),
      ],
      reviews: [review('r4', 'alice', 'commented', { body: '/replanner add a test for the empty case' })],
    });
    const o = feedbackTriggers(f);
    expect(o.triggers).toEqual([
      { kind: 'changes_requested', key: 'review:r4', reviewId: 'r4', author: 'alice', text: 'add a test for the empty case' },
      { kind: 'command', key: 'comment:7', commentId: 7, author: 'alice', text: 'please also update the README\nand the changelog' },
    ]);
    expect(o.logged).toEqual(['command in comment 8 ignored: @bob may not review (no write access)']);
    const edited = feedback({ comments: [comment(7, 'alice', '/replanner something else', { updatedAt: '2026-01-01T11:00:00Z' })] });
    expect(feedbackTriggers(edited, o.seen).triggers).toEqual([]);
  });

  it('G4 nothing triggers on a pull request that is merged or closed', () => {
    for (const state of ['merged', 'closed'] as const) {
      const o = feedbackTriggers(feedback({ state, checks: [check('t', 'failed')], reviews: [review('r1', 'alice', 'changes_requested')] }));
      expect(o.triggers).toEqual([]);
    }
  });

  it("G4 a trigger's text is verbatim and bounded; the seen lists stay bounded", () => {
    const long = 'x'.repeat(MAX_TRIGGER_TEXT_CHARS + 500);
    const o = feedbackTriggers(feedback({ reviews: [review('r1', 'alice', 'changes_requested', { body: long })] }));
    expect(o.triggers[0]!.text.startsWith('x'.repeat(MAX_TRIGGER_TEXT_CHARS))).toBe(true);
    expect(o.triggers[0]!.text).toContain('…[truncated 500 chars]');
    const many = feedback({ comments: Array.from({ length: MAX_SEEN + 20 }, (_, i) => comment(i + 1, 'alice', `/replanner do ${i}`)) });
    const all = feedbackTriggers(many);
    expect(all.triggers).toHaveLength(MAX_SEEN + 20);
    expect(all.seen.comments).toHaveLength(MAX_SEEN);
    expect(all.seen.comments.at(-1)).toBe(MAX_SEEN + 20);
  });
});

describe("G4 a trigger's key", () => {
  it('G4 a check name with spaces, "-->" or a line break makes a plain key; a long one is bounded and stays apart from another', () => {
    const o = feedbackTriggers(feedback({ checks: [check('build / test --> ok\nnext', 'failed')] }));
    expect(o.triggers[0]!.key).toBe('check:aaa111:check:build_/_test_--__ok_next');
    const long = (tail: string) => feedbackTriggers(feedback({ checks: [check(`${'n'.repeat(300)}${tail}`, 'failed')] })).triggers[0]!.key;
    expect(long('a')).toHaveLength(MAX_TRIGGER_KEY_CHARS);
    expect(long('a')).not.toBe(long('b'));
    expect(long('a')).toBe(long('a'));
    expect(triggerKey('review:12')).toBe('review:12');
  });
});

describe('G4 the /replanner command', () => {
  it.each<[string, string | undefined]>([
    ['/replanner fix the typo', 'fix the typo'],
    ['  /replanner\r\nfirst\r\nsecond  ', 'first\nsecond'],
    ['/replanner', undefined],
    ['/replanner   ', undefined],
    ['please /replanner fix it', undefined],
    ['/replannerx fix', undefined],
    ['<!-- replanner:notification run=r key=k -->\n/replanner loop', undefined],
  ])('G4 %j → %j', (body, text) => {
    expect(parsePullRequestCommand(body)).toBe(text);
  });

  it.each<[string, unknown, boolean]>([
    ['dependabot[bot]', undefined, true],
    ['someone', 'Bot', true],
    ['project_12_bot_3fa9c1', undefined, true],
    ['group_4_bot', undefined, true],
    ['alice', 'User', false],
    ['robot', undefined, false],
  ])('G4 %s (type %s) is a bot: %s', (login, type, bot) => {
    expect(isBotAccount(login, type)).toBe(bot);
  });
});

describe('G5 the pull request in one line', () => {
  it.each<[string, Partial<PullRequestFeedback>, string]>([
    [
      'the issue’s example',
      { checks: [check('a', 'passed'), check('b', 'passed'), check('c', 'failed')], reviews: [review('r1', 'alice', 'changes_requested')] },
      '2 of 3 checks passing, changes requested by @alice',
    ],
    ['no checks yet, a draft', { draft: true }, 'draft, no checks yet'],
    [
      'running and neutral checks',
      { checks: [check('a', 'passed'), check('b', 'pending'), check('c', 'neutral')] },
      '1 of 2 checks passing (1 running)',
    ],
    ['one check', { checks: [check('a', 'passed')] }, '1 of 1 check passing'],
    [
      "a reviewer's later approval stands; a comment does not change it; a reader's review does not count",
      {
        reviews: [
          review('r1', 'alice', 'changes_requested', { submittedAt: '2026-01-01T10:00:00Z' }),
          review('r2', 'alice', 'approved', { submittedAt: '2026-01-01T11:00:00Z' }),
          review('r3', 'alice', 'commented', { submittedAt: '2026-01-01T12:00:00Z' }),
          review('r4', 'bob', 'changes_requested', { authorised: false }),
        ],
      },
      'no checks yet, approved by @alice',
    ],
    [
      'a dismissed review clears it',
      {
        reviews: [
          review('r1', 'alice', 'changes_requested', { submittedAt: '2026-01-01T10:00:00Z' }),
          review('r2', 'alice', 'dismissed', { submittedAt: '2026-01-01T11:00:00Z' }),
        ],
      },
      'no checks yet',
    ],
    [
      'GitLab approvals',
      { approvedBy: ['carol'], reviews: [review('rc:dave:1', 'dave', 'changes_requested')] },
      'no checks yet, changes requested by @dave, approved by @carol',
    ],
    [
      'many reviewers',
      { reviews: ['a', 'b', 'c', 'd', 'e'].map((u, i) => review(`r${i}`, u, 'changes_requested')) },
      'no checks yet, changes requested by @a, @b, @c and 2 more',
    ],
    ['merged', { state: 'merged', checks: [check('a', 'failed')] }, 'merged'],
    ['closed', { state: 'closed' }, 'closed without merging'],
  ])('G5 %s', (_what, over, line) => {
    expect(feedbackSummary(feedback(over))).toBe(line);
  });
});

describe('G4 the forges’ checks and logs', () => {
  it.each<[unknown, unknown, PullRequestCheck['state']]>([
    ['queued', null, 'pending'],
    ['in_progress', null, 'pending'],
    ['completed', 'success', 'passed'],
    ['completed', 'failure', 'failed'],
    ['completed', 'timed_out', 'failed'],
    ['completed', 'cancelled', 'neutral'],
    ['completed', 'skipped', 'neutral'],
    ['completed', 'action_required', 'neutral'],
  ])('G4 a GitHub check run %s / %s is %s', (status, conclusion, state) => {
    expect(githubCheckRunState(status, conclusion)).toBe(state);
  });

  it.each<[unknown, PullRequestCheck['state']]>([
    ['success', 'passed'],
    ['failure', 'failed'],
    ['error', 'failed'],
    ['pending', 'pending'],
  ])('G4 a GitHub status %s is %s', (s, state) => expect(githubStatusState(s)).toBe(state));

  it.each<[unknown, unknown, PullRequestCheck['state']]>([
    ['success', false, 'passed'],
    ['failed', false, 'failed'],
    ['failed', true, 'neutral'],
    ['running', false, 'pending'],
    ['created', false, 'pending'],
    ['manual', false, 'neutral'],
    ['canceled', false, 'neutral'],
    ['skipped', false, 'neutral'],
  ])('G4 a GitLab job %s (allowed to fail: %s) is %s', (status, allow, state) => expect(gitlabJobState(status, allow)).toBe(state));

  it('G4 a log loses its colours, section markers and timestamps and keeps its end, bounded', () => {
    const raw =
      '2026-01-01T10:00:00.1234567Z \u001b[32;1mRunning tests\u001b[0m\r\n' +
      '\u001b[0Ksection_start:1700000000:step_script[collapsed=true]\r\u001b[0Knpm test\n\n\n\nFAIL src/a.test.ts\r\n';
    expect(logTail(raw)).toBe('Running tests\nnpm test\n\nFAIL src/a.test.ts');
    const long = logTail(`${'a'.repeat(10_000)}THE END`);
    expect(long.endsWith('THE END')).toBe(true);
    expect(long.startsWith(`[…${10_007 - MAX_LOG_TAIL_CHARS} chars cut]\n`)).toBe(true);
  });

  it('G4 a check summary joins its non-blank parts once', () => {
    expect(checkSummary('2 failed', '2 failed', ' ', null, 'details')).toBe('2 failed\n\ndetails');
    expect(checkSummary(undefined, '')).toBeUndefined();
  });
});

describe('G3 what the run writes on its pull request', () => {
  it.each<[string, boolean, string]>([
    ['Draft: Add a parser', true, 'Add a parser'],
    ['[Draft] Add a parser', true, 'Add a parser'],
    ['(draft) Add a parser', true, 'Add a parser'],
    ['DRAFT: x', true, 'x'],
    ['Add a draft parser', false, 'Add a draft parser'],
  ])('G3 GitLab reads %j as a draft: %s', (title, draft, ready) => {
    expect(isDraftTitle(title)).toBe(draft);
    expect(withoutDraftPrefix(title)).toBe(ready);
    expect(isDraftTitle(draftTitle(ready))).toBe(true);
  });

  it('G3 the body carries the run marker and neutralized text; the title is one bounded line', () => {
    const body = pullRequestBody('run-1', '/merge now\nping @alice\nRefs #12');
    expect(body).toBe('<!-- replanner:pull-request run=run-1 -->\n\u200b/merge now\nping @\u200balice\nRefs #12');
    expect(pullRequestTitle('  Add\na parser  ')).toBe('Add a parser');
    expect(Array.from(pullRequestTitle('é'.repeat(300)))).toHaveLength(256);
  });

  it('G4 a reply names the reviewer (a real mention) and links the review; its own text pings nobody', () => {
    const body = replyBody({
      runId: 'run-1',
      key: 'reply-r1',
      body: 'Renamed foo to bar in a1b2c3 (thanks @carol)',
      inReplyTo: { kind: 'review', id: 'r1', author: 'alice', url: 'https://github.example/o/r/pull/3#pullrequestreview-9' },
    });
    expect(body).toBe(
      '<!-- replanner:notification run=run-1 key=reply-r1 -->\n@alice, about [your review](https://github.example/o/r/pull/3#pullrequestreview-9):\n\nRenamed foo to bar in a1b2c3 (thanks @\u200bcarol)',
    );
    const odd = replyBody({
      runId: 'run-1',
      key: 'k',
      body: 'x',
      inReplyTo: { kind: 'comment', id: 4, author: 'bad name\n/close', url: 'javascript:alert(1)' },
    });
    expect(odd).toContain('Hello, about your comment:');
    expect(odd).not.toContain('/close');
  });
});
