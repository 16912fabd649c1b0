// X10 through the `replanner` CLI: `run --github owner/repo#N` / `--gitlab group/project!N|#N` set the
// run's notifications (a bad target exits 2 before anything starts); `status` shows the Notifications line.
import { cli } from '../support/cli';
import { FakeGitHub } from '../support/fake-github';
import { startHarness, uniqueId, until, type Harness } from '../support/harness';
import { scriptScenario } from '../support/scenario';
import { checklistMarker } from '../../src/domain/notifications';
import type { RunStatus } from '../../src/workflows/messages';

const TOKEN = 'ghp_e2eTOKENabcdefghijklmnopqrstuvwxyz0123';
let h: Harness;
let gh: FakeGitHub;
const saved = { ...process.env };
beforeAll(async () => {
  gh = await FakeGitHub.start(TOKEN);
  // The in-process worker reads its token and API URL at each call, like a worker process would.
  process.env.GITHUB_TOKEN = TOKEN;
  process.env.GITHUB_API_URL = gh.baseURL;
  h = await startHarness();
  process.env.REPLANNER_TASK_QUEUE = h.taskQueue;
});
afterAll(async () => {
  process.env = saved;
  await h?.stop();
  await gh?.stop();
});

describe('replanner run --github / --gitlab (X10)', () => {
  it('X10 a malformed --github or --gitlab, or both at once, exits 2 naming the form; nothing starts', async () => {
    const before = h.fake.requests.length;
    const bad = async (...flags: string[]) => {
      const r = await cli('run', 'write files', '--workspace', h.workspace(), ...flags);
      expect(r.code).toBe(2);
      return r.err;
    };
    expect(await bad('--github', 'octo/app')).toContain('--github needs owner/repo#NUMBER');
    expect(await bad('--github', 'octo/app#0')).toContain('is not an issue number');
    expect(await bad('--gitlab', 'grp/proj')).toContain('--gitlab needs group/project!NUMBER (a merge request) or group/project#NUMBER (an issue)');
    expect(await bad('--github', 'octo/app#1', '--gitlab', 'grp/proj!2')).toContain('give --github or --gitlab, not both');
    expect(h.fake.requests.length).toBe(before);
  });

  it('X10 X11 run --github octo/app#5: the checklist comment is on issue 5 and `status` shows the Notifications line', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'a', title: 'write a', files: { 'a.txt': 'A' } }] });
    const id = uniqueId('flag');
    const r = await cli('run', 'write the file a.txt', '--workspace', h.workspace(), '--id', id, '--github', 'octo/app#5');
    expect(r.code).toBe(0);
    const final = await until('the run to end', async () => {
      const s = JSON.parse((await cli('status', id, '--json')).out) as RunStatus;
      return s.status === 'DONE' ? s : undefined;
    });
    expect(final.notifications).toMatchObject({ target: 'GitHub octo/app#5', failed: 0 });
    const comments = gh.commentsOf('octo/app#5').filter((c) => c.body.includes(checklistMarker(id)));
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('- [x] **a**: write a');
    const human = await cli('status', id);
    expect(human.out).toMatch(/^Notifications: \d+ delivered to GitHub octo\/app#5$/m);
    expect(human.out).not.toContain(TOKEN);
  });
});
