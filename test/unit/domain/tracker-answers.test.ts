// X14 / P7 / S2: answers read from the run's issue (src/domain/run/tracker-answers.ts): which replies
// are commands, who may answer, when the run polls and from where, and what a command does.
import type { Question } from '../../../src/domain/replan/questions';
import {
  afterPoll,
  afterPollFailure,
  MAX_COMMANDS_PER_POLL,
  ASKED_MARGIN_MS,
  githubMayWrite,
  gitlabMayWrite,
  hasAwaitingAnswers,
  markHandled,
  MAX_POLL_WAIT_MS,
  parseReplyCommand,
  pollSince,
  pollWaitMs,
  replyAction,
  skipAt,
  type SeenCommand,
  type TrackerPollState,
} from '../../../src/domain/run/tracker-answers';

const ASKED = '2026-01-01T10:00:00.000Z';
const question = (id: string, over: Partial<Question> = {}): Question => ({
  id,
  kind: 'clarification',
  phase: 'goal_understanding',
  replanId: 'r1',
  text: 'Which format?',
  assumptions: [],
  timeoutMinutes: null,
  askedAt: ASKED,
  status: 'pending',
  ...over,
});
const waiting = { questions: [question('q1')], consultations: [{ id: 'c1', taskId: 't2' }] };
const seen = (over: Partial<SeenCommand> = {}): SeenCommand => ({
  commentId: 7,
  author: 'alice',
  createdAt: '2026-01-01T10:01:00Z',
  updatedAt: '2026-01-01T10:01:00Z',
  authorised: true,
  command: { kind: 'answer', questionId: 'q1', text: 'CSV' },
  ...over,
});

describe('X14 reply commands', () => {
  it.each([
    ['/answer q1 CSV please', { kind: 'answer', questionId: 'q1', text: 'CSV please' }],
    ['  /answer q1 first line\nsecond line  ', { kind: 'answer', questionId: 'q1', text: 'first line\nsecond line' }],
    ['/answer q1\r\non the next line', { kind: 'answer', questionId: 'q1', text: 'on the next line' }],
    ['/consult t2 2', { kind: 'consult', taskId: 't2', choice: '2' }],
    ['/consult t2 3 use the old API', { kind: 'consult', taskId: 't2', choice: '3', guidance: 'use the old API' }],
    ['/answer q1', undefined],
    ['/answer ../x yes', undefined],
    ['please /answer q1 yes', undefined],
    ['/approve', undefined],
    ['/consult t2', undefined],
    ['<!-- replanner:notification run=r key=k -->\n/answer q1 yes', undefined],
    [`/answer q1 ${'x'.repeat(9000)}`, undefined],
  ])('X14 %j → %j', (body, command) => {
    expect(parseReplyCommand(body)).toEqual(command);
  });

  it.each([
    ['write', undefined, true],
    ['admin', undefined, true],
    ['read', 'maintain', true],
    ['read', 'triage', false],
    ['none', undefined, false],
    [undefined, undefined, false],
  ])('S2 GitHub permission %s (role %s) may answer: %s', (permission, role, may) => {
    expect(githubMayWrite(permission, role)).toBe(may);
  });

  it.each([
    [50, true],
    [40, true],
    [30, true],
    [20, false],
    [10, false],
    ['30', false],
    [undefined, false],
  ])('S2 GitLab access level %j may answer: %s', (level, may) => {
    expect(gitlabMayWrite(level)).toBe(may);
  });
});

describe('P7 the poll', () => {
  it('P7 polls only while a question (not the budget one) or a consultation waits', () => {
    expect(hasAwaitingAnswers(waiting)).toBe(true);
    expect(hasAwaitingAnswers({ questions: [question('q1', { status: 'answered' })], consultations: [] })).toBe(false);
    expect(hasAwaitingAnswers({ questions: [question('q1', { kind: 'budget' })], consultations: [] })).toBe(false);
    expect(hasAwaitingAnswers({ questions: [], consultations: [{ id: 'c1', taskId: 't' }] })).toBe(true);
  });

  it.each([
    [undefined, 10_000],
    [{ idle: 1 }, 15_000],
    [{ idle: 2 }, 22_500],
    [{ idle: 40 }, MAX_POLL_WAIT_MS],
  ])('P7 the wait grows while nothing changes: %j → %i ms', (p, ms) => {
    expect(pollWaitMs(p, 10_000, 0)).toBe(ms);
  });

  it("P7 after a failure the wait is the server's (a rate limit's reset), else backoff", () => {
    const now = Date.parse(ASKED);
    const limited = afterPollFailure({ idle: 3, etag: 'e' }, 30_000, now, 1000);
    expect(limited).toMatchObject({ idle: 3, etag: 'e', failures: 1, retryAt: new Date(now + 30_000).toISOString() });
    expect(pollWaitMs(limited, 1000, now + 10_000)).toBe(20_000);
    const twice = afterPollFailure(afterPollFailure(undefined, undefined, now, 1000), undefined, now, 1000);
    expect(twice).toMatchObject({ failures: 2, retryAt: new Date(now + 2000).toISOString() });
    // A poll that answers again ends the failures.
    expect(afterPoll(twice, ASKED, { notModified: true, commands: [] })).toEqual({ since: ASKED, idle: 1 });
  });

  it('P7 reads from the last point read, never from before the oldest waiting question (less a margin for clock skew)', () => {
    const floor = new Date(Date.parse(ASKED) - ASKED_MARGIN_MS).toISOString();
    expect(pollSince(undefined, waiting, '2026-01-01T11:00:00Z')).toBe(floor);
    expect(pollSince({ idle: 0, since: '2026-01-01T10:30:00Z' }, waiting, '2026-01-01T11:00:00Z')).toBe('2026-01-01T10:30:00Z');
    expect(pollSince({ idle: 0, since: '2025-12-31T00:00:00Z' }, waiting, '2026-01-01T11:00:00Z')).toBe(floor);
  });

  it('P7 "not modified" keeps the point and the ETag; new replies move the point to the newest change, skipping those read at it', () => {
    const since = '2026-01-01T10:00:00Z';
    const p0: TrackerPollState = { idle: 0, since, etag: 'a', atSince: ['5@x'], handled: [5] };
    expect(afterPoll(p0, since, { notModified: true, etag: 'a', commands: [] })).toEqual({ ...p0, idle: 1 });
    const moved = afterPoll(p0, since, { notModified: false, etag: 'b', newest: '2026-01-01T10:05:00Z', atNewest: ['9@y'], commands: [] });
    expect(moved).toEqual({ idle: 1, since: '2026-01-01T10:05:00Z', etag: 'b', atSince: ['9@y'], handled: [5] });
    expect(skipAt(moved, '2026-01-01T10:05:00Z')).toEqual(['9@y']);
    expect(skipAt(moved, since)).toEqual([]);
    // Same point (a burst read in parts): what was read there is kept too; a command resets the idle count.
    const same = afterPoll(p0, since, { notModified: false, newest: since, atNewest: ['6@x'], commands: [seen()] });
    expect(same).toMatchObject({ since, atSince: ['5@x', '6@x'], idle: 0 });
  });
});

describe('S2 a burst of reply commands', () => {
  it('S2 a burst of 150 commands from someone without write access, read 20 a poll at one point: no reply is read twice, and the poll gets past the burst to the answer after it', () => {
    const since = '2026-01-01T10:00:00Z';
    // The thread: 150 commands at or after `since`, then the owner's answer; oldest first, as the forge lists them.
    const thread = [...Array.from({ length: 150 }, (_, i) => `${i + 1}@x`), '151@y'];
    const reads: string[] = [];
    let p: TrackerPollState | undefined = { idle: 0, since };
    for (let poll = 0; poll < 20 && !reads.includes('151@y'); poll++) {
      // What pollReplies does: skip what was read at `since`, read up to MAX_COMMANDS_PER_POLL commands.
      const skip = new Set(skipAt(p, since));
      const taken = thread.filter((k) => !skip.has(k)).slice(0, MAX_COMMANDS_PER_POLL);
      reads.push(...taken);
      p = afterPoll(p, since, { notModified: false, newest: since, atNewest: taken, commands: taken.map(() => seen({ authorised: false })) });
    }
    expect(reads).toContain('151@y');
    expect(new Set(reads).size).toBe(reads.length);
  });
});

describe('S2 X14 what a reply does', () => {
  it('S2 an author without write access changes nothing and is told nothing', () => {
    expect(replyAction(waiting, undefined, seen({ authorised: false, author: 'mallory' }), 'GitHub')).toEqual({
      do: 'ignore',
      why: '@mallory on GitHub has no write access: reply 7 ignored',
    });
  });

  it('X14 an authorised answer goes through the run’s answer path, with who gave it', () => {
    expect(replyAction(waiting, undefined, seen(), 'GitLab')).toEqual({ do: 'answer', questionId: 'q1', answer: 'CSV', by: '@alice on GitLab' });
  });

  it('S2 an edit of a reply acted on already changes nothing', () => {
    const p = markHandled({ idle: 0 }, 7);
    expect(replyAction(waiting, p, seen({ updatedAt: '2026-01-01T10:09:00Z' }), 'GitHub')).toMatchObject({ do: 'ignore' });
    expect(markHandled(p, 7).handled).toEqual([7]);
  });

  it('S2 O3 an answer to the budget question from the thread (even by a writer, while another question waits) changes nothing; the author is told how to answer it', () => {
    const both = { questions: [question('q1'), question('q2', { kind: 'budget' })], consultations: [] };
    const raise = seen({ command: { kind: 'answer', questionId: 'q2', text: 'raise 10000000' } });
    expect(replyAction(both, undefined, raise, 'GitHub')).toMatchObject({
      do: 'ignore',
      why: "q2 is the run's budget question: answer it with `npx replanner answer`",
      tell: expect.stringContaining('@alice, your reply was not used'),
    });
  });

  it('S2 a reply written before its question was asked does not answer it', () => {
    const old = seen({ createdAt: new Date(Date.parse(ASKED) - ASKED_MARGIN_MS - 1000).toISOString() });
    expect(replyAction(waiting, undefined, old, 'GitHub')).toMatchObject({ do: 'ignore', why: 'reply 7 was written before q1 was asked' });
  });

  it('X14 a choice for a consultation: sent to the open one; none open: the author is told why', () => {
    const consult = seen({ command: { kind: 'consult', taskId: 't2', choice: '2', guidance: 'go' } });
    expect(replyAction(waiting, undefined, consult, 'GitHub')).toEqual({
      do: 'consult',
      taskId: 't2',
      consultationId: 'c1',
      choice: '2',
      guidance: 'go',
      by: '@alice on GitHub',
    });
    const none = replyAction({ ...waiting, consultations: [] }, undefined, consult, 'GitHub');
    expect(none).toMatchObject({ do: 'ignore', tell: 'ℹ️ @alice, your reply was not used: task t2 has no consultation waiting for an answer' });
  });
});
