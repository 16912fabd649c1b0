// P2 / P3 / P7: what a task keeps of its iterations (the signal window), the `!` of a failed tool
// call, and the vitals and complexity read from them.
import {
  FAILED_CALL_MARK,
  JUDGE_CONFIDENCES_KEPT,
  NEUTRAL_MOOD,
  NO_TASK_SIGNALS,
  SIGNAL_WINDOW,
  isFailedCall,
  recordTaskSignals,
  taskComplexity,
  taskVitals,
  toolCallSignature,
  type IterationSignals,
  type TaskSignals,
} from '../../../src/domain/pacemaker';

const quiet: IterationSignals = { judgeConfidence: null, missingRequirements: [], actionSignatures: [], steps: 0, toolCalls: 0, toolErrors: 0 };

describe('toolCallSignature and isFailedCall (the `!` convention of worker step reports)', () => {
  it.each([
    ['write_file', '{"path": "a.txt",  "content": "A"}', true, 'write_file({"path":"a.txt","content":"A"})'],
    ['write_file', '{"path": "a.txt"}', false, `write_file({"path":"a.txt"})${FAILED_CALL_MARK}`],
    ['run_command', '', true, 'run_command({})'],
    ['run_command', 'not json', false, 'run_command(not json)!'],
  ])('P2 %s %j ok=%s → %s', (name, args, ok, expected) => {
    expect(toolCallSignature(name, args, ok)).toBe(expected);
    expect(isFailedCall(expected)).toBe(!ok);
  });

  it('P2 long names and arguments are clipped in the middle', () => {
    const s = toolCallSignature('x'.repeat(100), JSON.stringify({ content: 'y'.repeat(500) }), false);
    expect(s.length).toBeLessThan(200);
    expect(s).toMatch(/chars cut/);
    expect(isFailedCall(s)).toBe(true);
  });
});

describe('recordTaskSignals (P2/P3 signal window, P7 progress)', () => {
  it('P2 keeps the judge confidences given (the last few), not the nulls', () => {
    let s: TaskSignals = NO_TASK_SIGNALS;
    for (const c of [0.1, null, 0.2, 0.3, 0.4]) s = recordTaskSignals(s, { ...quiet, judgeConfidence: c }).signals;
    expect(s.judgeConfidences).toEqual([0.2, 0.3, 0.4]);
    expect(JUDGE_CONFIDENCES_KEPT).toBe(3);
  });

  it('P2 keeps the last SIGNAL_WINDOW signatures, and of them the failed ones', () => {
    const calls = Array.from({ length: SIGNAL_WINDOW + 3 }, (_, i) => (i % 2 ? `c${i}()!` : `c${i}()`));
    const { signals } = recordTaskSignals(NO_TASK_SIGNALS, { ...quiet, actionSignatures: calls });
    expect(signals.actions).toEqual(calls.slice(-SIGNAL_WINDOW));
    expect(signals.errors).toEqual(calls.filter(isFailedCall).slice(-SIGNAL_WINDOW));
    expect(signals.errors.every(isFailedCall)).toBe(true);
  });

  it('P3 adds up steps, tool calls and failed tool calls', () => {
    const once = recordTaskSignals(NO_TASK_SIGNALS, { ...quiet, steps: 3, toolCalls: 2, toolErrors: 1 }).signals;
    const twice = recordTaskSignals(once, { ...quiet, steps: 4, toolCalls: 5, toolErrors: 0 }).signals;
    expect([twice.historyTurns, twice.toolRuns, twice.toolErrors]).toEqual([7, 7, 1]);
    expect(taskComplexity(2, twice)).toEqual({ files: 2, historyTurns: 7, toolRuns: 7, toolErrors: 1 });
  });

  it.each([
    ['the same missing requirements', { missingRequirements: ['a'] }, { missingRequirements: ['a'] }, false],
    ['the same tool calls', { actionSignatures: ['w(x)'] }, { actionSignatures: ['w(x)'] }, false],
    ['something new', { missingRequirements: ['a'] }, { missingRequirements: ['b'] }, true],
  ])('P7 %s twice: progressed=%s', (_what, first, second, progressed) => {
    const one = recordTaskSignals(NO_TASK_SIGNALS, { ...quiet, ...first });
    expect(one.progressed).toBe(true);
    expect(recordTaskSignals(one.signals, { ...quiet, ...second }).progressed).toBe(progressed);
  });
});

describe('taskVitals (P2 from the kept signals)', () => {
  it('P2 a fresh task: neutral mood, full focus and stamina', () => {
    expect(taskVitals(NO_TASK_SIGNALS, 0, 10)).toEqual({ mood: NEUTRAL_MOOD, focus: 1, stamina: 1 });
  });

  it('P2 mood from the kept confidences, focus from repeated failures, stamina from the attempts', () => {
    const s: TaskSignals = { ...NO_TASK_SIGNALS, judgeConfidences: [0.2, 0.4], actions: ['a()!', 'b()', 'c()', 'd()'], errors: ['a()!', 'a()!'] };
    const v = taskVitals(s, 3, 4);
    expect(v.mood).toBeCloseTo(0.3, 12);
    expect(v.focus).toBeCloseTo(0.5, 12);
    expect(v.stamina).toBeCloseTo(0.25, 12);
  });
});
