// G1–G4 through crashes: the worker process is SIGKILLed at each step of a run that ends in a pull
// request — after a commit before its push, after the push before the pull request is opened
// (GitHub made it, the answer never came), while a failed check is being read, and during the fix
// task. Each time a new worker takes over; in the end there is exactly one pull request, no
// commit twice, the base untouched, and the run is DONE once merged.
import { runOutcome, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { harnessForWorkerProcesses, tempDirsForSuite } from '../support/suite-hooks';
import { startWorkerProcess, type WorkerProc } from '../support/worker-proc';
import { fileTask } from '../support/scenario';
import { commitsAfter, gitIn } from '../support/git-repos';
import { barePlaces, historyPlaces, tokenHits, workspacePlaces } from '../support/token-scan';
import { forgeTranscript, writeTranscript, type TranscriptMark } from '../support/forge-transcript';
import {
  httpWorkspace,
  REPO,
  remoteHead,
  scriptPullRequestRun,
  startForges,
  type Forges,
  startPullRequestRun,
  statusWhen,
} from '../support/pull-request-runs';

jest.setTimeout(600_000);
let h: Harness;
harnessForWorkerProcesses((x) => (h = x));
const tempDir = tempDirsForSuite();
const TOKEN = 'ghs_theKilledWorkersToken0123456789abcd';
const taskQueue = uniqueId('pr-kill');
let forges: Forges;
beforeAll(async () => {
  forges = await startForges(tempDir('git-root'), TOKEN);
});
afterAll(async () => forges?.stop());

const workers: WorkerProc[] = [];
const startWorker = async () => {
  const w = await startWorkerProcess({
    address: temporalAddress(),
    taskQueue,
    llmBaseURL: h.fake.baseURL,
    env: { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: forges.gh.baseURL },
  });
  workers.push(w);
  return w;
};

const marks: TranscriptMark[] = [];
async function kill(w: WorkerProc, when: string): Promise<void> {
  marks.push({ at: Date.now(), text: `the test: worker SIGKILLed ${when}` });
  w.child.kill('SIGKILL');
  expect((await w.exited).signal).toBe('SIGKILL');
}

describe('a run that ends in a pull request, its worker killed at each step', () => {
  it('G1 G2 G3 G4 SIGKILL after a commit, after the push, while a check is read, during the fix task: one pull request, no commit twice, base untouched, DONE', async () => {
    // Each worker reply takes a while, so the fix task is seen running.
    scriptPullRequestRun(h.fake, [fileTask('a'), fileTask('b', ['a'])]);
    h.fake.latencyMs = 0;
    const { gh, git } = forges;
    const t0 = Date.now();
    const { ws, bare, base } = httpWorkspace(tempDir('ws'), forges);
    const pushHeld = git.holdNext((method, p) => method === 'GET' && p.includes('service=git-receive-pack'));
    const createHeld = gh.holdNext((r) => r.method === 'POST' && /\/pulls$/.test(r.path));

    let worker = await startWorker();
    const { runId, handle, branch } = await startPullRequestRun({ client: h.client, taskQueue }, ws, { github: REPO });
    const remoteBranch = () => gitIn(bare, ['branch', '--list', branch]).trim();

    // 1. A commit is made, its push hangs: kill.
    await pushHeld;
    expect(commitsAfter(ws, 'main', branch).length).toBeGreaterThanOrEqual(1);
    expect(remoteBranch()).toBe('');
    await kill(worker, 'after a commit, before its push');
    git.releaseHeld();
    worker = await startWorker();

    // 2. Pushed; GitHub opens the pull request but its answer never comes: kill.
    await createHeld;
    expect(gh.pulls.pulls.filter((p) => p.head === branch)).toHaveLength(1);
    await kill(worker, 'after the push, while GitHub opens the pull request (its answer never comes)');
    gh.release();
    worker = await startWorker();

    // 3. Following; a check fails, and the worker dies while it reads it.
    await statusWhen(handle, 'the run to follow its pull request', (x) => x.status === 'FOLLOWING', 240_000);
    const readHeld = gh.holdNext((r) => r.method === 'GET' && /check-runs/.test(r.path));
    gh.checks.addCheckRun(REPO, remoteHead(bare, branch), {
      name: 'ci',
      conclusion: 'failure',
      output: { title: 'tests', summary: 'test_parse failed', text: null },
    });
    await readHeld;
    await kill(worker, "while the check's failure is read");
    gh.release();
    h.fake.latencyMs = 1500;
    worker = await startWorker();

    // 4. The fix task runs: kill.
    await statusWhen(handle, 'the fix task to run', (x) => x.tasks.some((t) => t.id === 'add-1' && t.state === 'RUNNING'), 240_000);
    await kill(worker, 'during the fix task');
    h.fake.latencyMs = 0;
    worker = await startWorker();

    await until('the fix to be pushed', async () => (commitsAfter(bare, 'main', branch).length === 3 ? true : undefined), 240_000);
    await statusWhen(handle, 'the run to follow again', (x) => x.status === 'FOLLOWING' && x.git?.pushed === remoteHead(bare, branch), 240_000);
    gh.checks.addCheckRun(REPO, remoteHead(bare, branch), { name: 'ci', conclusion: 'success' });
    const pr = gh.pulls.pulls.find((p) => p.head === branch)!;
    gh.pulls.merge(REPO, pr.number);
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');

    expect(gh.pulls.pulls.filter((p) => p.repo === REPO && p.head === branch)).toHaveLength(1);
    const commits = commitsAfter(bare, 'main', branch);
    const trailers = commits.map((c) => c.taskTrailer);
    expect(trailers).toEqual(['a', 'b', 'add-1']);
    expect(new Set(commits.map((c) => c.sha)).size).toBe(3);
    expect(commitsAfter(ws, 'main', branch).map((c) => c.sha)).toEqual(commits.map((c) => c.sha));
    expect(gitIn(ws, ['rev-parse', 'main']).trim()).toBe(base);
    expect(gitIn(bare, ['rev-parse', 'main']).trim()).toBe(base);
    expect(result.tasks.filter((t) => t.state === 'DONE').map((t) => t.id)).toEqual(['a', 'b', 'add-1']);
    // One decision about the failed check, whatever the kills.
    expect(h.fake.requestsFor('replan_decision').filter((r) => /Feedback on pull request/.test(r.text) && r.status === 200)).toHaveLength(1);
    await kill(worker, 'after the run ended');
    const pushes = git.requests.filter((r) => r.path.includes('git-receive-pack') && r.method === 'POST');
    writeTranscript('A run that ends in a pull request, its worker SIGKILLed at each step (pull-request-kill.test.ts)', {
      "the API server's requests, as it recorded them, and the kills": forgeTranscript(
        gh.requests.filter((r) => r.at >= t0),
        t0,
        marks,
      ),
      figures: [
        `workers started: ${workers.length}; pull requests on the branch: ${gh.pulls.pulls.filter((p) => p.head === branch).length}; POST /pulls: ${gh.calls('POST', /\/pulls$/).filter((r) => r.at >= t0).length}`,
        `commits after main: ${commits.length} (${trailers.join(', ')}), distinct: ${new Set(commits.map((c) => c.sha)).size}; pushes (receive-pack POSTs): ${pushes.length}`,
        `decisions about the failed check that the model answered: 1; run ${result.status} ${((Date.now() - t0) / 1000).toFixed(0)} s after its start`,
      ].join('\n'),
    });
    // G2: the token in none of the workers' logs, the histories, the workspace or the remote.
    const logs = workers.map((w, i) => ({ name: `worker ${i} log`, text: w.output.join('') }));
    const places = [...logs, ...workspacePlaces(ws), ...barePlaces(bare), ...(await historyPlaces(h.client, runId))];
    expect(tokenHits(TOKEN, places)).toEqual([]);
  });
});
