// V5: what an open watch says while the run is quiet, and when no worker serves it (src/domain/run/watch-lines.ts).
import { agoText, lookAtQueue, noWorkerLine, parseNoWorkerNotice, quietLine, type QuietRun } from '../../../src/domain/run/watch-lines';

const T0 = Date.parse('2026-01-01T09:00:00.000Z');
const min = 60_000;
const elapsed = (ms: number) => `${Math.round(ms / 1000)}s`;
const run = (over: Partial<QuietRun> = {}): QuietRun => ({ status: 'RUNNING', phase: 'goal_understanding', pauses: [], ...over });
const asked = (id: string, at: number) => ({ id, status: 'pending', askedAt: new Date(at).toISOString() });

describe('V5 the line of a quiet watch', () => {
  it('V5 a run waiting for an answer says whose and since when, not which phase it is in', () => {
    const r = run({ status: 'WAITING', questions: [asked('q1', T0)] });
    expect(quietLine(r, { nowMs: T0 + 2 * min + 5000, phaseSinceMs: T0 - 10_000, elapsed })).toBe('waiting for your answer to q1 (asked 2 min ago)');
    const two = run({ status: 'WAITING', questions: [asked('q1', T0), asked('q2', T0 + 1000), { id: 'q0', status: 'answered', askedAt: '' }] });
    expect(quietLine(two, { nowMs: T0 + 45_000, elapsed })).toBe('waiting for your answer to q1 and q2 (asked 45 s ago)');
  });

  it('V5 a task’s question: "waiting for your answer to t2’s question (asked …)"', () => {
    const r = run({ status: 'WAITING', phase: 'execution', consultations: [{ id: 't2-c1', taskId: 't2' }] });
    expect(quietLine(r, { nowMs: T0 + 3 * min, consultationAskedMs: new Map([['t2-c1', T0]]), elapsed })).toBe(
      "waiting for your answer to t2's question (asked 3 min ago)",
    );
    expect(quietLine(r, { nowMs: T0, elapsed })).toBe("waiting for your answer to t2's question");
  });

  it('V5 a paused run says who paused it and since when, with the reason', () => {
    const r = run({ status: 'PAUSED', pauses: [{ kind: 'user', by: 'user', since: new Date(T0).toISOString(), reason: 'lunch' }] });
    expect(quietLine(r, { nowMs: T0 + 5 * min, phaseSinceMs: T0, elapsed })).toBe('paused by you since 2026-01-01 09:00 UTC (5 min ago): lunch');
    const budget = run({ status: 'PAUSED', pauses: [{ kind: 'budget', by: 'budget', since: new Date(T0).toISOString() }] });
    expect(quietLine(budget, { nowMs: T0 + 2 * 3600_000, elapsed })).toBe('paused by its budget since 2026-01-01 09:00 UTC (2 h 0 min ago)');
  });

  it("V5 V8 a run paused by the model's outage: the cause in words, never the raw error", () => {
    const reason = `LLM unavailable since 2026-01-01T09:00:00.000Z: LLM unavailable: worker_step request to http://127.0.0.1:8484/v1 could not connect or timed out: Connection error. (connect ECONNREFUSED 127.0.0.1:8484)`;
    const r = run({ status: 'PAUSED', pauses: [{ kind: 'llm_outage', by: 'llm', since: new Date(T0).toISOString(), reason }] });
    expect(quietLine(r, { nowMs: T0 + 32_000, elapsed })).toBe(
      'paused because of the model since 2026-01-01 09:00 UTC (32 s ago): the model is not answering (connection refused); it is tried again by itself, at most a minute apart',
    );
  });

  it('V5 a run at work: the phase and its running tasks with their time, a task whose worker was lost marked', () => {
    const c = { nowMs: T0 + 90_000, phaseSinceMs: T0, running: [{ id: 'a', sinceMs: T0 + 30_000, workerLost: 'worker lost, retrying' }], elapsed };
    expect(quietLine(run({ phase: 'execution' }), c)).toBe('still in the Execution phase for 90s (running: a 60s — worker lost, retrying)');
    expect(quietLine(run(), { nowMs: T0, elapsed })).toBeUndefined();
  });

  it('V5 how long ago', () => {
    expect([0, 4_000, 45_000, 119_000, 89 * min, 95 * min].map(agoText)).toEqual([
      'just now',
      'just now',
      '45 s ago',
      '1 min ago',
      '89 min ago',
      '1 h 35 min ago',
    ]);
  });
});

describe('V5 an open watch and the run’s queue', () => {
  const notice = 20_000;
  it('V5 a live poller: nothing to tell, and the silence starts again', () => {
    const r = lookAtQueue(
      { lastAliveMs: T0, told: true },
      { pollers: [{ identity: 'x', lastAccessMs: T0 + 50_000 }], nowMs: T0 + 60_000, noticeMs: notice },
    );
    expect(r).toEqual({ watch: { lastAliveMs: T0 + 60_000, told: false } });
  });

  it('V5 a dead worker (its process gone on this host): told once the silence since its last poll reaches the notice time, once', () => {
    const dead = { identity: '42@here', lastAccessMs: T0 + 5000, localAlive: false };
    const w = { lastAliveMs: T0, told: false };
    expect(lookAtQueue(w, { pollers: [dead], nowMs: T0 + 20_000, noticeMs: notice }).silentMs).toBeUndefined();
    const told = lookAtQueue(w, { pollers: [dead], nowMs: T0 + 25_000, noticeMs: notice });
    expect(told.silentMs).toBe(20_000);
    expect(lookAtQueue(told.watch, { pollers: [dead], nowMs: T0 + 60_000, noticeMs: notice }).silentMs).toBeUndefined();
  });

  it('V5 no poller at all: the silence counts from the last look that saw one (or the watch’s start); off never tells', () => {
    expect(lookAtQueue({ lastAliveMs: T0, told: false }, { pollers: [], nowMs: T0 + 30_000, noticeMs: notice }).silentMs).toBe(30_000);
    expect(lookAtQueue({ lastAliveMs: T0, told: false }, { pollers: [], nowMs: T0 + 30_000, noticeMs: 0 }).silentMs).toBeUndefined();
  });

  it('V5 the one line, starting a worker or saying how', () => {
    expect(noWorkerLine(25_400)).toBe("no worker has picked up this run's work for 25 s; starting one");
    expect(noWorkerLine(25_000, 'start its worker: REPLANNER_TASK_QUEUE=q replanner worker')).toBe(
      "no worker has picked up this run's work for 25 s; start its worker: REPLANNER_TASK_QUEUE=q replanner worker",
    );
  });

  it('V5 REPLANNER_NO_WORKER_NOTICE: seconds, s or m, off; anything else named', () => {
    expect([undefined, '', '5', '5s', '1m', 'off', '0'].map(parseNoWorkerNotice)).toEqual([20_000, 20_000, 5000, 5000, 60_000, 0, 0]);
    expect(parseNoWorkerNotice('soon')).toEqual({
      error: 'REPLANNER_NO_WORKER_NOTICE must be a time from 1s to 60m (e.g. 20s), or off (got "soon")',
    });
    expect(parseNoWorkerNotice('0.5')).toHaveProperty('error');
  });
});
