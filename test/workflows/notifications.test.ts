// X10 / X11 on the real dev server: a run with replans posts its plan checklist to the run's issue
// or merge request (one comment, edited in place) and each notification as its own comment, through
// the real @octokit/rest / @gitbeaker/rest against local servers speaking their REST APIs. The
// worker runs in its own process with the token in its environment only, so the token can be
// looked for in every history, the memo and the worker's log.
import type { WorkflowHandle } from '@temporalio/client';
import { renderStatus } from '../../src/client/render';
import { checklistMarker } from '../../src/domain/notifications';
import { NOTIFICATION_HEADINGS, type NotificationKind } from '../../src/domain/run/notifications-due';
import { MEMO_STATUS } from '../../src/domain/run/views';
import { statusQuery, type RunStatus } from '../../src/workflows/messages';
import { RunWorkflow } from '../../src/workflows/run';
import { decision, scriptDecisions } from '../support/decisions';
import { FakeGitHub } from '../support/fake-github';
import { FakeGitLab } from '../support/fake-gitlab';
import type { FakeForge, ForgeRequest, StoredComment } from '../support/fake-forge';
import { tokenFoundIn, GH_TOKEN, GL_TOKEN, runIdOf, startForgeRun } from '../support/forge-runs';
import { runOutcome, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { plannedTask, scriptScenario } from '../support/scenario';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { killWorker, startWorkerProcess, type WorkerProc } from '../support/worker-proc';

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));

const servers: FakeForge[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

async function worker(taskQueue: string, env: Record<string, string>): Promise<WorkerProc> {
  return startWorkerProcess({ address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL, env });
}

function startRun(taskQueue: string, config: Record<string, unknown>): Promise<WorkflowHandle<typeof RunWorkflow>> {
  return startForgeRun(h, taskQueue, config);
}

const REPORT = [{ id: 'a', title: 'write the report', files: { 'report.txt': 'r' } }];

/** A fake GitHub (stopped after the suite) and a worker process on a fresh task queue with its token and address in its environment (and `extraEnv`); the one-task report scripted. */
async function githubRun(queuePrefix: string, extraEnv: Record<string, string> = {}) {
  const gh = await FakeGitHub.start(GH_TOKEN);
  servers.push(gh);
  const taskQueue = uniqueId(queuePrefix);
  const env = { GITHUB_TOKEN: GH_TOKEN, GITHUB_API_URL: gh.baseURL, ...extraEnv };
  const w = await worker(taskQueue, env);
  scriptScenario(h.fake, { tasks: REPORT });
  return { gh, taskQueue, env, w };
}

const isChecklist = (runId: string) => (c: { body: string }) => c.body.includes(checklistMarker(runId));
/** The comments that are a notification of this kind (the heading right after the marker line). */
const notices = (comments: StoredComment[], kind: NotificationKind) => comments.filter((c) => c.body.split('\n')[1] === NOTIFICATION_HEADINGS[kind]);
const posts = (f: FakeForge, heading: string) => f.requests.filter((r) => r.method === 'POST' && r.body?.body?.includes(heading));

describe('X10 X11 GitHub through @octokit/rest', () => {
  it('X10 X11 one checklist comment created, then PATCHed at each plan change; each notification its own comment with the seed heading; the token in no history, memo or log', async () => {
    const { gh, taskQueue, w } = await githubRun('ntf-gh');
    scriptDecisions(h.fake, {
      goal_understanding: [
        decision({ confidence: 0.9, type: 'clarification_request', questions: ['Which output format?'], assumptions: ['plain text'] }),
      ],
      task_decomposition: [decision({ confidence: 0.9, type: 'task_redecomposition', issue: 'the tasks are too coarse' })],
      action_sequence: [decision({ confidence: 0.9, type: 'action_regeneration', issue: 'the order is wrong' })],
    });
    const handle = await startRun(taskQueue, {
      replanning: { goal_understanding: { auto_assume_timeout_minutes: 0 }, action_sequence: { max_regeneration_attempts: 0 } },
      notifications: { github: { repo: 'octo/app', issue: 12 } },
    });
    const runId = runIdOf(handle);
    expect((await runOutcome(handle)).status).toBe('DONE');

    const comments = gh.commentsOf('octo/app#12');
    // X11: exactly one checklist comment, created once and edited in place.
    const checklists = comments.filter(isChecklist(runId));
    expect(checklists).toHaveLength(1);
    const checklist = checklists[0]!;
    const writes = gh.requests.filter((r) => r.method !== 'GET' && r.body?.body?.includes(checklistMarker(runId)));
    expect(writes.filter((r) => r.method === 'POST')).toHaveLength(1);
    const patches = writes.filter((r) => r.method === 'PATCH');
    expect(patches.length).toBeGreaterThanOrEqual(2);
    expect(patches.every((r) => r.path === `/repos/octo/app/issues/comments/${checklist.id}` && r.status === 200)).toBe(true);
    expect(checklist.edits).toBe(patches.length);
    expect(writes[0]!.body!.body).toContain('## 📋 Execution Plan\n');
    // The plan change (the re-decomposition) was an edit of the same comment.
    expect(patches.some((r) => r.body!.body!.includes('## 📋 Execution Plan (Revised #1)'))).toBe(true);
    expect(checklist.body).toContain('## 📋 Execution Plan (Revised #1)');
    expect(checklist.body).toContain('**Revision Reason**: replan because the tasks are too coarse');
    expect(checklist.body).toContain('- [x] **a**: write the report');
    expect(checklist.body).toMatch(/Progress: 1\/1 \(100%\) complete · Plan Revisions: \d/);
    expect(checklist.body).toContain('<summary>📜 Previous Plan History</summary>');

    // X10: each notification its own comment, once, in the order it happened.
    const kinds: NotificationKind[] = ['clarification_needed', 'replan_decided', 'replan_started', 'replan_completed', 'replan_overridden'];
    const found = kinds.map((k) => notices(comments, k));
    expect(found.map((x) => x.length)).toEqual([1, 1, 1, 1, 1]);
    const ids = found.map((x) => x[0]!.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const [clarify, decided] = found.map((x) => x[0]!.body);
    expect(clarify).toContain('1. Which output format? (q1)');
    expect(clarify).toContain('**If no response**:\nI will proceed with the following assumptions after 0 minute(s):\n- plain text');
    expect(decided).toContain('**Phase**: Tasks');
    expect(decided).toContain('**Confidence**: 90%');
    expect(decided).toContain('**Issues Found**:\n- the tasks are too coarse');
    expect(notices(comments, 'replan_overridden')[0]!.body).toContain('**Phase**: Steps');
    expect(comments).toHaveLength(1 + kinds.length);

    const status: RunStatus = await handle.query(statusQuery);
    expect(status.notifications).toMatchObject({ target: 'GitHub octo/app#12', failed: 0, checklistCommentId: checklist.id });
    expect(renderStatus(status)).toContain(`Notifications: ${status.notifications!.delivered} delivered to GitHub octo/app#12`);
    expect(await tokenFoundIn(handle, GH_TOKEN, [w])).toEqual([]);
  });

  it('X10 a 422 is refused at once, said in status and in the checklist, and kept; a 403 rate limit waits for its reset; 5xx are retried; the run ends DONE; an echoed token is redacted', async () => {
    const { gh, taskQueue, w } = await githubRun('ntf-gh-fail');
    scriptDecisions(h.fake, { task_decomposition: [decision({ confidence: 0.9, type: 'task_redecomposition', issue: 'the tasks are too coarse' })] });
    const is = (method: string, heading: string) => (r: ForgeRequest) => r.method === method && (r.body?.body?.includes(heading) ?? false);
    // A server that echoes the request's token in its error: the failure keeps no trace of it.
    gh.failNext(is('POST', NOTIFICATION_HEADINGS.replan_decided), { status: 422, message: `Validation Failed for Authorization: token ${GH_TOKEN}` });
    gh.failNext(is('POST', NOTIFICATION_HEADINGS.replan_started), { status: 502 }, 2);
    gh.failNext(is('POST', NOTIFICATION_HEADINGS.replan_completed), () => ({
      status: 403,
      message: 'API rate limit exceeded',
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) },
    }));
    const handle = await startRun(taskQueue, { notifications: { github: { repo: 'octo/app', pull: 7 } } });
    const runId = runIdOf(handle);
    expect((await runOutcome(handle)).status).toBe('DONE');

    const comments = gh.commentsOf('octo/app#7');
    // 422: one attempt, refused, reported.
    expect(posts(gh, NOTIFICATION_HEADINGS.replan_decided).map((r) => r.status)).toEqual([422]);
    expect(notices(comments, 'replan_decided')).toHaveLength(0);
    // 502 twice, then delivered once (the retry looked for a comment a lost attempt might have made).
    expect(posts(gh, NOTIFICATION_HEADINGS.replan_started).map((r) => r.status)).toEqual([502, 502, 201]);
    expect(notices(comments, 'replan_started')).toHaveLength(1);
    // The rate limit: retried no sooner than its reset, then delivered.
    const limited = posts(gh, NOTIFICATION_HEADINGS.replan_completed);
    expect(limited.map((r) => r.status)).toEqual([403, 201]);
    expect(limited[1]!.at - limited[0]!.at).toBeGreaterThanOrEqual(900);
    expect(notices(comments, 'replan_completed')).toHaveLength(1);
    // The checklist is current (its edits wait behind the queue, never skipped).
    const checklist = comments.filter(isChecklist(runId));
    expect(checklist).toHaveLength(1);
    expect(checklist[0]!.body).toContain('- [x] **a**: write the report');

    const status: RunStatus = await handle.query(statusQuery);
    const why = 'GitHub: 422 refused — Validation Failed for Authorization: token [redacted]';
    expect(status.notifications).toMatchObject({ refused: 1, refusal: why, failed: 0 });
    expect(status.notifications?.checklistRefusal).toBeUndefined();
    expect(renderStatus(status)).toMatch(
      new RegExp(
        `^Notifications: \\d+ delivered to GitHub octo/app#7 · 1 notification could not be posted \\(${why.replace(/[()[\]]/g, '\\$&')}\\)$`,
        'm',
      ),
    );
    expect(checklist[0]!.body).toContain(`⚠️ **1 notification could not be posted** (${why}).`);
    expect(JSON.stringify(status)).not.toContain(GH_TOKEN);
    // O5: the memo shows it with no worker running.
    const memo = (await handle.describe()).memo?.[MEMO_STATUS] as RunStatus;
    expect(memo.notifications).toMatchObject({ refused: 1 });
    expect(await tokenFoundIn(handle, GH_TOKEN, [w])).toEqual([]);
  });

  it('X11 the worker SIGKILLed between the checklist create and its recorded result: the next worker finds it by its marker and edits it — still one comment', async () => {
    const { gh, taskQueue, env, w: first } = await githubRun('ntf-gh-kill');
    scriptDecisions(h.fake, { task_decomposition: [decision({ confidence: 0.9, type: 'task_redecomposition', issue: 'the tasks are too coarse' })] });
    const created = gh.holdNext((r) => r.method === 'POST' && (r.body?.body?.includes('replanner:checklist') ?? false));
    const handle = await startRun(taskQueue, { notifications: { github: { repo: 'octo/app', issue: 3 } } });
    const runId = runIdOf(handle);
    await created;
    // The comment exists on the server; the worker that made it never learns its id.
    expect(gh.commentsOf('octo/app#3').filter(isChecklist(runId))).toHaveLength(1);
    await killWorker(first);
    const second = await worker(taskQueue, env);
    expect((await runOutcome(handle)).status).toBe('DONE');

    const checklists = gh.commentsOf('octo/app#3').filter(isChecklist(runId));
    expect(checklists).toHaveLength(1);
    const id = checklists[0]!.id;
    const writes = gh.requests.filter((r) => r.method !== 'GET' && r.body?.body?.includes(checklistMarker(runId)));
    expect(writes.filter((r) => r.method === 'POST')).toHaveLength(1);
    const patches = writes.filter((r) => r.method === 'PATCH');
    expect(patches.length).toBeGreaterThanOrEqual(1);
    expect(patches.every((r) => r.commentId === id)).toBe(true);
    // The retried attempt looked the comment up by its marker before editing it.
    const held = gh.requests.findIndex((r) => r.method === 'POST' && r.status === undefined);
    const firstEdit = gh.requests.indexOf(patches[0]!);
    expect(gh.requests.slice(held + 1, firstEdit).some((r) => r.method === 'GET' && r.path === '/repos/octo/app/issues/3/comments')).toBe(true);
    expect(checklists[0]!.body).toContain('Execution Plan (Revised #1)');
    expect((await handle.query(statusQuery)).notifications?.checklistCommentId).toBe(id);
    expect(await tokenFoundIn(handle, GH_TOKEN, [first, second])).toEqual([]);
  });
});

describe('X10 notifications run beside the phases', () => {
  it('X10 a notification the server does not answer does not hold the run: the task runs and finishes meanwhile; answered late, it is posted once', async () => {
    const { gh, taskQueue } = await githubRun('ntf-beside');
    scriptDecisions(h.fake, { task_decomposition: [decision({ confidence: 0.9, type: 'task_redecomposition', issue: 'the tasks are too coarse' })] });
    const held = gh.holdNext((r) => r.method === 'POST' && (r.body?.body?.includes(NOTIFICATION_HEADINGS.replan_decided) ?? false));
    const handle = await startRun(taskQueue, { notifications: { github: { repo: 'octo/app', issue: 4 } } });
    await held;
    // While GitHub has not answered, the run goes on: the re-decomposition, the actions, the task, the reflection.
    const s = await until('the task to finish while the notification is unanswered', async () => {
      const st = await handle.query(statusQuery);
      return st.phase === 'reflection' || st.phase === 'finished' ? st : undefined;
    });
    expect(s.tasks.map((t) => t.state)).toEqual(['DONE']);
    expect(
      gh.requests.filter((r) => r.method === 'POST' && r.body?.body?.includes(NOTIFICATION_HEADINGS.replan_decided)).map((r) => r.status),
    ).toEqual([undefined]);
    gh.release();
    expect((await runOutcome(handle)).status).toBe('DONE');
    expect(notices(gh.commentsOf('octo/app#4'), 'replan_decided')).toHaveLength(1);
  });
});

describe('X10 X13 a replan that fails to execute', () => {
  it('X10 X13 "Plan Revision Failed" names the reason, after its "Decided" and "Started"; the run goes on to DONE', async () => {
    const { gh, taskQueue } = await githubRun('ntf-failed');
    // The first decomposition is fine; the one the replan asks for never yields a valid graph.
    h.fake.script('task_decomposition', { json: { tasks: REPORT.map(plannedTask) } });
    const cyclic = [
      { ...plannedTask({ id: 'x', title: 'x' }), dependencies: ['y'] },
      { ...plannedTask({ id: 'y', title: 'y' }), dependencies: ['x'] },
    ];
    h.fake.always('task_decomposition', { json: { tasks: cyclic } });
    scriptDecisions(h.fake, { action_sequence: [decision({ confidence: 0.9, type: 'task_redecomposition', issue: 'a step is missing' })] });
    const handle = await startRun(taskQueue, { notifications: { github: { repo: 'octo/app', issue: 9 } } });
    expect((await runOutcome(handle)).status).toBe('DONE');
    const comments = gh.commentsOf('octo/app#9');
    const [decided, started, failed] = (['replan_decided', 'replan_started', 'replan_failed'] as const).map((k) => notices(comments, k));
    expect([decided!.length, started!.length, failed!.length]).toEqual([1, 1, 1]);
    expect(decided![0]!.id).toBeLessThan(started![0]!.id);
    expect(started![0]!.id).toBeLessThan(failed![0]!.id);
    expect(failed![0]!.body).toMatch(/\*\*Reason\*\*: .*cycle/);
    expect(notices(comments, 'replan_completed')).toHaveLength(0);
    const checklist = comments.filter(isChecklist(runIdOf(handle)));
    expect(checklist).toHaveLength(1);
    expect(checklist[0]!.body).toContain('- [x] **a**: write the report');
  });
});

describe('S2 the worker limits where runs may post', () => {
  it('S2 X10 a target outside REPLANNER_NOTIFY_ALLOW is refused (nothing posted, status says why); the run ends DONE', async () => {
    const { gh, taskQueue } = await githubRun('ntf-allow', { REPLANNER_NOTIFY_ALLOW: 'octo/app' });
    const handle = await startRun(taskQueue, { notifications: { github: { repo: 'victim/repo', issue: 1 } } });
    expect((await runOutcome(handle)).status).toBe('DONE');
    expect(gh.requests).toEqual([]);
    const status: RunStatus = await handle.query(statusQuery);
    expect(status.notifications?.delivered).toBe(0);
    expect(status.notifications?.lastError).toBe("GitHub victim/repo#1 is not in the worker's REPLANNER_NOTIFY_ALLOW");
  });
});

describe('X10 X11 GitLab through @gitbeaker/rest', () => {
  it('X10 X11 one checklist note created, then PUT in place; notifications as notes; a 503 retried, a 403 refused and said; the run ends DONE; the token nowhere', async () => {
    const gl = await FakeGitLab.start(GL_TOKEN);
    servers.push(gl);
    const taskQueue = uniqueId('ntf-gl');
    const w = await worker(taskQueue, { GITLAB_TOKEN: GL_TOKEN });
    scriptScenario(h.fake, { tasks: REPORT });
    scriptDecisions(h.fake, { task_decomposition: [decision({ confidence: 0.9, type: 'task_redecomposition', issue: 'the tasks are too coarse' })] });
    gl.failNext((r) => r.method === 'POST' && (r.body?.body?.includes(NOTIFICATION_HEADINGS.replan_decided) ?? false), { status: 503 });
    gl.failNext((r) => r.method === 'POST' && (r.body?.body?.includes(NOTIFICATION_HEADINGS.replan_started) ?? false), {
      status: 403,
      message: '403 Forbidden',
    });
    // The url comes from the config (GITLAB_URL is not set on this worker).
    const handle = await startRun(taskQueue, { notifications: { gitlab: { project: 'grp/sub/proj', merge_request: 45, url: gl.baseURL } } });
    const runId = runIdOf(handle);
    expect((await runOutcome(handle)).status).toBe('DONE');

    const notes = gl.notesOf('grp/sub/proj!45');
    const checklists = notes.filter(isChecklist(runId));
    expect(checklists).toHaveLength(1);
    const writes = gl.requests.filter((r) => r.method !== 'GET' && r.body?.body?.includes(checklistMarker(runId)));
    expect(writes.filter((r) => r.method === 'POST')).toHaveLength(1);
    const puts = writes.filter((r) => r.method === 'PUT');
    expect(puts.length).toBeGreaterThanOrEqual(1);
    expect(puts.every((r) => r.path === `/api/v4/projects/grp%2Fsub%2Fproj/merge_requests/45/notes/${checklists[0]!.id}`)).toBe(true);
    expect(checklists[0]!.body).toContain('Execution Plan (Revised #1)');

    expect(posts(gl, NOTIFICATION_HEADINGS.replan_decided).map((r) => r.status)).toEqual([503, 201]);
    expect(notices(notes, 'replan_decided')).toHaveLength(1);
    expect(posts(gl, NOTIFICATION_HEADINGS.replan_started).map((r) => r.status)).toEqual([403]);
    expect(notices(notes, 'replan_started')).toHaveLength(0);
    expect(notices(notes, 'replan_completed')).toHaveLength(1);

    const status: RunStatus = await until('the run to answer status', () => handle.query(statusQuery));
    expect(status.notifications).toMatchObject({
      target: 'GitLab grp/sub/proj!45',
      refused: 1,
      refusal: "GitLab: 403 Forbidden (check GITLAB_TOKEN's scope)",
    });
    expect(renderStatus(status)).toContain("· 1 notification could not be posted (GitLab: 403 Forbidden (check GITLAB_TOKEN's scope))");
    expect(await tokenFoundIn(handle, GL_TOKEN, [w])).toEqual([]);
  });
});
