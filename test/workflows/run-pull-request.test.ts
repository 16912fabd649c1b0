// G3 / G4 / G5: a run that ends in a pull request on the fake GitHub (the real Octokit), its
// branch pushed to a real bare repository: opened once as a draft after the first push, ready
// once the tasks are done; a failed check and a writer's review each bring one fix task, one new
// commit on the same branch and a reply; a reader's review changes nothing; the merge ends it DONE.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { statusQuery } from '../../src/workflows/messages';
import { barePlaces, historyPlaces, tokenHits, workspacePlaces } from '../support/token-scan';
import { runOutcome, until, type Harness } from '../support/harness';
import { harnessForSuite, tempDirsForSuite } from '../support/suite-hooks';
import { fileTask } from '../support/scenario';
import { commitsAfter, gitIn } from '../support/git-repos';
import { forgeTranscript, writeTranscript, type TranscriptMark } from '../support/forge-transcript';
import {
  forgeWorkspace,
  httpWorkspace,
  REPO,
  remoteHead,
  scriptPullRequestRun,
  setEnv,
  startForges,
  startPullRequestRun,
  statusWhen,
} from '../support/pull-request-runs';
import type { Forges } from '../support/pull-request-runs';

let h: Harness;
harnessForSuite((started) => (h = started));
const tempDir = tempDirsForSuite();
/** The worker's token: the fake GitHub's and the git server's over HTTP. */
const TOKEN = 'ghs_theWorkersTokenForPushAndApi0123456789';
let forges: Forges;
let restoreEnv: (() => void) | undefined;
beforeAll(async () => {
  forges = await startForges(tempDir('git-root'), TOKEN);
  restoreEnv = setEnv({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: forges.gh.baseURL });
});
afterAll(async () => {
  restoreEnv?.();
  await forges?.stop();
});

/** The reads of the pull request the run's history holds: scheduled activities, and local-activity markers. */
async function readsInHistory(handle: WorkflowHandle): Promise<{ scheduled: number; markers: number }> {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'readPullRequestFeedback').length;
  const markerText = (e: (typeof events)[number]) =>
    Object.values(e.markerRecordedEventAttributes?.details ?? {})
      .flatMap((p) => p.payloads ?? [])
      .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
      .join(' ');
  const markers = events.filter((e) => e.markerRecordedEventAttributes && markerText(e).includes('readPullRequestFeedback')).length;
  return { scheduled, markers };
}

const feedbackPrompts = () => h.fake.requestsFor('replan_decision').filter((r) => /Feedback on pull request/.test(r.text));

describe('a run that ends in a pull request', () => {
  it('G3 G4 G5 draft then ready; a failed check and a writer’s review each: one fix task, one commit, a reply; a reader’s review: nothing; merged: DONE', async () => {
    const { gh } = forges;
    const t0 = Date.now();
    const marks: TranscriptMark[] = [];
    const mark = (text: string) => marks.push({ at: Date.now(), text });
    scriptPullRequestRun(h.fake, [fileTask('a'), fileTask('b', ['a'])]);
    const { ws, bare } = forgeWorkspace(tempDir('pr'), gh);
    const { handle, branch } = await startPullRequestRun(h, ws, { github: REPO });
    let s = await statusWhen(handle, 'the run to follow its pull request', (x) => x.status === 'FOLLOWING');
    const pr = gh.pulls.pulls.find((p) => p.head === branch)!;
    expect(gh.pulls.pulls.filter((p) => p.repo === REPO)).toHaveLength(1);
    expect(pr).toMatchObject({ base: 'main', draft: false, state: 'open' });
    expect(gh.calls('POST', /\/pulls$/)).toHaveLength(1);
    // Opened as a draft (the create asked for one), made ready through GraphQL once.
    expect(gh.calls('POST', /\/pulls$/)[0]!.body).toMatchObject({ draft: true, head: branch, base: 'main' });
    expect(gh.pulls.graphql.filter((q) => q.query.includes('markPullRequestReadyForReview'))).toHaveLength(1);
    expect(pr.body).toContain('write a');
    expect(commitsAfter(bare, 'main', branch).map((c) => c.taskTrailer)).toEqual(['a', 'b']);
    expect(s.waiting).toMatch(new RegExp(`^following PR #${pr.number}`));
    // The reads are ordinary activities (a local one is dropped when a worker with a small cache evicts the run).
    await until('a read of the pull request in the history', async () => ((await readsInHistory(handle)).scheduled > 0 ? true : undefined));
    expect((await readsInHistory(handle)).markers).toBe(0);

    // A failing check on the head: one fix task, one new commit on the same branch, a reply.
    const head1 = remoteHead(bare, branch);
    mark(`the test: check "ci" fails on ${head1.slice(0, 7)}`);
    gh.checks.addCheckRun(REPO, head1, {
      name: 'ci',
      conclusion: 'failure',
      output: { title: 'tests', summary: 'test_parse failed: expected 2, got 3', text: null },
    });
    await until('the fix of the check to be pushed', async () => (commitsAfter(bare, 'main', branch).length === 3 ? true : undefined));
    expect(feedbackPrompts()).toHaveLength(1);
    expect(feedbackPrompts()[0]!.text).toContain('test_parse failed: expected 2, got 3');
    expect(commitsAfter(bare, 'main', branch).map((c) => c.taskTrailer)).toEqual(['a', 'b', 'add-1']);
    expect(commitsAfter(bare, 'main', branch)[2]!.parents[0]).toBe(head1);
    s = await statusWhen(
      handle,
      'the run to follow again after the fix',
      (x) => x.status === 'FOLLOWING' && x.git?.pushed === remoteHead(bare, branch),
    );
    const replies = () => gh.comments.filter((c) => c.thread === `${REPO}#${pr.number}`);
    await until('the reply about the check', async () => (replies().some((c) => c.body.includes('failed check "ci"')) ? true : undefined));
    mark(`the test: check "ci" passes on ${remoteHead(bare, branch).slice(0, 7)}`);
    gh.checks.addCheckRun(REPO, remoteHead(bare, branch), { name: 'ci', conclusion: 'success' });
    await statusWhen(handle, 'the check to pass', (x) => /1 of 1 checks? passing/.test(x.waiting ?? ''));

    // A writer requests changes: a new commit and a reply naming them.
    gh.setRole('alice', 'write');
    mark('the test: alice (may write) requests changes: "Please also write fix notes."');
    gh.pulls.review(REPO, pr.number, 'alice', 'CHANGES_REQUESTED', 'Please also write fix notes.');
    await until('the fix of the review to be pushed', async () => (commitsAfter(bare, 'main', branch).length === 4 ? true : undefined), 120_000);
    await until('the reply to alice', async () => (replies().some((c) => c.body.includes('@alice')) ? true : undefined));
    expect(feedbackPrompts()).toHaveLength(2);
    expect(feedbackPrompts()[1]!.text).toContain('Please also write fix notes.');

    // A reader requests changes: nothing happens.
    gh.setRole('bob', 'read');
    mark('the test: bob (may only read) requests changes: "Delete everything."');
    gh.pulls.review(REPO, pr.number, 'bob', 'CHANGES_REQUESTED', 'Delete everything.');
    const reads = () => gh.calls('GET', new RegExp(`/pulls/${pr.number}/reviews$`)).length;
    const readsBefore = reads();
    await until('two more reads of the reviews', async () => (reads() >= readsBefore + 2 ? true : undefined));
    expect(feedbackPrompts()).toHaveLength(2);
    expect(commitsAfter(bare, 'main', branch)).toHaveLength(4);
    expect(h.fake.requestsFor('replan_decision').some((r) => r.text.includes('Delete everything'))).toBe(false);

    // The merge ends the run DONE.
    const mergedAt = Date.now();
    mark('the test: the pull request is merged');
    gh.pulls.merge(REPO, pr.number);
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');
    writeTranscript('A run that ends in a GitHub pull request (run-pull-request.test.ts, G3 G4 G5)', {
      "the API server's requests, as it recorded them": forgeTranscript(
        gh.requests.filter((r) => r.at >= t0),
        t0,
        marks,
      ),
      "the pull request's comments as they stand": replies()
        .map((c) => `${c.user} (${c.edits} edits):\n${c.body}`)
        .join('\n\n'),
      "the pull request's body as it stands": pr.body,
      'the commits on its branch': commitsAfter(bare, 'main', branch)
        .map((c) => `${c.sha.slice(0, 7)} ${c.subject} (Replanner-Task: ${c.taskTrailer})`)
        .join('\n'),
    });
    expect(Date.now() - mergedAt).toBeLessThan(30_000);
    expect(gh.pulls.pulls.filter((p) => p.repo === REPO)).toHaveLength(1);
    const trailers = commitsAfter(bare, 'main', branch).map((c) => c.taskTrailer);
    expect(new Set(trailers).size).toBe(trailers.length);
    expect(trailers.sort()).toEqual(
      result.tasks
        .filter((t) => t.state === 'DONE')
        .map((t) => t.id)
        .sort(),
    );
  });

  it('G2 pushed over HTTP with the worker token through the credential helper; base untouched; the token nowhere', async () => {
    const { gh, git } = forges;
    scriptPullRequestRun(h.fake, [fileTask('a'), fileTask('b', ['a'])]);
    const { ws, bare, base: baseOnRemote } = httpWorkspace(tempDir('ws'), forges);
    const { runId, handle, branch } = await startPullRequestRun(h, ws, { github: REPO });
    const following = await statusWhen(handle, 'the run to follow its pull request', (x) => x.status === 'FOLLOWING');
    // The remote has the run's branch at its head; its main is untouched.
    expect(gitIn(bare, ['rev-parse', branch]).trim()).toBe(following.git!.head);
    expect(following.git!.pushed).toBe(following.git!.head);
    expect(gitIn(bare, ['rev-parse', 'main']).trim()).toBe(baseOnRemote);
    expect(commitsAfter(bare, 'main', branch).map((c) => c.taskTrailer)).toEqual(['a', 'b']);
    // The pushes used the token (Basic auth of x-access-token), and every receive-pack was authorised.
    const receive = git.requests.filter((r) => r.path.includes('git-receive-pack') && r.method === 'POST');
    expect(receive.length).toBeGreaterThanOrEqual(1);
    expect(receive.every((r) => r.authorised && r.user === 'x-access-token')).toBe(true);
    gh.pulls.merge(REPO, gh.pulls.pulls.find((p) => p.head === branch)!.number);
    expect((await runOutcome(handle)).status).toBe('DONE');
    // The token is nowhere it must not be.
    const status = await handle.query(statusQuery);
    const places = [
      ...workspacePlaces(ws),
      ...barePlaces(bare),
      ...(await historyPlaces(h.client, runId)),
      { name: 'status', text: JSON.stringify(status) },
    ];
    expect(places.filter((p) => p.name.startsWith(`history run-${runId}`)).length).toBeGreaterThanOrEqual(5); // the run, its phases and tasks
    expect(tokenHits(TOKEN, places)).toEqual([]);
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).not.toContain('credential');
  });
});
