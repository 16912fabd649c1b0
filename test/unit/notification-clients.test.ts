// X10 / X11: the comment adapters over the real client libraries (@octokit/rest, @gitbeaker/rest)
// against local servers speaking the GitHub and GitLab REST endpoints: find by marker, create,
// edit in place, and what a refused request tells the failure table (status, headers, no token).
import { githubThread } from '../../src/activities/notifications/github';
import { gitlabThread } from '../../src/activities/notifications/gitlab';
import { checklistMarker, classifyDeliveryFailure } from '../../src/domain/notifications';
import { FakeGitHub } from '../support/fake-github';
import { FakeGitLab } from '../support/fake-gitlab';

const TOKEN = 'ghp_unitTOKEN0123456789abcdefghijklmnop';

describe('X10 X11 GitHub comments through @octokit/rest', () => {
  let gh: FakeGitHub;
  beforeAll(async () => (gh = await FakeGitHub.start(TOKEN)));
  afterAll(async () => gh.stop());

  it('X11 creates, finds by marker (across pages) and edits in place; X10 a 403 reads as status + headers', async () => {
    const t = githubThread({ service: 'github', repo: 'octo/app', kind: 'issue', number: 12 }, TOKEN, gh.baseURL);
    for (let i = 0; i < 120; i++) await t.create(`filler ${i}`);
    const marker = checklistMarker('run-1');
    expect(await t.find(marker)).toBeUndefined();
    const id = await t.create(`${marker}\n## 📋 Execution Plan`);
    expect(await t.find(marker)).toBe(id);
    await t.update(id, `${marker}\n## 📋 Execution Plan (Revised #1)`);
    expect(gh.commentsOf('octo/app#12').find((c) => c.id === id)).toMatchObject({ edits: 1, body: expect.stringContaining('Revised #1') });
    expect(gh.requests.filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(2);

    gh.failNext((r) => r.method === 'POST', { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2000000000' } });
    const err = await t.create('x').then(
      () => undefined,
      (e: unknown) => e,
    );
    const p = t.problemOf(err);
    expect(p).toMatchObject({ status: 403, headers: expect.objectContaining({ 'x-ratelimit-remaining': '0' }) });
    expect(classifyDeliveryFailure({ service: 'github', ...p, nowMs: 1_999_999_990_000 })).toMatchObject({ retryable: true, retryAfterMs: 10_000 });
    expect(JSON.stringify(p)).not.toContain(TOKEN);

    const wrong = githubThread({ service: 'github', repo: 'octo/app', kind: 'issue', number: 12 }, 'ghp_wrong_token_000000', gh.baseURL);
    expect(wrong.problemOf(await wrong.create('x').catch((e: unknown) => e))).toMatchObject({ status: 401 });
  });
});

describe('X10 X11 GitLab notes through @gitbeaker/rest', () => {
  let gl: FakeGitLab;
  beforeAll(async () => (gl = await FakeGitLab.start(TOKEN)));
  afterAll(async () => gl.stop());

  it('X11 a merge request note created, found by marker and edited with PUT; X10 a 403 and a 503 read as their status', async () => {
    const t = gitlabThread({ service: 'gitlab', project: 'grp/sub/proj', kind: 'merge_request', number: 45 }, TOKEN, gl.baseURL);
    const marker = checklistMarker('run-2');
    expect(await t.find(marker)).toBeUndefined();
    const id = await t.create(`${marker}\nplan`);
    expect(await t.find(marker)).toBe(id);
    await t.update(id, `${marker}\nplan 2`);
    expect(gl.notesOf('grp/sub/proj!45')).toEqual([expect.objectContaining({ id, body: `${marker}\nplan 2`, edits: 1 })]);
    expect(gl.requests.map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'PUT']);

    gl.failNext((r) => r.method === 'POST', { status: 403, message: '403 Forbidden' });
    expect(t.problemOf(await t.create('x').catch((e: unknown) => e))).toMatchObject({ status: 403 });
    gl.failNext((r) => r.method === 'POST', { status: 503 });
    const p = t.problemOf(await t.create('x').catch((e: unknown) => e));
    expect(p.status).toBe(503);
    expect(classifyDeliveryFailure({ service: 'gitlab', ...p, nowMs: 0 }).retryable).toBe(true);

    // An issue with more notes than one page: the marker is found on the second page (x-next-page).
    const issue = gitlabThread({ service: 'gitlab', project: 'grp/proj', kind: 'issue', number: 3 }, TOKEN, gl.baseURL);
    for (let i = 0; i < 110; i++) await issue.create(`filler ${i}`);
    const late = await issue.create(`${checklistMarker('run-3')}\nplan`);
    expect(await issue.find(checklistMarker('run-3'))).toBe(late);
    expect(gl.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/issues/3/notes')).length).toBe(2);
    expect(gl.notesOf('grp/proj#3')).toHaveLength(111);
  });
});
