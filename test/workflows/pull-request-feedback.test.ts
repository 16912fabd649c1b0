// G4, the feedback a run that follows its pull request takes beyond checks and reviews: a
// `/replanner <text>` comment from a writer brings a fix commit and a reply naming them, the same
// from a reader nothing. And the replanning loop's limits: the same check failing again on the new
// head is the same problem to the loop detection, so once it has caused as many plan changes as the
// config allows, the run stops trying: no new task, no new commit, and a reply on the pull request
// that says why and what to do; it goes on following, and the merge still ends it DONE.
import { runOutcome, until, type Harness } from '../support/harness';
import { forgeForSuite, harnessForSuite, tempDirsForSuite } from '../support/suite-hooks';
import { fileTask } from '../support/scenario';
import { commitsAfter } from '../support/git-repos';
import { FakeGitHub } from '../support/fake-github';
import { forgeWorkspace, REPO, remoteHead, scriptPullRequestRun, setEnv, startPullRequestRun, statusWhen } from '../support/pull-request-runs';

const TOKEN = 'ghs_theLimitedRunsToken0123456789abcdef';
let h: Harness;
let gh: FakeGitHub;
let restoreEnv: (() => void) | undefined;
forgeForSuite(FakeGitHub, TOKEN, (f) => {
  gh = f;
  restoreEnv = setEnv({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: f.baseURL });
});
harnessForSuite((started) => (h = started));
afterAll(() => restoreEnv?.());
const tempDir = tempDirsForSuite();

const failCheck = (sha: string) =>
  gh.checks.addCheckRun(REPO, sha, { name: 'ci', conclusion: 'failure', output: { title: 'tests', summary: 'test_parse failed', text: null } });

describe('a run that follows its pull request: commands and limits', () => {
  it('G4 a writer’s /replanner comment: one fix commit and a reply to them; a reader’s: nothing', async () => {
    scriptPullRequestRun(h.fake, [fileTask('a')]);
    const { ws, bare } = forgeWorkspace(tempDir('pr-command'), gh);
    const { handle, branch } = await startPullRequestRun(h, ws, { github: REPO });
    await statusWhen(handle, 'the run to follow its pull request', (x) => x.status === 'FOLLOWING');
    const pr = gh.pulls.pulls.find((p) => p.head === branch)!;
    const thread = `${REPO}#${pr.number}`;
    const replies = () => gh.comments.filter((c) => c.thread === thread && c.user === 'replanner');

    gh.setRole('bob', 'read');
    gh.reply(thread, '/replanner delete the tests', 'bob');
    gh.setRole('alice', 'write');
    gh.reply(thread, '/replanner also write the changelog', 'alice');
    await until('the fix to be pushed', async () => (commitsAfter(bare, 'main', branch).length === 2 ? true : undefined));
    await until('the reply to alice', async () => (replies().some((c) => c.body.includes('@alice')) ? true : undefined));
    const prompts = h.fake.requestsFor('replan_decision').filter((r) => /Feedback on pull request/.test(r.text));
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.text).toContain('also write the changelog');
    expect(prompts[0]!.text).not.toContain('delete the tests');
    expect(replies().some((c) => c.body.includes('@bob'))).toBe(false);

    gh.pulls.merge(REPO, pr.number);
    expect((await runOutcome(handle)).status).toBe('DONE');
    expect(commitsAfter(bare, 'main', branch).map((c) => c.taskTrailer)).toEqual(['a', 'add-1']);
  });

  it('G4 the same check failing again past same_trigger_max_count: no new task or commit, a reply that says why; merged: DONE', async () => {
    scriptPullRequestRun(h.fake, [fileTask('a')]);
    const { ws, bare } = forgeWorkspace(tempDir('pr-limits'), gh);
    const config = { replanning: { global: { same_trigger_max_count: 1 } } };
    const { handle, branch } = await startPullRequestRun(h, ws, { github: REPO }, config);
    await statusWhen(handle, 'the run to follow its pull request', (x) => x.status === 'FOLLOWING');
    const pr = gh.pulls.pulls.find((p) => p.head === branch)!;
    const replies = () => gh.comments.filter((c) => c.thread === `${REPO}#${pr.number}`);

    // The first failure: one fix, one commit.
    failCheck(remoteHead(bare, branch));
    await until('the fix to be pushed', async () => (commitsAfter(bare, 'main', branch).length === 2 ? true : undefined));
    await statusWhen(handle, 'the run to follow again', (x) => x.status === 'FOLLOWING' && x.git?.pushed === remoteHead(bare, branch));
    await until('the reply about the fix', async () => (replies().length === 1 ? true : undefined));

    // The same check fails on the new head: the loop detection refuses a second change.
    failCheck(remoteHead(bare, branch));
    await until('the reply that the run will not try again', async () => (replies().length === 2 ? replies()[1] : undefined));
    const refusal = replies()[1]!.body;
    expect(refusal).toContain('The run cannot act on the failed check "ci"');
    expect(refusal).toContain('same_trigger_max_count');
    expect(refusal).toContain('It will not try again by itself');
    const s = await statusWhen(handle, 'the run to follow on', (x) => x.status === 'FOLLOWING');
    expect(s.tasks.map((t) => t.id)).toEqual(['a', 'add-1']);
    expect(commitsAfter(bare, 'main', branch).map((c) => c.taskTrailer)).toEqual(['a', 'add-1']);
    expect(h.fake.requestsFor('replan_decision').filter((r) => /Feedback on pull request/.test(r.text))).toHaveLength(2);

    gh.pulls.merge(REPO, pr.number);
    expect((await runOutcome(handle)).status).toBe('DONE');
    expect(gh.pulls.pulls.filter((p) => p.repo === REPO && p.head === branch)).toHaveLength(1);
  });
});
