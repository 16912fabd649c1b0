// G3 / G4 / G5 on GitLab (the fake GitLab, the real gitbeaker): the run's merge request opens once
// as "Draft:" after the first push to a real bare repository and loses the prefix when the tasks
// are done; a failed pipeline job brings one fix task and one new commit on the same branch; a
// Developer's request for changes a new commit and a reply; a Reporter's nothing; merged: DONE.
import { FakeGitLab } from '../support/fake-gitlab';
import { runOutcome, until, type Harness } from '../support/harness';
import { harnessForSuite, tempDirsForSuite } from '../support/suite-hooks';
import { fileTask } from '../support/scenario';
import { bareOrigin, commitsAfter, gitWorkspace } from '../support/git-repos';
import { remoteHead, scriptPullRequestRun, setEnv, startPullRequestRun, statusWhen } from '../support/pull-request-runs';

let h: Harness;
harnessForSuite((started) => (h = started));
const tempDir = tempDirsForSuite();
const PROJECT = 'grp/app';
let gl: FakeGitLab;
let restoreEnv = () => undefined as void;
afterAll(async () => {
  restoreEnv();
  await gl?.stop();
});

const feedbackPrompts = () => h.fake.requestsFor('replan_decision').filter((r) => /Feedback on merge request/.test(r.text));

describe('a run that ends in a merge request', () => {
  it('G3 G4 G5 "Draft:" then ready; a failed job and a Developer’s request for changes each: one commit and a reply; a Reporter’s: nothing; merged: DONE', async () => {
    gl = await FakeGitLab.start('glpat-theWorkersToken0123456789');
    restoreEnv = setEnv({ GITLAB_TOKEN: gl.token, GITLAB_URL: gl.baseURL });
    // The model names a retry: feedback on a merge request still adds a task (never reruns a pushed one).
    scriptPullRequestRun(h.fake, [fileTask('a'), fileTask('b')], { replan_type: 'retry' });
    const ws = gitWorkspace(tempDir('ws'));
    const bare = bareOrigin(ws);
    gl.useGitRepo(PROJECT, bare);
    const { handle, branch } = await startPullRequestRun(h, ws, { gitlab: PROJECT });
    const following = await statusWhen(handle, 'the run to follow its merge request', (x) => x.status === 'FOLLOWING');
    expect(gl.mrs.mrs).toHaveLength(1);
    const mr = gl.mrs.mrs[0]!;
    expect(mr).toMatchObject({ source_branch: branch, target_branch: 'main', state: 'opened' });
    expect(gl.calls('POST', /merge_requests$/)).toHaveLength(1);
    expect(gl.calls('POST', /merge_requests$/)[0]!.body!.title).toMatch(/^Draft: /);
    expect(mr.title).not.toMatch(/^Draft/i);
    expect(following.waiting).toMatch(new RegExp(`^following MR !${mr.iid}`));
    expect(
      commitsAfter(bare, 'main', branch)
        .map((c) => c.taskTrailer)
        .sort(),
    ).toEqual(['a', 'b']);

    // A failed job on the head: one fix task, one new commit on the same branch.
    const head1 = remoteHead(bare, branch);
    gl.mrs.addPipeline(PROJECT, head1, [{ name: 'unit', status: 'failed', log: 'FAIL parse.test.js: expected [] got null' }], branch);
    await until('the fix of the job to be pushed', async () => (commitsAfter(bare, 'main', branch).length === 3 ? true : undefined));
    expect(feedbackPrompts()).toHaveLength(1);
    expect(feedbackPrompts()[0]!.text).toContain('expected [] got null');
    expect(commitsAfter(bare, 'main', branch)[2]).toMatchObject({ taskTrailer: 'add-1', parents: [head1] });
    await statusWhen(handle, 'the run to follow again', (x) => x.status === 'FOLLOWING' && x.git?.pushed === remoteHead(bare, branch));
    gl.mrs.addPipeline(PROJECT, remoteHead(bare, branch), [{ name: 'unit', status: 'success' }], branch);

    // A Developer requests changes: a commit and a reply; a Reporter's request changes nothing.
    gl.setAccessLevel('carol', 30);
    gl.reply(`${PROJECT}!${mr.iid}`, 'Please also cover empty input.', 'carol');
    gl.mrs.setReviewer(PROJECT, mr.iid, 'carol', 'requested_changes');
    await until('the fix of the review to be pushed', async () => (commitsAfter(bare, 'main', branch).length === 4 ? true : undefined));
    await until('the reply to carol', async () => (gl.notesOf(`${PROJECT}!${mr.iid}`).some((n) => n.body.includes('@carol')) ? true : undefined));
    expect(feedbackPrompts()[1]!.text).toContain('Please also cover empty input.');
    gl.setAccessLevel('dan', 20);
    gl.reply(`${PROJECT}!${mr.iid}`, 'Rewrite it all.', 'dan');
    gl.mrs.setReviewer(PROJECT, mr.iid, 'dan', 'requested_changes');
    const reads = () => gl.calls('GET', /\/reviewers$/).length;
    const before = reads();
    await until('two more reads of the reviewers', async () => (reads() >= before + 2 ? true : undefined));
    expect(feedbackPrompts()).toHaveLength(2);
    expect(commitsAfter(bare, 'main', branch)).toHaveLength(4);

    gl.mrs.merge(PROJECT, mr.iid);
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');
    expect(gl.mrs.mrs).toHaveLength(1);
    const trailers = commitsAfter(bare, 'main', branch).map((c) => c.taskTrailer);
    expect(new Set(trailers).size).toBe(4);
  });
});
