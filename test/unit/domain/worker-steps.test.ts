import {
  ACTION_SIGNATURE_WINDOW,
  EMPTY_WORKER_TALLY,
  recordWorkerStep,
  workerIterationDone,
  workerIterationOutcome,
  workerStepLimit,
  type WorkerStepReport,
} from '../../../src/domain/worker-steps';

const step = (r: Partial<WorkerStepReport> = {}): WorkerStepReport => ({
  toolCalls: 0,
  toolErrors: 0,
  actions: [],
  logPath: '.replanner/runs/r/tasks/a/iteration-1.abcd1234',
  ...r,
});

describe('B1 worker steps folded into one iteration (P2/P3 signals)', () => {
  it('B1 tool-calling steps add up; a reply without tool calls is the final answer', () => {
    let t = EMPTY_WORKER_TALLY;
    t = recordWorkerStep(t, step({ toolCalls: 2, toolErrors: 1, actions: ['write_file({"path":"a"})', 'run_command({})!'] }));
    expect(workerIterationDone(t, 24)).toBe(false);
    t = recordWorkerStep(t, step({ toolCalls: 1, actions: ['read_file({"path":"a"})'] }));
    t = recordWorkerStep(t, step({ summary: 'done: wrote a' }));
    expect(workerIterationDone(t, 24)).toBe(true);
    expect(workerIterationOutcome(t)).toEqual({
      summary: 'done: wrote a',
      logPath: '.replanner/runs/r/tasks/a/iteration-1.abcd1234',
      steps: 3,
      toolCalls: 3,
      toolErrors: 1,
      actionSignatures: ['write_file({"path":"a"})', 'run_command({})!', 'read_file({"path":"a"})'],
      finished: true,
    });
  });

  it('B1 the step limit ends the iteration without a final answer', () => {
    let t = EMPTY_WORKER_TALLY;
    t = recordWorkerStep(t, step({ toolCalls: 1, actions: ['list_dir({})'] }));
    expect(workerIterationDone(t, 2)).toBe(false);
    t = recordWorkerStep(t, step({ toolCalls: 1, actions: ['list_dir({})'] }));
    expect(workerIterationDone(t, 2)).toBe(true);
    const o = workerIterationOutcome(t);
    expect(o.finished).toBe(false);
    expect(o.summary).toBe('stopped after 2 steps without a final answer');
  });

  it('B1 only the last signatures are kept, and the summary is bounded', () => {
    let t = EMPTY_WORKER_TALLY;
    for (let i = 0; i < 30; i += 1) t = recordWorkerStep(t, step({ toolCalls: 1, actions: [`s${i}`] }));
    expect(t.actionSignatures).toHaveLength(ACTION_SIGNATURE_WINDOW);
    expect(t.actionSignatures.at(-1)).toBe('s29');
    expect(t.toolCalls).toBe(30);
    t = recordWorkerStep(t, step({ summary: 'x'.repeat(10_000) }));
    expect(workerIterationOutcome(t).summary.length).toBeLessThanOrEqual(2000);
  });

  it.each<[unknown, number]>([
    [24, 24],
    [3.7, 3],
    [0, 1],
    [-5, 1],
    [1e9, 200],
    [Number.NaN, 24],
    [Infinity, 24],
    ['12', 24],
    [undefined, 24],
  ])('B1 the step limit %p is used as %p', (n, want) => {
    expect(workerStepLimit(n)).toBe(want);
  });
});
