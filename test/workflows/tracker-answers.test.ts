// X14 / P7 / S2 (issue 28): answers from the run's issue, against the local GitHub and GitLab
// servers through the real @octokit/rest and @gitbeaker/rest. While a question waits, the run reads
// the thread's replies on durable timers (conditional requests; a rate limit's reset respected): a
// `/answer` reply from a user with write access answers, once; any other reply is ignored; an edit
// or a deletion of a reply already taken changes nothing; the CLI cannot answer again what the
// thread answered; nothing polls once no question waits. A worker SIGKILLed while the poll that
// reads the answer is in flight, and again while the acknowledgement is, loses nothing and answers
// once. A consultation is answered by `/consult <task> <choice> <guidance>` the same way.
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { MEMO_DECISIONS } from '../../src/domain/run/views';
import { answerClarificationUpdate, decisionsQuery, statusQuery, type DecisionsView, type Question } from '../../src/workflows/messages';
import { decision, scriptDecisions } from '../support/decisions';
import type { FakeForge, Fault, ForgeRequest } from '../support/fake-forge';
import { checklistsOf, forgeServers, forgeWorker, GITHUB, GITLAB, noticeKeys, runIdOf, startForgeRun, type Forge } from '../support/forge-runs';
import { runOutcome, uniqueId, until, type Harness } from '../support/harness';
import { TRIGGER } from '../support/pacemaker-triggers';
import { scriptScenario } from '../support/scenario';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { killWorker } from '../support/worker-proc';

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));
const servers = forgeServers();
afterAll(() => servers.stopAll());

/** The run's reads of the thread's replies (GitHub: `since`; GitLab: newest change first), not its marker searches. */
const isPoll = (r: ForgeRequest) => r.method === 'GET' && (r.query.since !== undefined || r.query.order_by === 'updated_at');
const polls = (s: FakeForge, after = 0) => s.requests.filter((r) => isPoll(r) && r.at > after);

/** Resolves once a poll has read the thread as it is now (answered 200 after `t`), and the one after it began (so the first's result was applied). */
async function pollsSeen(s: FakeForge, t: number): Promise<void> {
  const read = await until('a poll to read the thread', async () => polls(s, t).find((r) => r.status === 200), 60_000);
  await until('the next poll', async () => (polls(s, read.at).length ? true : undefined), 60_000);
}

async function questionsOf(handle: WorkflowHandle): Promise<Question[]> {
  return (await handle.query(decisionsQuery)).questions;
}

/** The acknowledgements the run posted for reply `commentId`. */
const acks = (s: FakeForge, f: Forge, n: number, runId: string, commentId: number) =>
  noticeKeys(s.commentsOf(f.thread(n)), runId).filter((k) => k === `reply-${commentId}`);

function scriptQuestions(questions: string[]): void {
  scriptScenario(h.fake, { tasks: [{ id: 'a', title: 'write a', files: { 'a.txt': 'A' } }] });
  scriptDecisions(h.fake, {
    goal_understanding: [decision({ confidence: 0.9, type: 'clarification_request', questions, assumptions: questions.map(() => 'none') })],
  });
}

const rateLimit = (f: Forge, seconds: number): Fault =>
  f.name === 'GitHub'
    ? { status: 403, message: 'API rate limit exceeded', headers: { 'x-ratelimit-remaining': '0', 'retry-after': String(seconds) } }
    : { status: 429, message: 'Retry later', headers: { 'retry-after': String(seconds) } };

describe.each([
  ['GitHub', GITHUB],
  ['GitLab', GITLAB],
])('X14 P7 %s: answers from the thread', (_name, f) => {
  it('X14 S2 an authorised /answer answers once; an unauthorised one is ignored; an edit or a deletion changes nothing; 304s and a rate limit are handled; no poll once nothing waits', async () => {
    const s = await servers.start(f);
    s.addUser('alice', true);
    s.addUser('mallory', false);
    const taskQueue = uniqueId('trk-answer');
    const w = await forgeWorker(h, taskQueue, f.env(s));
    scriptQuestions(['Which output format?', 'Keep the old files?']);
    const handle = await startForgeRun(h, taskQueue, { notifications: f.config(s, 31) }, { trackerPollMs: 300 });
    const runId = runIdOf(handle);
    // The checklist says what waits and how to answer it.
    await until('the checklist to say how to answer', async () => {
      const c = checklistsOf(s.commentsOf(f.thread(31)), runId)[0];
      return c?.body.includes('`/answer q1 <your answer>`') && c.body.includes('`/answer q2 <your answer>`') ? c : undefined;
    });

    // Unauthorised (a Reporter / read-only user, and someone who is no member at all): ignored, logged, nothing said.
    const t0 = Date.now();
    const evil = s.reply(f.thread(31), '/answer q1 EVIL', 'mallory');
    const stranger = s.reply(f.thread(31), '/answer q2 STRANGER', 'stranger');
    await pollsSeen(s, t0);
    expect((await questionsOf(handle)).map((q) => q.status)).toEqual(['pending', 'pending']);
    await until('the ignored replies in the worker log', async () =>
      /ignored a reply on .*@mallory .*has no write access/.test(w.output.join('')) ? true : undefined,
    );
    expect(w.output.join('')).toMatch(/ignored a reply on .*@stranger .*has no write access/);

    // Authorised: answered, acknowledged on the thread, shown in the checklist.
    const good = s.reply(f.thread(31), '/answer q1 CSV please', 'alice');
    const q1 = await until('q1 answered from the thread', async () =>
      (await questionsOf(handle)).find((q) => q.id === 'q1' && q.status === 'answered'),
    );
    expect(q1).toMatchObject({ answer: 'CSV please', answeredBy: `@alice on ${f.name}` });
    await until('the acknowledgement', async () => (acks(s, f, 31, runId, good.id).length ? true : undefined));
    // (An @mention the run posts carries a zero-width space: it pings nobody.)
    await until('the checklist to show the answer', async () =>
      checklistsOf(s.commentsOf(f.thread(31)), runId)[0]?.body.includes(`- **q1**: “CSV please” — @\u200balice on ${f.name}`) ? true : undefined,
    );
    // The first answer wins: the CLI's is refused.
    const cli = handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: 'q1', answer: 'YAML from the CLI' }] });
    await expect(cli).rejects.toThrow(WorkflowUpdateFailedError);

    // The taken reply edited, then deleted: nothing changes, nothing more is said.
    const t1 = Date.now();
    s.editAs(good.id, '/answer q1 XML');
    await pollsSeen(s, t1);
    const t2 = Date.now();
    s.remove(good.id);
    await pollsSeen(s, t2);
    expect((await questionsOf(handle)).find((q) => q.id === 'q1')).toMatchObject({ status: 'answered', answer: 'CSV please' });

    // An unchanged thread: conditional requests answered 304.
    const conditional = polls(s).filter((r) => r.ifNoneMatch);
    expect(conditional.length).toBeGreaterThan(0);
    expect(conditional.some((r) => r.status === 304)).toBe(true);

    // A rate limit on the poll: the next read waits for its reset (3 s).
    s.failNext(isPoll, rateLimit(f, 3));
    const limited = await until('a poll to meet the rate limit', async () => polls(s).find((r) => r.status === 403 || r.status === 429));
    const afterLimit = await until('the next poll', async () => polls(s, limited.at)[0]);
    expect(afterLimit.at - limited.at).toBeGreaterThanOrEqual(2_900);

    const last = s.reply(f.thread(31), '/answer q2 yes, keep them', 'alice');
    expect((await runOutcome(handle)).status).toBe('DONE');
    const qs = await questionsOf(handle);
    expect(qs.map((q) => [q.id, q.status, q.answer])).toEqual([
      ['q1', 'answered', 'CSV please'],
      ['q2', 'answered', 'yes, keep them'],
    ]);
    // The goal was re-understood with the authorised answers only.
    const second = h.fake.successfulFor('goal_understanding').filter((r) => r.text.includes('Which output format?'));
    expect(second.at(-1)!.text).toContain('CSV please');
    for (const bad of ['EVIL', 'STRANGER', 'XML', 'YAML']) expect(second.at(-1)!.text).not.toContain(bad);
    // One acknowledgement each for the taken replies; none for the ignored ones.
    expect(acks(s, f, 31, runId, good.id)).toHaveLength(1);
    expect(acks(s, f, 31, runId, last.id)).toHaveLength(1);
    expect([...acks(s, f, 31, runId, evil.id), ...acks(s, f, 31, runId, stranger.id)]).toEqual([]);
    // Nothing polls once nothing waits: no read after the last answer's acknowledgement was posted.
    const lastAck = s.requests.find((r) => r.method === 'POST' && r.status === 201 && r.body?.body?.includes(`key=reply-${last.id} `))!;
    expect(polls(s, lastAck.at)).toEqual([]);
  });

  it('X14 a worker SIGKILLed while the poll that reads the answer is in flight, and again while its acknowledgement is: the answer is taken once, acknowledged once', async () => {
    const s = await servers.start(f);
    s.addUser('alice', true);
    const taskQueue = uniqueId('trk-kill');
    const first = await forgeWorker(h, taskQueue, f.env(s));
    scriptQuestions(['Which output format?']);
    const handle = await startForgeRun(h, taskQueue, { notifications: f.config(s, 32) }, { trackerPollMs: 300 });
    const runId = runIdOf(handle);
    await until('the checklist to say how to answer', async () =>
      checklistsOf(s.commentsOf(f.thread(32)), runId)[0]?.body.includes('`/answer q1 <your answer>`') ? true : undefined,
    );
    // The reply, then (in the same tick: no poll comes between) the next poll held: read by the server, never answered.
    // The answer names the forge: the scripted model's record of requests is the whole suite's.
    const answer = `TSV after a kill on ${f.name}`;
    const reply = s.reply(f.thread(32), `/answer q1 ${answer}`, 'alice');
    const heldPoll = s.holdNext(isPoll);
    await heldPoll;
    await killWorker(first);
    // No worker: the memo tells (the answer was not taken).
    const memo = (await handle.describe()).memo?.[MEMO_DECISIONS] as DecisionsView;
    expect(memo.questions.map((q) => q.status)).toEqual(['pending']);
    // The next worker polls again (the lost poll times out), takes the answer; its acknowledgement is held too.
    const heldAck = s.holdNext((r) => r.method === 'POST' && (r.body?.body?.includes(`key=reply-${reply.id} `) ?? false));
    const second = await forgeWorker(h, taskQueue, f.env(s));
    await heldAck;
    await killWorker(second);
    const third = await forgeWorker(h, taskQueue, f.env(s));
    expect((await runOutcome(handle)).status).toBe('DONE');

    const q = (await questionsOf(handle))[0]!;
    expect(q).toMatchObject({ status: 'answered', answer, answeredBy: `@alice on ${f.name}` });
    // Once: one goal re-understanding with the answer, one acknowledgement (the lost one found by its marker, not posted again).
    const withAnswer = h.fake.successfulFor('goal_understanding').filter((r) => r.text.includes(answer));
    expect(withAnswer).toHaveLength(1);
    expect(acks(s, f, 32, runId, reply.id)).toHaveLength(1);
    expect(noticeKeys(s.commentsOf(f.thread(32)), runId).filter((k) => k === 'q1.asked')).toHaveLength(1);
    expect(third.output.join('')).not.toContain(f.token);
  });

  it("P7 a consultation answered by `/consult <task> <choice> <guidance>` from a writer: the task gets the guidance and ends DONE; a reader's `/consult a 1` (stop) changes nothing", async () => {
    const s = await servers.start(f);
    s.addUser('alice', true);
    s.addUser('mallory', false);
    const taskQueue = uniqueId('trk-consult');
    await forgeWorker(h, taskQueue, f.env(s));
    let answered = false;
    scriptScenario(h.fake, {
      tasks: [{ id: 'a', title: 'make the parser work', profile: TRIGGER.no_progress.profile, files: { 'stall.txt': 'same thing again' } }],
      judge: () =>
        answered
          ? { success: true, reason: 'the parser works', missingRequirements: [], confidence: 0.9 }
          : { success: false, shouldContinue: true, reason: 'still not done', missingRequirements: ['a working parser'] },
    });
    scriptDecisions(h.fake, {});
    const config = { pacemaker: TRIGGER.no_progress.pacemaker, notifications: f.config(s, 33) };
    const handle = await startForgeRun(h, taskQueue, config, { trackerPollMs: 300 });
    const runId = runIdOf(handle);
    await until('the checklist to say how to answer the consultation', async () =>
      checklistsOf(s.commentsOf(f.thread(33)), runId)[0]?.body.includes('`/consult a <number>`') ? true : undefined,
    );
    const t0 = Date.now();
    s.reply(f.thread(33), '/consult a 1', 'mallory');
    await pollsSeen(s, t0);
    expect((await handle.query(statusQuery)).consultations?.map((c) => c.taskId)).toEqual(['a']);
    answered = true;
    const guidance = `Keep the parser in lib/strings.ts (${f.name})`;
    const reply = s.reply(f.thread(33), `/consult a 2 ${guidance}`, 'alice');
    expect((await runOutcome(handle)).status).toBe('DONE');
    // The worker was told the guidance; the choice was acknowledged once; the reader's stop did nothing.
    expect(h.fake.requestsFor('worker_step').some((r) => r.text.includes(guidance))).toBe(true);
    expect(acks(s, f, 33, runId, reply.id)).toHaveLength(1);
    expect(s.commentsOf(f.thread(33)).find((c) => c.body.includes(`key=reply-${reply.id} `))!.body).toContain('✅ Choice **2** sent to consultation');
  });
});
