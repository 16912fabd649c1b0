// G3 / G4 / G2 on GitHub: the forge activities (src/activities/forge) through the real @octokit/rest
// client against the local GitHub server (test/support/fake-github.ts), whose branches are a real
// bare git repository the test pushes to: the pull request opens after the first push (422 before),
// once; its body is edited in place; it turns ready through the GraphQL mutation (the REST update
// ignores `draft`); a read gives its checks (with a job's log tail), reviews and commands, each
// author's authority asked once per run; replies are posted once; failures name the fix and never
// carry the token.
import { ApplicationFailure, defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { createForgeActivities, type ForgeActivities } from '../../src/activities/forge';
import { githubPullRequests } from '../../src/activities/forge/github-pr';
import { emptySeen, feedbackTriggers } from '../../src/domain/pull-request/feedback';
import { FORGE_REJECTED, FORGE_UNAVAILABLE, PULL_REQUEST_NO_COMMITS, type ForgeProject } from '../../src/domain/pull-request/types';
import { FakeGitHub } from '../support/fake-github';
import type { TestOrigin } from '../support/fake-git';
import { failureOf, recordingActivityEnv } from '../support/activity-env';
import { forgeRepoForSuite } from '../support/suite-hooks';

const TOKEN = 'ghp_forgeUNITtoken0123456789abcdefghijkl';
const project: ForgeProject = { service: 'github', repo: 'octo/app' };
const HEAD = 'replanner/run-1';

/** The failure as Temporal records it (history, worker log): every payload decoded to text. */
const recorded = (f: ApplicationFailure) =>
  JSON.stringify(defaultFailureConverter.errorToFailure(f, defaultPayloadConverter), (_k, v: unknown) =>
    v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v,
  );
describe('G3 G4 the pull request on GitHub through @octokit/rest', () => {
  let gh: FakeGitHub;
  let origin: TestOrigin;
  let acts: ForgeActivities;
  forgeRepoForSuite(FakeGitHub, TOKEN, 'octo/app', (f, o) => {
    [gh, origin] = [f, o];
    acts = createForgeActivities({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: gh.baseURL });
  });
  const { run, logged } = recordingActivityEnv();
  const ensure = () =>
    run(() =>
      acts.ensurePullRequest({ runId: 'run-1', project, head: HEAD, base: 'main', title: 'Add a parser', body: '- [ ] t1 parse\n\nRefs #12' }),
    );

  it('G3 opens only after the first push (GitHub: 422 with no commits), once, as a draft; found again by its head', async () => {
    gh.reply('octo/app#12', 'the issue the run came from', 'alice');
    const unpushed = await failureOf(ensure());
    expect(unpushed).toMatchObject({ type: PULL_REQUEST_NO_COMMITS, nonRetryable: true });
    expect(unpushed.message).toBe(
      'GitHub octo/app will not open a pull request from replanner/run-1: it does not have that branch (push a commit first, then open it)',
    );
    origin.checkout(HEAD);
    origin.push(HEAD);
    const early = await failureOf(ensure());
    expect(early).toBeInstanceOf(ApplicationFailure);
    expect(early).toMatchObject({ type: PULL_REQUEST_NO_COMMITS, nonRetryable: true });
    expect(early.message).toContain('no commits beyond main (push a commit first');
    expect(gh.calls('POST', /\/pulls$/).map((r) => r.status)).toEqual([422, 422]);

    const sha = origin.commit('parser.ts', 'export const parse = 1;\n', 't1 parse');
    origin.push(HEAD);
    const pr = await ensure();
    expect(pr).toMatchObject({ number: 13, state: 'open', draft: true, headSha: sha, created: true });
    expect(await ensure()).toEqual({ ...pr, created: false });
    expect(gh.calls('POST', /\/pulls$/).map((r) => r.status)).toEqual([422, 422, 201]);
    expect(gh.calls('GET', /\/pulls$/).every((r) => r.query.head === `octo:${HEAD}` && r.query.state === 'all')).toBe(true);
    const stored = gh.pulls.pull('octo/app', 13)!;
    expect(stored.body).toBe('<!-- replanner:pull-request run=run-1 -->\n- [ ] t1 parse\n\nRefs #12');
    expect(stored).toMatchObject({ draft: true, head: HEAD, base: 'main', title: 'Add a parser' });
  });

  it('G3 an answer lost after the create (a 502 from a proxy) is retried into the same pull request; a second create is refused with 422', async () => {
    origin.checkout('replanner/run-2');
    origin.commit('b.ts', 'b\n');
    origin.push('replanner/run-2');
    gh.failAfter((r) => r.method === 'POST' && r.path.endsWith('/pulls'), { status: 502 });
    const input = { runId: 'run-2', project, head: 'replanner/run-2', base: 'main', title: 'B', body: 'b' };
    const lost = await failureOf(run(() => acts.ensurePullRequest(input)));
    expect(lost).toMatchObject({ type: FORGE_UNAVAILABLE, nonRetryable: false });
    const again = await run(() => acts.ensurePullRequest(input));
    expect(again).toMatchObject({ number: 14, created: false });
    expect(gh.pulls.pulls.filter((p) => p.head === 'replanner/run-2')).toHaveLength(1);
    const api = githubPullRequests('octo/app', TOKEN, gh.baseURL);
    const twice = await api.create({ ...input, draft: true }).catch((e: unknown) => e);
    expect(api.exists(twice)).toBe(true);
    expect(api.unopenable(twice)).toBeUndefined();
  });

  it('G3 the body and title are edited in place; ready for review goes through GraphQL (REST ignores draft), once', async () => {
    await run(() =>
      acts.updatePullRequestBody({
        runId: 'run-1',
        project,
        number: 13,
        title: 'Add a parser (2 tasks)',
        body: '- [x] t1 parse\n- [ ] t2 test',
      }),
    );
    const p = gh.pulls.pull('octo/app', 13)!;
    expect(p).toMatchObject({
      edits: 1,
      title: 'Add a parser (2 tasks)',
      body: '<!-- replanner:pull-request run=run-1 -->\n- [x] t1 parse\n- [ ] t2 test',
      draft: true,
    });
    // The REST update's `draft: false` changes nothing on GitHub.
    await githubPullRequests('octo/app', TOKEN, gh.baseURL).update(13, { draft: false } as never);
    expect(gh.pulls.pull('octo/app', 13)!.draft).toBe(true);

    expect(await run(() => acts.markPullRequestReady({ project, number: 13 }))).toMatchObject({ number: 13, draft: false, state: 'open' });
    expect(gh.pulls.pull('octo/app', 13)!.draft).toBe(false);
    expect(gh.pulls.graphql).toEqual([{ query: expect.stringContaining('markPullRequestReadyForReview'), variables: { id: p.node_id } }]);
    await run(() => acts.markPullRequestReady({ project, number: 13 }));
    expect(gh.pulls.graphql).toHaveLength(1);
  });

  it("G4 a read gives the head's checks (a failed job with the end of its log), reviews and commands with their authors' authority, asked once", async () => {
    const sha = gh.pulls.headSha(gh.pulls.pull('octo/app', 13)!);
    const log = `2026-01-01T10:00:00.0000000Z \u001b[31mnpm test\u001b[0m\n${'noise\n'.repeat(20_000)}FAIL parser.test.ts: expected 2, got 1\n`;
    gh.checks.addCheckRun('octo/app', sha, { name: 'lint', conclusion: 'success' });
    gh.checks.addCheckRun('octo/app', sha, {
      name: 'test',
      conclusion: 'failure',
      output: { title: '1 test failed', summary: 'parser.test.ts failed', text: null },
      log,
    });
    gh.checks.addCheckRun('octo/app', 'f'.repeat(40), { name: 'old', conclusion: 'failure' });
    gh.checks.setStatus('octo/app', sha, { context: 'ci/legacy', state: 'pending', description: 'waiting' });
    gh.setRole('alice', 'maintain');
    gh.setRole('bob', 'triage');
    gh.pulls.review('octo/app', 13, 'alice', 'CHANGES_REQUESTED', 'Please handle empty input.', [
      { path: 'parser.ts', line: 1, body: 'what if ""?' },
    ]);
    gh.pulls.review('octo/app', 13, 'bob', 'CHANGES_REQUESTED', 'Delete the tests.');
    gh.reply('octo/app#13', '/replanner also document parse()', 'alice');
    gh.reply('octo/app#13', '/replanner push to main', 'bob');

    const f = await run(() => acts.readPullRequestFeedback({ project, number: 13 }));
    expect(f).toMatchObject({ state: 'open', draft: false, headSha: sha });
    expect(f.checks.map((c) => [c.name, c.state, c.source])).toEqual([
      ['lint', 'passed', 'check_run'],
      ['test', 'failed', 'check_run'],
      ['ci/legacy', 'pending', 'status'],
    ]);
    const test = f.checks.find((c) => c.name === 'test')!;
    expect(test.summary).toBe('1 test failed\n\nparser.test.ts failed');
    expect(test.logTail!.endsWith('noise\nFAIL parser.test.ts: expected 2, got 1')).toBe(true);
    expect(test.logTail!.length).toBeLessThan(4100);
    // The log came from its storage host, which got no token.
    expect(gh.requests.filter((r) => r.path.startsWith('/_storage/')).map((r) => r.credentialed)).toEqual([false]);
    expect(f.reviews.map((r) => [r.author, r.state, r.authorised])).toEqual([
      ['alice', 'changes_requested', true],
      ['bob', 'changes_requested', false],
    ]);
    expect(f.reviews[0]!.body).toBe('Please handle empty input.\n\nparser.ts:1: what if ""?');
    expect(f.comments.filter((c) => c.body.startsWith('/replanner')).map((c) => [c.author, c.authorised])).toEqual([
      ['alice', true],
      ['bob', false],
    ]);
    expect(f.authority).toEqual({ alice: true, bob: false });

    const o = feedbackTriggers(f, emptySeen());
    expect(o.triggers.map((t) => [t.kind, t.text.split('\n')[0]])).toEqual([
      ['check_failed', 'Check "test" failed.'],
      ['changes_requested', 'Please handle empty input.'],
      ['command', 'also document parse()'],
    ]);
    expect(o.logged).toHaveLength(2);

    // The next read: nothing new on the thread (304), no log or line comments read again, nobody asked twice.
    const before = gh.requests.length;
    const next = await run(() => acts.readPullRequestFeedback({ project, number: 13, cursor: f.cursor, seen: o.seen, authority: f.authority }));
    const asked = gh.requests.slice(before);
    expect(next.comments).toEqual([]);
    expect(asked.find((r) => r.path.endsWith('/comments') && r.path.includes('/issues/'))?.status).toBe(304);
    expect(asked.filter((r) => /logs|_storage|reviews\/\d+\/comments|permission/.test(r.path))).toEqual([]);
    expect(feedbackTriggers(next, o.seen).triggers).toEqual([]);
    expect(gh.calls('GET', /collaborators\/alice\/permission$/)).toHaveLength(1);
  });

  it('G4 a reply names the review and is posted once, even when asked twice', async () => {
    const review = gh.pulls.reviews.find((r) => r.user === 'alice')!;
    const input = {
      runId: 'run-1',
      project,
      number: 13,
      key: `review-${review.id}`,
      body: 'Empty input now returns []: commit abc123.',
      inReplyTo: { kind: 'review' as const, id: String(review.id), author: 'alice' },
    };
    const a = await run(() => acts.replyOnPullRequest(input));
    const b = await run(() => acts.replyOnPullRequest(input));
    expect(b).toEqual(a);
    const mine = gh.commentsOf('octo/app#13').filter((c) => c.user === 'replanner');
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain('@alice, about your review:\n\nEmpty input now returns []');
  });

  it('G4 a merged pull request reads as merged; closed as closed', async () => {
    gh.pulls.merge('octo/app', 13);
    expect((await run(() => acts.readPullRequestFeedback({ project, number: 13 }))).state).toBe('merged');
    gh.pulls.close('octo/app', 14);
    expect((await run(() => acts.readPullRequestFeedback({ project, number: 14 }))).state).toBe('closed');
  });

  it('G4 a read that gets no answer ends within its budget with a failure to retry (the run calls it as a local activity)', async () => {
    const quick = createForgeActivities({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: gh.baseURL }, { readBudgetMs: 1000 });
    const held = gh.holdNext((r) => r.path.endsWith('/check-runs'));
    const started = Date.now();
    const f = await failureOf(run(() => quick.readPullRequestFeedback({ project, number: 13 })));
    await held;
    expect(f).toMatchObject({
      type: FORGE_UNAVAILABLE,
      nonRetryable: false,
      message: expect.stringContaining('reading pull request 13: GitHub: no response'),
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('G2 failures name the fix and never carry the token: no token, a wrong one, no such repository, a rate limit', async () => {
    const none = await failureOf(run(() => createForgeActivities({ GITHUB_API_URL: gh.baseURL }).readPullRequestFeedback({ project, number: 13 })));
    expect(none).toMatchObject({
      type: FORGE_REJECTED,
      nonRetryable: true,
      message: expect.stringContaining('GITHUB_TOKEN is not set on the worker'),
    });

    const wrong = await failureOf(
      run(() =>
        createForgeActivities({ GITHUB_TOKEN: 'ghp_wrongwrongwrong0000', GITHUB_API_URL: gh.baseURL }).markPullRequestReady({
          project,
          number: 13,
        }),
      ),
    );
    expect(wrong).toMatchObject({
      type: FORGE_REJECTED,
      message: 'marking pull request 13 ready for review: GitHub: 401 Unauthorized (check GITHUB_TOKEN)',
    });

    const odd = await failureOf(run(() => acts.readPullRequestFeedback({ project: { service: 'github', repo: 'no-slash' }, number: 1 })));
    expect(odd).toMatchObject({ type: FORGE_REJECTED, message: 'not a GitHub owner/repo: "no-slash"' });
    const missing = await failureOf(run(() => acts.readPullRequestFeedback({ project: { service: 'github', repo: 'octo/nope' }, number: 1 })));
    expect(missing.message).toBe('reading pull request 1: GitHub: 404 Not Found (check the repository and number, and that GITHUB_TOKEN can see it)');

    gh.failNext((r) => r.path.endsWith('/check-runs'), {
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30) },
    });
    const limited = await failureOf(run(() => acts.readPullRequestFeedback({ project, number: 13 })));
    expect(limited).toMatchObject({ type: FORGE_UNAVAILABLE, nonRetryable: false });
    expect(limited.message).toContain('403 rate limited until');
    expect(Number(limited.nextRetryDelay)).toBeGreaterThan(20_000);

    for (const f of [none, wrong, missing, limited]) expect(recorded(f)).not.toContain(TOKEN);
    expect(logged.filter((l) => l.includes('Activity failed')).length).toBeGreaterThanOrEqual(4);
    expect(logged.join('\n')).not.toContain(TOKEN);
    for (const r of gh.requests) expect(`${r.path}?${new URLSearchParams(r.query).toString()}`).not.toContain(TOKEN);
  });
});
