// Issue 31, M1: slow local models finish their runs. On the real dev server, with the scripted
// OpenAI-compatible server streaming at a slow model's pace, and a worker with the production
// limits (no total cap): a first token after 150 s (past the old fixed 120 s timeout) and a reply of
// one token a second for 200 s both end DONE with no outage pause and one request per call, counted
// at the server, while `status` and `watch` show the wait from the activities' heartbeats; a server
// that answers only without streaming ends DONE; a reply that stalls is cut off (its connection
// closed) and retried, the stall named in `status`; a server that closes connections pauses the run
// as an outage; a cancelled run's request is closed at the server.
import type { WorkflowHandle } from '@temporalio/client';
import { eventPrinter, watchEvents } from '../../src/client/watch';
import { statusQuery, type RunStatus } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { cli } from '../support/cli';
import { FAST, runOutcome, startHarness, uniqueId, until, type Harness } from '../support/harness';
import { DEFAULT_GOAL, plannedTask, scriptScenario, type ScenarioTask } from '../support/scenario';

jest.setTimeout(12 * 60_000);

let h: Harness;
beforeAll(async () => {
  // The production limits: no total cap, only the progress limits (their defaults).
  h = await startHarness({ llmTimeoutMs: null });
});
afterAll(async () => h?.stop());
beforeEach(() => h.fake.reset());

const TASKS: ScenarioTask[] = [{ id: 'a', title: 'write a', files: { 'a.txt': 'A' } }];

function start(runId: string, instruction: string, config?: unknown): Promise<WorkflowHandle<typeof RunWorkflow>> {
  return h.client.workflow.start(RunWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction, workspace: h.workspace(), options: FAST, ...(config ? { config } : {}) }],
  });
}

/** Every pause any status read saw, while `until` waits. */
function pauseWatch(handles: WorkflowHandle[]): { seen: string[]; stop(): void } {
  const seen: string[] = [];
  const timer = setInterval(() => {
    for (const handle of handles) {
      handle
        .query(statusQuery)
        .then((s: RunStatus) => seen.push(...(s.pauses ?? []).map((p) => `${handle.workflowId}: ${p.kind} ${p.reason ?? ''}`)))
        .catch(() => undefined);
    }
  }, 2000);
  return { seen, stop: () => clearInterval(timer) };
}

const of = (purpose: string, marker: string) => h.fake.requestsFor(purpose).filter((r) => r.text.includes(marker));
const statusLines = async (runId: string) => (await cli('status', runId)).out.split('\n');

describe('M1 a slow model that is alive finishes its runs', () => {
  it('M1 default limits: a first token after 150 s (past the old 120 s timeout) and one token a second for 200 s: both DONE, no outage pause, one request per call; status and watch show the wait', async () => {
    // A plan long enough to come as 200 tokens (200+ characters).
    const tasks = [{ ...TASKS[0]!, title: 'write the file a.txt with the letter A in it, and nothing else' }];
    scriptScenario(h.fake, { tasks });
    const decomposition = { json: { tasks: tasks.map(plannedTask) } };
    h.fake.always('goal_understanding', (req) =>
      req.text.includes('RUN-A') ? { pace: { firstTokenMs: 150_000 }, then: { json: DEFAULT_GOAL } } : { json: DEFAULT_GOAL },
    );
    h.fake.always('task_decomposition', (req) =>
      req.text.includes('RUN-B') ? { pace: { tokenMs: 1000, tokens: 200 }, then: decomposition } : decomposition,
    );
    const a = uniqueId('first-token');
    const b = uniqueId('one-a-second');
    const started = Date.now();
    const [ha, hb] = await Promise.all([start(a, 'RUN-A: write a'), start(b, 'RUN-B: write a')]);
    const pauses = pauseWatch([ha, hb]);
    // `watch` on run B, as the CLI runs it: its lines collected.
    const watched: string[] = [];
    const watching = watchEvents(
      h.client,
      b,
      eventPrinter((l) => watched.push(l), { runId: b }),
      { intervalMs: 1000 },
    );
    try {
      // While A's model reads its prompt: `status` says so, from the activity's heartbeat.
      const reading = await until(
        'status to show A reading its prompt',
        async () => (await statusLines(a)).find((l) => /^Model call: working out the goal: reading the prompt \([\d,]+ tokens\)…$/.test(l)),
        60_000,
      );
      // While B's model writes: `status` counts its tokens.
      const writing = await until(
        'status to show B writing',
        async () => (await statusLines(b)).find((l) => /^Model call: planning the tasks: writing, ([1-9]\d*) tokens$/.test(l)),
        120_000,
      );
      const [ra, rb] = await Promise.all([runOutcome(ha), runOutcome(hb)]);
      const wall = Date.now() - started;
      await watching;
      process.stderr.write(`slow-model: "${reading}" · "${writing}" · both DONE after ${(wall / 1000).toFixed(0)} s\n`);
      expect(ra.status).toBe('DONE');
      expect(rb.status).toBe('DONE');
      expect(pauses.seen).toEqual([]);
      // One request per call, counted at the server; each answered whole.
      const goalA = of('goal_understanding', 'RUN-A');
      expect(goalA.map((r) => [r.status, r.stream, r.closedByClient ?? false])).toEqual([[200, true, false]]);
      expect(goalA[0]!.repliedAt! - goalA[0]!.startedAt).toBeGreaterThanOrEqual(150_000);
      const decB = of('task_decomposition', 'RUN-B');
      expect(decB.map((r) => [r.status, r.tokensSent])).toEqual([[200, 200]]);
      expect(decB[0]!.repliedAt! - decB[0]!.startedAt).toBeGreaterThanOrEqual(199_000);
      for (const marker of ['RUN-A', 'RUN-B']) {
        const answered = h.fake.requests.filter((r) => r.text.includes(marker));
        expect(answered.filter((r) => r.status !== 200)).toEqual([]);
      }
      // `watch` showed B's call while it wrote, a line per change (not per token).
      const callLines = watched.filter((l) => l.includes('planning the tasks: '));
      expect(callLines.some((l) => /planning the tasks: writing, \d+ tokens/.test(l))).toBe(true);
      expect(callLines.length).toBeLessThan(40);
      // No history event per token: B's decomposition phase took 200 tokens in a handful of events.
      const history = await h.client.workflow.getHandle(`${runWorkflowId(b)}.task_decomposition-1`).fetchHistory();
      expect(history.events!.length).toBeLessThan(40);
    } finally {
      pauses.stop();
    }
  });

  it('M1 a server that answers only without streaming: refused once, then every call of the run asks whole; DONE with one answer per call', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    h.fake.streaming = 'refuse';
    const runId = uniqueId('no-stream');
    const handle = await start(runId, 'write a');
    expect((await runOutcome(handle)).status).toBe('DONE');
    const [first, ...rest] = h.fake.requests;
    expect([first!.stream, first!.status]).toEqual([true, 400]);
    expect(rest.map((r) => [r.stream, r.status])).toEqual(rest.map(() => [false, 200]));
    // One answer per call: the refused request was the first call's only extra one.
    expect(h.fake.requests.filter((r) => r.status === 200).length).toBe(h.fake.requests.length - 1);
    expect((await handle.query(statusQuery)).llmNoStream).toBe(true);
    expect((await cli('status', runId)).out).toContain('LLM replies: not streamed (the server refused streaming');
  });

  it('M1 a reply that stalls (90 s at 1/10 scale: 9 s past a 6 s stall limit): cut off, its connection closed, retried; the stall named in status; DONE, no pause', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    const decomposition = { json: { tasks: TASKS.map(plannedTask) } };
    h.fake.script(
      'task_decomposition',
      { pace: { tokens: 40, tokenMs: 50, stallAfter: 20, stallMs: 9000 }, then: decomposition },
      // The retry reads slowly, so `status` can be seen naming the stall meanwhile.
      { pace: { firstTokenMs: 8000 }, then: decomposition },
    );
    const runId = uniqueId('stall');
    const handle = await start(runId, 'write a', { llm: { stallTimeoutSeconds: 6 } });
    const pauses = pauseWatch([handle]);
    try {
      const named = await until(
        'status to name the stall',
        async () => (await statusLines(runId)).find((l) => l.startsWith('Model call: planning the tasks:') && l.includes('try 2')),
        60_000,
      );
      expect(named).toMatch(
        /\(try 2; the last one: the request to \S+ \(planning the tasks\): the reply stalled after 20 tokens \(no token for 6 s\); a model that pauses mid-reply needs a longer llm\.stallTimeoutSeconds/,
      );
      expect((await runOutcome(handle)).status).toBe('DONE');
      expect(pauses.seen).toEqual([]);
      const [stalled, retried] = h.fake.requestsFor('task_decomposition');
      // Given up on after 6 s of silence, and closed: the server stopped writing it.
      expect(stalled).toMatchObject({ closedByClient: true, tokensSent: 20 });
      expect(stalled!.status).toBeUndefined();
      expect(stalled!.finishedAt! - stalled!.startedAt).toBeLessThan(9000);
      expect(retried!.status).toBe(200);
      expect(h.fake.requestsFor('task_decomposition')).toHaveLength(2);
    } finally {
      pauses.stop();
    }
  });

  it('M1 O2 a server that closes connections mid-reply: an outage; the run pauses as such, resumes by itself, DONE', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    // FAST: 3 quick attempts, then the first probe: four closed connections.
    const closing = { pace: { tokens: 10, closeAfter: 3 }, then: { json: { tasks: TASKS.map(plannedTask) } } };
    h.fake.script('task_decomposition', closing, closing, closing, closing);
    const runId = uniqueId('closes');
    const handle = await start(runId, 'write a');
    const paused = await until<RunStatus>(
      'PAUSED for the outage',
      async () => {
        const s = await handle.query(statusQuery);
        return s.pauses?.some((p) => p.kind === 'llm_outage') ? s : undefined;
      },
      60_000,
    );
    expect(paused.pause?.reason).toMatch(/^LLM unavailable since .*task_decomposition/);
    expect((await runOutcome(handle)).status).toBe('DONE');
    expect(h.fake.requestsFor('task_decomposition').map((r) => [r.status, r.tokensSent])).toEqual([
      [undefined, 3],
      [undefined, 3],
      [undefined, 3],
      [undefined, 3],
      [200, expect.any(Number)],
    ]);
  });

  it('M1 a cancelled run: its streaming request is aborted, and the server sees the connection closed (no more tokens written)', async () => {
    scriptScenario(h.fake, { tasks: TASKS });
    h.fake.always('goal_understanding', { pace: { tokens: 600, tokenMs: 100 }, then: { json: DEFAULT_GOAL } });
    const runId = uniqueId('cancel-stream');
    const handle = await start(runId, 'write a');
    const call = await until(
      'a few tokens written',
      async () => h.fake.requestsFor('goal_understanding').find((r) => (r.tokensSent ?? 0) >= 5),
      60_000,
    );
    await handle.cancel();
    await until('the connection closed by the worker', async () => (call.closedByClient ? true : undefined), 30_000);
    const sent = call.tokensSent!;
    await new Promise((r) => setTimeout(r, 1500));
    expect(call.tokensSent).toBe(sent);
    expect(sent).toBeLessThan(600);
    expect(call.status).toBeUndefined();
  });
});
