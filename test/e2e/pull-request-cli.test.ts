// G1 / G3 / G5 through the `replanner` CLI, as an outside check drives it: `run "<instruction>"
// --workspace <checkout> --github owner/repo#N --pull-request --id <runId>` opens one pull request
// on `replanner/<runId>` with one commit per DONE task whose Replanner-Task trailer is the task id
// `status --json` shows; `list` and `status` say "following PR #N: …"; the merge ends it DONE. A
// dirty workspace or one that is no git checkout is refused with exit 2, naming why. The token is in
// none of what the CLI printed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cli } from '../support/cli';
import { FakeGitHub } from '../support/fake-github';
import { uniqueId, until, type Harness } from '../support/harness';
import { forgeForSuite, harnessForCli } from '../support/suite-hooks';
import { fileTask } from '../support/scenario';
import { gitIn } from '../support/git-repos';
import { forgeWorkspace, REPO, scriptPullRequestRun } from '../support/pull-request-runs';
import { historyPlaces, tokenHits, workspacePlaces, barePlaces } from '../support/token-scan';
import type { RunStatus } from '../../src/workflows/messages';

const TOKEN = 'ghp_e2ePullRequestToken0123456789abcdef';
let h: Harness;
let gh: FakeGitHub;
const saved = { ...process.env };
forgeForSuite(FakeGitHub, TOKEN, (f) => {
  gh = f;
  process.env.GITHUB_TOKEN = TOKEN;
  process.env.GITHUB_API_URL = f.baseURL;
});
harnessForCli((x) => (h = x));
afterAll(() => {
  process.env = saved;
});

const status = async (runId: string): Promise<RunStatus> => JSON.parse((await cli('status', runId, '--json')).out) as RunStatus;

describe('replanner run --pull-request (G1, G3, G5)', () => {
  it('G1 a workspace with uncommitted changes, or none that is a git checkout, is refused with exit 2; nothing starts', async () => {
    const before = h.fake.requests.length;
    const { ws } = forgeWorkspace(path.join(h.workspace(), 'repo'), gh);
    fs.writeFileSync(path.join(ws, 'README.md'), 'edited\n');
    fs.writeFileSync(path.join(ws, 'scratch.txt'), 'mine\n');
    const dirty = await cli('run', 'write files', '--workspace', ws, '--github', `${REPO}#7`, '--pull-request');
    expect(dirty.code).toBe(2);
    expect(dirty.err).toContain('has changes that are not committed: README.md, scratch.txt');
    const plain = await cli('run', 'write files', '--workspace', h.workspace(), '--branch');
    expect(plain.code).toBe(2);
    expect(plain.err).toContain('is not a git checkout');
    expect(gitIn(ws, ['branch', '--list', 'replanner/*']).trim()).toBe('');
    expect(h.fake.requests.length).toBe(before);
  });

  it('G1 G3 G5 the outside check’s command: one pull request, one commit per DONE task with its id as trailer, following PR #N, merged: DONE', async () => {
    scriptPullRequestRun(h.fake, [fileTask('a'), fileTask('b', ['a'])]);
    const { ws, bare } = forgeWorkspace(path.join(h.workspace(), 'repo'), gh);
    const runId = uniqueId('cli-pr');
    const started = await cli(
      'run',
      'write a, then b',
      '--workspace',
      ws,
      '--github',
      `${REPO}#7`,
      '--pull-request',
      '--id',
      runId,
      '--config',
      configFile({ pullRequest: { pollSeconds: 1 } }),
    );
    expect(started.code).toBe(0);
    const branch = `replanner/${runId}`;
    const s = await until('the run to follow its pull request', async () => {
      const x = await status(runId);
      return x.status === 'FOLLOWING' ? x : undefined;
    });
    const pr = gh.pulls.pulls.find((p) => p.head === branch)!;
    expect(gh.pulls.pulls).toHaveLength(1);
    expect(pr.body).toContain('Refs #7');
    const trailers = gitIn(bare, ['log', '--format=%(trailers:key=Replanner-Task,valueonly)', `main..${branch}`])
      .split('\n')
      .filter((l) => l.trim());
    expect(trailers.sort()).toEqual(
      s.tasks
        .filter((t) => t.state === 'DONE')
        .map((t) => t.id)
        .sort(),
    );
    expect(gitIn(bare, ['log', '--merges', '--format=%H', `main..${branch}`]).trim()).toBe('');
    const human = await cli('status', runId);
    expect(human.out).toContain(`Following PR #${pr.number}`);
    expect(human.out).toContain(`Pull request: PR #${pr.number} (ready for review)`);
    const listed = await cli('list');
    expect(listed.out).toMatch(new RegExp(`${runId}[^\\n]*FOLLOWING[^\\n]*\\n\\t↳ following PR #${pr.number}`));
    gh.pulls.merge(REPO, pr.number);
    const watched = await cli('watch', runId);
    expect(watched.code).toBe(0);
    expect(watched.out).toContain(`PR #${pr.number}`);
    expect((await status(runId)).status).toBe('DONE');
    const printed = [started, human, listed, watched].map((r, i) => ({ name: `cli output ${i}`, text: r.out + r.err }));
    const places = [...printed, ...workspacePlaces(ws), ...barePlaces(bare), ...(await historyPlaces(h.client, runId))];
    expect(tokenHits(TOKEN, places)).toEqual([]);
  });
});

function configFile(c: unknown): string {
  const f = path.join(h.workspace(), 'replanner.yaml');
  fs.writeFileSync(f, JSON.stringify(c));
  return f;
}
