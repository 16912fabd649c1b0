// G2: a run that pushes its branch: to a git server over HTTP that takes only the worker's token
// (git's own http-backend behind Basic auth), never forced, never to the base, and the token is
// found nowhere afterwards: not in the workspace (its .git and the run's records), git's settings,
// the remote repository, the run's histories or its status.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { statusQuery } from '../../src/workflows/messages';
import { FAST, runOutcome, type Harness } from '../support/harness';
import { harnessForSuite, tempDirsForSuite } from '../support/suite-hooks';
import { fileTask, scriptScenario } from '../support/scenario';
import { startRun } from '../support/start-run';
import { commitsAfter, gitIn, gitWorkspace } from '../support/git-repos';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http';
import { barePlaces, historyPlaces, tokenHits, workspacePlaces } from '../support/token-scan';

let h: Harness;
harnessForSuite((started) => (h = started));
const tempDir = tempDirsForSuite();
const TOKEN = 'ghs_pushTokenOfTheWorker0123456789';
let server: GitHttpServer;
let root: string;

beforeAll(async () => {
  root = tempDir('git-root');
  server = await startGitHttpServer(root, TOKEN);
  process.env.GITHUB_TOKEN = TOKEN;
});
afterAll(async () => {
  delete process.env.GITHUB_TOKEN;
  await server?.stop();
});

describe('a run that pushes its branch', () => {
  it('G2 pushed over HTTP with the worker token through the credential helper; base untouched; the token nowhere', async () => {
    scriptScenario(h.fake, { tasks: [fileTask('a'), fileTask('b', ['a'])] });
    const bare = path.join(root, 'app.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
    const ws = gitWorkspace(tempDir('ws'));
    gitIn(ws, ['push', '-q', bare, 'main']);
    gitIn(ws, ['remote', 'add', 'origin', server.urlOf('app')]);
    const baseOnRemote = gitIn(bare, ['rev-parse', 'main']).trim();
    const { runId, handle } = await startRun(h, {
      instruction: 'write a, then b',
      workspace: ws,
      options: FAST,
      config: { pullRequest: { open: true, github: 'octo/app' } },
    });
    const result = await runOutcome(handle);
    const branch = `replanner/${runId}`;
    const status = await handle.query(statusQuery);
    // The remote has the run's branch at its head; its main is untouched.
    expect(gitIn(bare, ['rev-parse', branch]).trim()).toBe(status.git!.head);
    expect(status.git!.pushed).toBe(status.git!.head);
    expect(gitIn(bare, ['rev-parse', 'main']).trim()).toBe(baseOnRemote);
    expect(commitsAfter(bare, 'main', branch).map((c) => c.taskTrailer)).toEqual(['a', 'b']);
    // The pushes used the token (Basic auth of x-access-token), and every receive-pack was authorised.
    const receive = server.requests.filter((r) => r.path.includes('git-receive-pack') && r.method === 'POST');
    expect(receive.length).toBeGreaterThanOrEqual(1);
    expect(receive.every((r) => r.authorised && r.user === 'x-access-token')).toBe(true);
    // The token is nowhere it must not be.
    const places = [
      ...workspacePlaces(ws),
      ...barePlaces(bare),
      ...(await historyPlaces(h.client, runId)),
      { name: 'status', text: JSON.stringify(status) },
    ];
    expect(places.filter((p) => p.name.startsWith(`history run-${runId}`)).length).toBeGreaterThanOrEqual(5); // the run, its phases and tasks
    expect(tokenHits(TOKEN, places)).toEqual([]);
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).not.toContain('credential');
    expect(result.status).toBe('DONE');
  });
});
