// G3 / G4 / G2 on GitLab: the forge activities (src/activities/forge) through the real
// @gitbeaker/rest client against the local GitLab server (test/support/fake-gitlab.ts), whose
// branches are a real bare git repository: the merge request opens once with the "Draft:" prefix,
// keeps it through edits and loses it when ready; a read gives the newest pipeline's jobs (a failed
// job with the end of its log), who requested changes (Developer or above counts), approvals and
// commands, each member's level asked once per run; replies are posted once; failures name the
// fix and never carry the token.
import { createForgeActivities, type ForgeActivities } from '../../src/activities/forge';
import { emptySeen, feedbackTriggers } from '../../src/domain/pull-request/feedback';
import { feedbackSummary } from '../../src/domain/pull-request/summary';
import { FORGE_REJECTED, FORGE_UNAVAILABLE, PULL_REQUEST_NO_COMMITS, type ForgeProject } from '../../src/domain/pull-request/types';
import { failureOf, recordingActivityEnv } from '../support/activity-env';
import { FakeGitLab } from '../support/fake-gitlab';
import type { TestOrigin } from '../support/fake-git';
import { forgeRepoForSuite } from '../support/suite-hooks';

const TOKEN = 'glpat-forgeUNITtoken0123456789abcdef';
const HEAD = 'replanner/run-1';

describe('G3 G4 the merge request on GitLab through @gitbeaker/rest', () => {
  let gl: FakeGitLab;
  let origin: TestOrigin;
  let acts: ForgeActivities;
  let project: ForgeProject;
  forgeRepoForSuite(FakeGitLab, TOKEN, 'grp/sub/app', (f, o) => {
    [gl, origin] = [f, o];
    project = { service: 'gitlab', project: 'grp/sub/app', url: gl.baseURL };
    acts = createForgeActivities({ GITLAB_TOKEN: TOKEN });
  });
  const { run, logged } = recordingActivityEnv();
  const ensure = () =>
    run(() => acts.ensurePullRequest({ runId: 'run-1', project, head: HEAD, base: 'main', title: 'Add a parser', body: '- [ ] t1 parse' }));

  it('G3 opens once as a draft ("Draft:" title), found again by its source branch; a lost answer is retried into the same one', async () => {
    expect(await failureOf(ensure())).toMatchObject({
      type: PULL_REQUEST_NO_COMMITS,
      message: expect.stringContaining('it does not have that branch'),
    });
    origin.checkout(HEAD);
    origin.commit('parser.ts', 'export const parse = 1;\n');
    origin.push(HEAD);
    gl.failAfter((r) => r.method === 'POST' && r.path.endsWith('/merge_requests'), { status: 502 });
    expect(await failureOf(ensure())).toMatchObject({ type: FORGE_UNAVAILABLE, nonRetryable: false });
    const mr = await ensure();
    expect(mr).toMatchObject({ number: 1, state: 'open', draft: true, created: false, url: 'https://gitlab.example/grp/sub/app/-/merge_requests/1' });
    expect(await ensure()).toEqual(mr);
    expect(gl.calls('POST', /\/merge_requests$/).map((r) => r.status)).toEqual([422, 502]);
    expect(gl.calls('GET', /\/merge_requests$/).every((r) => r.query.source_branch === HEAD && r.query.state === undefined)).toBe(true);
    expect(gl.mrs.mr('grp/sub/app', 1)).toMatchObject({
      title: 'Draft: Add a parser',
      description: '<!-- replanner:pull-request run=run-1 -->\n- [ ] t1 parse',
    });
  });

  it('G3 an edit keeps a draft a draft; ready drops the prefix, once', async () => {
    await run(() => acts.updatePullRequestBody({ runId: 'run-1', project, number: 1, title: 'Add a parser (2 tasks)', body: '- [x] t1 parse' }));
    expect(gl.mrs.mr('grp/sub/app', 1)).toMatchObject({ title: 'Draft: Add a parser (2 tasks)', edits: 1 });
    expect(await run(() => acts.markPullRequestReady({ project, number: 1 }))).toMatchObject({ draft: false, state: 'open' });
    expect(gl.mrs.mr('grp/sub/app', 1)).toMatchObject({ title: 'Add a parser (2 tasks)', edits: 2 });
    await run(() => acts.markPullRequestReady({ project, number: 1 }));
    expect(gl.mrs.mr('grp/sub/app', 1)!.edits).toBe(2);
    await run(() => acts.updatePullRequestBody({ runId: 'run-1', project, number: 1, title: 'Add a parser' }));
    expect(gl.mrs.mr('grp/sub/app', 1)!.title).toBe('Add a parser');
  });

  it("G4 a read gives the newest pipeline's jobs (a failure with its log's end), reviewers who asked for changes, approvals and commands; members asked once", async () => {
    const sha = gl.mrs.sha(gl.mrs.mr('grp/sub/app', 1)!)!;
    gl.mrs.addPipeline('grp/sub/app', sha, [{ name: 'old-test', status: 'failed', log: 'old' }]);
    const log = `\u001b[0Ksection_start:1700000000:step_script\r\u001b[0K\u001b[32;1m$ npm test\u001b[0;m\n${'ok\n'.repeat(30_000)}FAIL parser.test.ts\n\u001b[0Ksection_end:1700000001:step_script\r\u001b[0K`;
    gl.mrs.addPipeline('grp/sub/app', sha, [
      { name: 'lint', status: 'success' },
      { name: 'test', status: 'failed', log },
      { name: 'flaky', status: 'failed', allow_failure: true, log: 'meh' },
    ]);
    gl.setAccessLevel('dave', 40);
    gl.setAccessLevel('erin', 20);
    gl.setAccessLevel('carol', 30);
    gl.reply('grp/sub/app!1', 'Please handle empty input.', 'dave');
    gl.mrs.setReviewer('grp/sub/app', 1, 'dave', 'requested_changes');
    gl.mrs.setReviewer('grp/sub/app', 1, 'erin', 'requested_changes');
    gl.mrs.approve('grp/sub/app', 1, 'carol');
    gl.reply('grp/sub/app!1', '/replanner also document parse()', 'carol');
    gl.reply('grp/sub/app!1', '/replanner push to main', 'erin');

    const f = await run(() => acts.readPullRequestFeedback({ project, number: 1 }));
    expect(f.headSha).toBe(sha);
    // The newest pipeline's jobs only; one allowed to fail is neutral.
    expect(Object.fromEntries(f.checks.map((c) => [c.name, c.state]))).toEqual({ lint: 'passed', test: 'failed', flaky: 'neutral' });
    expect(new Set(f.checks.map((c) => c.source))).toEqual(new Set(['pipeline_job']));
    const test = f.checks.find((c) => c.name === 'test')!;
    expect(test.summary).toBe('failure reason: script_failure');
    expect(test.logTail!.endsWith('ok\nFAIL parser.test.ts')).toBe(true);
    expect(test.logTail).not.toContain('section_');
    expect(gl.calls('GET', /\/jobs\/\d+\/trace$/)).toHaveLength(1);
    expect(f.reviews.map((r) => [r.author, r.state, r.authorised, r.body])).toEqual([
      ['dave', 'changes_requested', true, 'Please handle empty input.'],
      ['erin', 'changes_requested', false, ''],
    ]);
    expect(f.approvedBy).toEqual(['carol']);
    expect(feedbackSummary(f)).toBe('1 of 2 checks passing, changes requested by @dave, approved by @carol');

    const o = feedbackTriggers(f, emptySeen());
    expect(o.triggers.map((t) => [t.kind, 'author' in t ? t.author : '', t.text.split('\n')[0]])).toEqual([
      ['check_failed', '', 'Check "test" failed.'],
      ['changes_requested', 'dave', 'Please handle empty input.'],
      ['command', 'carol', 'also document parse()'],
    ]);
    expect(o.logged).toEqual([expect.stringContaining('@erin may not review'), expect.stringContaining('@erin may not review')]);

    const before = gl.requests.length;
    const next = await run(() => acts.readPullRequestFeedback({ project, number: 1, cursor: f.cursor, seen: o.seen, authority: f.authority }));
    expect(feedbackTriggers(next, o.seen).triggers).toEqual([]);
    expect(gl.requests.slice(before).filter((r) => /trace|members/.test(r.path))).toEqual([]);
    expect(gl.calls('GET', /members\/all\/\d+$/)).toHaveLength(3);
  });

  it('G4 a reply on the thread, once; a merged merge request reads as merged', async () => {
    const input = {
      runId: 'run-1',
      project,
      number: 1,
      key: 'reply-dave',
      body: 'Handled empty input.',
      inReplyTo: { kind: 'review' as const, id: 'rc:dave:1', author: 'dave' },
    };
    const a = await run(() => acts.replyOnPullRequest(input));
    expect(await run(() => acts.replyOnPullRequest(input))).toEqual(a);
    const mine = gl.notesOf('grp/sub/app!1').filter((n) => n.user === 'replanner');
    expect(mine.map((n) => n.body)).toEqual([
      '<!-- replanner:notification run=run-1 key=reply-dave -->\n@dave, about your review:\n\nHandled empty input.',
    ]);
    gl.mrs.merge('grp/sub/app', 1);
    expect((await run(() => acts.readPullRequestFeedback({ project, number: 1 }))).state).toBe('merged');
  });

  it('G2 failures name the fix and carry no token: no token, no such project', async () => {
    const none = await failureOf(
      run(() => createForgeActivities({}).ensurePullRequest({ runId: 'r', project, head: HEAD, base: 'main', title: 't', body: '' })),
    );
    expect(none).toMatchObject({ type: FORGE_REJECTED, message: expect.stringContaining('GITLAB_TOKEN is not set on the worker') });
    const missing = await failureOf(
      run(() => acts.readPullRequestFeedback({ project: { service: 'gitlab', project: 'grp/nope', url: gl.baseURL }, number: 1 })),
    );
    expect(missing.message).toBe('reading merge request 1: GitLab: 404 Not Found (check the project and number, and that GITLAB_TOKEN can see it)');
    expect(logged.join('\n')).not.toContain(TOKEN);
  });
});
