// V2: what `watch` prints from the run's events (src/client/watch.ts eventPrinter).
import { eventPrinter } from '../../src/client/watch';
import { formatElapsed, runEventLines } from '../../src/client/render-events';
import type { RunEvent, RunStatus } from '../../src/workflows/messages';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const status = (over: Partial<RunStatus> = {}) => ({ status: 'RUNNING', phase: 'execution', ...over }) as RunStatus;

function printer(o: { verbose?: boolean; json?: boolean; longStepMs?: number } = {}) {
  const lines: string[] = [];
  return { lines, p: eventPrinter((l) => lines.push(l), { runId: 'r1', ...o }) };
}

describe('V2 watch printer', () => {
  it('V2 phases, task transitions with how long the task took, decisions naming their task', () => {
    const { lines, p } = printer();
    const events: RunEvent[] = [
      { seq: 1, time: at(0), kind: 'phase', phase: 'execution', n: 1 },
      { seq: 2, time: at(1), kind: 'task', taskId: 'a', title: 'A', state: 'RUNNING' as never },
      { seq: 3, time: at(73), kind: 'task', taskId: 'a', title: 'A', state: 'DONE' as never, summary: 'wrote a' },
      {
        seq: 4,
        time: at(74),
        kind: 'decision',
        phase: 'execution',
        taskId: 'a',
        outcome: 'replan wanted',
        replanType: 'retry',
        confidence: 0.8,
        executed: false,
        result: 'pending',
        reasoning: 'a failed',
        noop: false,
      },
      { seq: 5, time: at(75), kind: 'phase', phase: 'execution', n: 2 },
    ];
    for (const e of events) void p.onEvent(e);
    expect(lines).toEqual([
      'phase: Execution',
      '  [~] a RUNNING',
      '  [x] a DONE — wrote a (1m 12s)',
      '  decision · Execution (task a) · wants to change the plan: retry the task · confidence 0.80 — a failed',
      'phase: Execution (#2)',
    ]);
  });

  it('V2 a decision that changes nothing only with --verbose, and once: its record adds nothing to print', () => {
    const noop: RunEvent = {
      seq: 1,
      time: at(0),
      kind: 'decision',
      replanId: 'replan-3',
      phase: 'reflection',
      outcome: 'none',
      confidence: 0.9,
      executed: false,
      result: 'skipped',
      noop: true,
    };
    const result: RunEvent = {
      seq: 2,
      time: at(0),
      kind: 'decision_result',
      replanId: 'replan-4',
      taskId: 'b',
      outcome: 'none',
      executed: false,
      result: 'skipped',
      noop: true,
    };
    expect(runEventLines(noop, 'r1')).toEqual([]);
    expect(runEventLines(result, 'r1')).toEqual([]);
    expect(runEventLines(noop, 'r1', true)).toEqual(['  decision 3 · Reflection · plan kept · confidence 0.90']);
    expect(runEventLines(result, 'r1', true)).toEqual([]);
  });

  it('V2 a step running long without news gets a line with its elapsed time (not in JSON)', () => {
    const { lines, p } = printer({ longStepMs: 0 });
    const began = new Date(Date.now() - 95_000).toISOString();
    void p.onEvent({ seq: 1, time: began, kind: 'phase', phase: 'execution', n: 1 });
    void p.onEvent({ seq: 2, time: began, kind: 'task', taskId: 'a', title: 'A', state: 'RUNNING' as never });
    p.onStatus(status());
    expect(lines.at(-1)).toMatch(/^ {2}… still in the Execution phase for 1m 3[5-9]s \(running: a 1m 3[5-9]s\)$/);
    p.onStatus(status({ status: 'PAUSED', pauses: [{ kind: 'user', by: 'user', since: began }] }));
    expect(lines.at(-1)).toMatch(/^ {2}… paused by you since \S+ \S+ UTC \(1 min ago\)$/);
    const n = lines.length;
    p.onStatus(status({ status: 'DONE' }));
    expect(lines).toHaveLength(n);
    // With the default threshold (30 s) nothing is added right after a line.
    const quiet = printer();
    void quiet.p.onEvent({ seq: 1, time: began, kind: 'phase', phase: 'execution', n: 1 });
    quiet.p.onStatus(status());
    expect(quiet.lines).toEqual(['phase: Execution']);
  });

  it('V5 a run waiting for an answer: the quiet line says whose answer it waits for and since when, not the phase it is in', () => {
    const { lines, p } = printer({ longStepMs: 0 });
    const began = Date.now() - 106_000;
    void p.onEvent({ seq: 1, time: new Date(began).toISOString(), kind: 'phase', phase: 'goal_understanding', n: 1 });
    const q1 = { id: 'q1', kind: 'clarification', phase: 'goal_understanding', status: 'pending', askedAt: new Date(began + 3000).toISOString() };
    p.onStatus(status({ status: 'WAITING', phase: 'goal_understanding', questions: [q1 as never] }));
    expect(lines.at(-1)).toBe('  … waiting for your answer to q1 (asked 1 min ago)');
    // A task's question: asked when its event came.
    void p.onEvent({ seq: 2, time: new Date(began).toISOString(), kind: 'phase', phase: 'execution', n: 1 });
    void p.onEvent({
      seq: 3,
      time: new Date(Date.now() - 150_000).toISOString(),
      kind: 'consultation',
      consultationId: 't2-c1',
      taskId: 't2',
      consultationKind: 'no_progress',
      message: 'stuck',
    });
    p.onStatus(status({ status: 'WAITING', consultations: [{ id: 't2-c1', taskId: 't2' } as never] }));
    expect(lines.at(-1)).toBe("  … waiting for your answer to t2's question (asked 2 min ago)");
    // A task whose worker was lost says so beside its time.
    void p.onEvent({ seq: 4, time: new Date(began).toISOString(), kind: 'task', taskId: 'a', title: 'A', state: 'RUNNING' as never });
    p.onStatus(status({ tasks: [{ id: 'a', state: 'RUNNING', workerLost: 'worker lost, retrying' } as never] }));
    expect(lines.at(-1)).toMatch(/^ {2}… still in the Execution phase for 1m 4\ds \(running: a 1m 4\ds — worker lost, retrying\)$/);
  });

  it('V5 no worker picks up the run’s work: one line, starting one or saying how; --json: kind no_worker', () => {
    const { lines, p } = printer();
    p.onNoWorker({ silentMs: 25_000, taskQueue: 'q' });
    p.onNoWorker({ silentMs: 21_000, taskQueue: 'q', fix: 'start its worker: REPLANNER_TASK_QUEUE=q replanner worker' });
    expect(lines).toEqual([
      "  … no worker has picked up this run's work for 25 s; starting one",
      "  … no worker has picked up this run's work for 21 s; start its worker: REPLANNER_TASK_QUEUE=q replanner worker",
    ]);
    const json = printer({ json: true });
    json.p.onNoWorker({ silentMs: 25_000, taskQueue: 'q' });
    expect(JSON.parse(json.lines[0]!)).toMatchObject({ kind: 'no_worker', silentSeconds: 25, taskQueue: 'q', starting: true });
  });

  it('V2 --json: one object per line with seq, time and kind; dropped events and worker steps too', () => {
    const { lines, p } = printer({ json: true, longStepMs: 0 });
    p.onDropped(7);
    void p.onEvent({ seq: 8, time: at(0), kind: 'phase', phase: 'reflection', n: 1 });
    p.onWorkerStep({ kind: 'worker_step', taskId: 'a', time: at(1), iteration: 1, step: 2, actions: ['run_command(node t.js)'], toolErrors: 0 });
    p.onStatus(status());
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { kind: 'dropped', count: 7 },
      { seq: 8, time: at(0), kind: 'phase', phase: 'reflection', n: 1 },
      { kind: 'worker_step', taskId: 'a', time: at(1), iteration: 1, step: 2, actions: ['run_command(node t.js)'], toolErrors: 0 },
    ]);
  });

  it('V2 dropped events and worker steps for people', () => {
    const { lines, p } = printer();
    p.onDropped(12);
    p.onWorkerStep({
      kind: 'worker_step',
      taskId: 'test',
      time: at(0),
      iteration: 2,
      step: 1,
      actions: ['write_file(test/x.js)', 'run_command(node test/x.js)!'],
      toolErrors: 1,
    });
    expect(lines).toEqual([
      '  (12 events dropped: the run keeps only its newest 300)',
      '      test · step 2.1: write_file(test/x.js), run_command(node test/x.js)! (1 failed)',
    ]);
  });

  it('V2 elapsed times', () => {
    expect([formatElapsed(0), formatElapsed(12_400), formatElapsed(185_000), formatElapsed(3_725_000)]).toEqual(['0s', '12s', '3m 05s', '1h 02m']);
  });
});
