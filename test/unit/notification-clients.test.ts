// X10 / X11: the comment adapters over the real client libraries (@octokit/rest, @gitbeaker/rest)
// against local servers speaking the GitHub and GitLab REST endpoints: find by marker, create,
// edit in place, and what a refused request tells the failure table (status, headers, no token).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure, defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { deliveryFailure } from '../../src/activities/notifications';
import { NOTIFICATION_REJECTED, NOTIFICATION_UNAVAILABLE } from '../../src/domain/notifications';
import { githubThread } from '../../src/activities/notifications/github';
import { gitlabThread } from '../../src/activities/notifications/gitlab';
import type { CommentThread } from '../../src/activities/notifications/thread';
import type { UpstreamFailureDetails } from '../../src/domain/failures';
import { checklistMarker, classifyDeliveryFailure } from '../../src/domain/notifications';
import { FakeGitHub } from '../support/fake-github';
import { FakeGitLab } from '../support/fake-gitlab';
import { forgeForSuite } from '../support/suite-hooks';

const TOKEN = 'ghp_unitTOKEN0123456789abcdefghijklmnop';

/** The failure as Temporal records it (history, worker log): every payload decoded to text. */
function recorded(f: ApplicationFailure): string {
  const proto = defaultFailureConverter.errorToFailure(f, defaultPayloadConverter);
  return JSON.stringify(proto, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v));
}
const details = (f: ApplicationFailure) => f.details?.[0] as UpstreamFailureDetails;

/** X11: a marker not found before its comment is created, and found as that comment after; the comment's id. */
async function createFoundByMarker(t: CommentThread, marker: string, body: string): Promise<number> {
  expect(await t.find(marker)).toBeUndefined();
  const id = await t.create(body);
  expect(await t.find(marker)).toBe(id);
  return id;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('X10 X11 GitHub comments through @octokit/rest', () => {
  let gh: FakeGitHub;
  forgeForSuite(FakeGitHub, TOKEN, (f) => (gh = f));

  it('X11 creates, finds by marker (across pages) and edits in place; X10 a 403 reads as status + headers', async () => {
    const t = githubThread({ service: 'github', repo: 'octo/app', kind: 'issue', number: 12 }, TOKEN, gh.baseURL);
    for (let i = 0; i < 120; i++) await t.create(`filler ${i}`);
    const marker = checklistMarker('run-1');
    const id = await createFoundByMarker(t, marker, `${marker}\n## 📋 Execution Plan`);
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

describe('X10 a GitHub request that gets no answer', () => {
  let gh: FakeGitHub;
  forgeForSuite(FakeGitHub, TOKEN, (f) => (gh = f));

  it('X10 the marker search (every page) gives up at the request limit instead of waiting for the activity to time out', async () => {
    const t = githubThread({ service: 'github', repo: 'octo/app', kind: 'issue', number: 5 }, TOKEN, gh.baseURL, 300);
    const held = gh.holdNext((r) => r.method === 'GET' && r.path.endsWith('/comments'));
    const started = Date.now();
    const err = await t.find(checklistMarker('run-9')).catch((e: unknown) => e);
    await held;
    // No response: an outage the retry table retries.
    const p = t.problemOf(err);
    expect(p.status).toBeUndefined();
    expect(classifyDeliveryFailure({ service: 'github', ...p, nowMs: Date.now() })).toMatchObject({ kind: 'outage', retryable: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('X10 X11 GitLab notes through @gitbeaker/rest', () => {
  let gl: FakeGitLab;
  forgeForSuite(FakeGitLab, TOKEN, (f) => (gl = f));

  it('X11 a merge request note created, found by marker and edited with PUT; X10 a 403 and a 503 read as their status', async () => {
    const t = gitlabThread({ service: 'gitlab', project: 'grp/sub/proj', kind: 'merge_request', number: 45 }, TOKEN, gl.baseURL);
    const marker = checklistMarker('run-2');
    const id = await createFoundByMarker(t, marker, `${marker}\nplan`);
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

describe('X10 S4 the failure a notification activity throws', () => {
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  beforeAll(async () => {
    gh = await FakeGitHub.start(TOKEN);
    gl = await FakeGitLab.start(TOKEN);
  });
  afterAll(async () => {
    await gh.stop();
    await gl.stop();
  });
  const ghTarget = { service: 'github', repo: 'octo/app', kind: 'issue', number: 7 } as const;
  const glTarget = { service: 'gitlab', project: 'grp/proj', kind: 'issue', number: 9 } as const;
  const env = { GITHUB_TOKEN: TOKEN, GITLAB_TOKEN: TOKEN };

  it('X10 a GitHub 403 echoing the token: rejected, status and body in the details, the client error as cause; S4 the token nowhere', async () => {
    const t = githubThread(ghTarget, TOKEN, gh.baseURL);
    gh.failNext((r) => r.method === 'POST', { status: 403, message: `Resource not accessible with token ${TOKEN}` });
    const err = await t.create('x').catch((e: unknown) => e);
    const f = deliveryFailure('github', t.problemOf(err), err, env);
    expect(f.type).toBe(NOTIFICATION_REJECTED);
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toBe("GitHub: 403 Forbidden (check GITHUB_TOKEN's scope)");
    expect(details(f)).toMatchObject({ upstream: 'github', kind: 'access_rejected', retryable: false, status: 403 });
    expect(details(f).body).toContain('Resource not accessible with token [redacted]');
    expect(f.cause?.name).toBe('HttpError');
    expect(recorded(f)).not.toContain(TOKEN);
  });

  it('X10 a GitHub 403 with a spent rate limit: retried at its reset (nextRetryDelay), kind rate_limit', async () => {
    const t = githubThread(ghTarget, TOKEN, gh.baseURL);
    const reset = String(Math.ceil(Date.now() / 1000) + 20);
    gh.failNext((r) => r.method === 'POST', { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } });
    const err = await t.create('x').catch((e: unknown) => e);
    const f = deliveryFailure('github', t.problemOf(err), err, env);
    expect(f.type).toBe(NOTIFICATION_UNAVAILABLE);
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBeGreaterThan(15_000);
    expect(f.nextRetryDelay).toBeLessThanOrEqual(21_000);
    expect(details(f)).toMatchObject({ kind: 'rate_limit', status: 403 });
  });

  it('X10 no response from GitHub or GitLab: an outage, retried; GitLab names the refused connection', async () => {
    const port = await closedPort();
    const t = githubThread(ghTarget, TOKEN, `http://127.0.0.1:${port}`);
    const err = await t.create('x').catch((e: unknown) => e);
    const f = deliveryFailure('github', t.problemOf(err), err, env);
    expect(f.type).toBe(NOTIFICATION_UNAVAILABLE);
    expect(f.message).toMatch(/^GitHub: no response/);
    expect(details(f)).toMatchObject({ upstream: 'github', kind: 'outage', retryable: true });
    expect(details(f).status).toBeUndefined();
    const g = gitlabThread(glTarget, TOKEN, `http://127.0.0.1:${port}`);
    const gerr = await g.create('x').catch((e: unknown) => e);
    expect(g.problemOf(gerr)).toMatchObject({ network: 'refused' });
    expect(details(deliveryFailure('gitlab', g.problemOf(gerr), gerr, env))).toMatchObject({ kind: 'outage', network: 'refused' });
  });

  it('X10 a GitLab 422 echoing the token: refused, its body (redacted) in the details; S4 the token nowhere', async () => {
    const t = gitlabThread(glTarget, TOKEN, gl.baseURL);
    gl.failNext((r) => r.method === 'POST', { status: 422, message: `note is invalid for ${TOKEN}` });
    const err = await t.create('x').catch((e: unknown) => e);
    const f = deliveryFailure('gitlab', t.problemOf(err), err, env);
    expect(f.type).toBe(NOTIFICATION_REJECTED);
    expect(f.message).toBe('GitLab: 422 refused — note is invalid for [redacted]');
    expect(details(f)).toMatchObject({ upstream: 'gitlab', kind: 'bad_request', status: 422, body: 'note is invalid for [redacted]' });
    expect(recorded(f)).not.toContain(TOKEN);
  });
});
