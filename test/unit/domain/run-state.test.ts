// The run entity's state and its pure transitions (the entity of docs/architecture.md; S2, X1, X3, X9, X13, X14, P7).
import { addPlanningUsage, cancelRun, completeRun, enterPhase } from '../../../src/domain/run/phases';
import { allAnswered, answerQuestion, applyConsultation, askQuestions, timeOutQuestions } from '../../../src/domain/run/questions';
import { applyJump, applyTaskProgress, restorePrevious, setDecomposition, takeFeedback } from '../../../src/domain/run/plan';
import {
  decisionsView,
  inspectionMemo,
  MEMO_CHECKLIST,
  MEMO_DECISIONS,
  MEMO_STATUS,
  memoProgressKey,
  progressMemo,
  statusView,
} from '../../../src/domain/run/views';
import { initialRunState, type RunState } from '../../../src/domain/run/state';
import { recordDecision } from '../../../src/domain/run/decisions';
import { NO_REPLAN } from '../../../src/domain/replan/decision';
import { TaskState, type TaskRecord, type TaskSpec } from '../../../src/domain/types';
import { ZERO_USAGE } from '../../../src/domain/usage';
import { pendingConsultation } from '../../support/consultations';

const spec = (id: string, dependencies: string[] = []): TaskSpec => ({
  id,
  title: `task ${id}`,
  description: '',
  acceptanceCriteria: [],
  dependencies,
  scopePaths: [],
  profile: 'FILE_OPERATION',
});
const usage = (n: number) => ({ promptTokens: n, completionTokens: n, totalTokens: 2 * n, calls: 1 });

/** A run in its first execution round with tasks a and b. */
function executing(): RunState {
  const planned = setDecomposition(initialRunState({ runId: 'r', instruction: 'do', workspace: '/w' }), [spec('a'), spec('b', ['a'])]);
  return enterPhase(planned, 'execution').state;
}
const withStates = (s: RunState, states: Record<string, TaskState>): TaskRecord[] => s.tasks.map((t) => ({ ...t, state: states[t.id] ?? t.state }));
const accepted = (r: ReturnType<typeof applyTaskProgress>): RunState => {
  if (!r.ok) throw new Error(r.reason);
  return r.state;
};

describe('RunState phases', () => {
  it('X1 entering a phase counts its runs; a new execution round restarts progress numbering', () => {
    let s = executing();
    expect(s.phase).toBe('execution');
    expect(s.phaseRuns.execution).toBe(1);
    s = accepted(applyTaskProgress(s, { round: 1, seq: 1, tasks: s.tasks, usage: usage(3) }));
    const again = enterPhase(s, 'execution');
    expect(again.n).toBe(2);
    expect(again.state.progressSeq).toBe(0);
    expect(again.state.executionUsage).toEqual(ZERO_USAGE);
  });

  it('X3 X13 a jump keeps the plan before it and reopens the retried task; restorePrevious brings the plan back', () => {
    const s = { ...executing(), tasks: withStates(executing(), { a: TaskState.DONE, b: TaskState.BLOCKED }) };
    const j = applyJump(
      s,
      { target: 'execution', taskId: 'b', feedback: 'retry b', type: 'action_regeneration', keepsCompletedWork: true },
      30,
    ).state;
    expect(j.tasks.map((t) => t.state)).toEqual([TaskState.DONE, TaskState.READY]);
    expect(j.previous?.tasks.map((t) => t.state)).toEqual([TaskState.DONE, TaskState.BLOCKED]);
    const f = takeFeedback(j, 'execution');
    expect(f.feedback).toBe('retry b');
    expect(takeFeedback(f.state, 'execution').feedback).toBeUndefined();
    expect(restorePrevious(j).tasks.map((t) => t.state)).toEqual([TaskState.DONE, TaskState.BLOCKED]);
  });

  it('X1 the run ends DONE, BLOCKED naming the blocked tasks, or CANCELLED closing open tasks', () => {
    const s = executing();
    expect(completeRun({ ...s, tasks: withStates(s, { a: TaskState.DONE, b: TaskState.DONE }) })).toMatchObject({
      status: 'DONE',
      phase: 'finished',
      blocked: [],
    });
    const blocked = completeRun({ ...s, tasks: s.tasks.map((t) => (t.id === 'b' ? { ...t, state: TaskState.BLOCKED, summary: 'no tool' } : t)) });
    expect(blocked).toMatchObject({ status: 'BLOCKED', blocked: [{ taskId: 'b', reason: 'no tool' }] });
    const cancelled = cancelRun({ ...s, tasks: withStates(s, { a: TaskState.DONE, b: TaskState.RUNNING }) });
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.tasks.map((t) => t.state)).toEqual([TaskState.DONE, TaskState.CANCELLED]);
  });
});

describe('S2 task progress (a delta) is checked against the run state', () => {
  it('S2 progress of the current round with the next sequence number is accepted; usage adds to planning usage in status', () => {
    let s = addPlanningUsage(executing(), usage(10));
    s = accepted(applyTaskProgress(s, { round: 1, seq: 1, tasks: withStates(s, { a: TaskState.RUNNING }), usage: usage(5) }));
    expect(s.tasks[0]!.state).toBe(TaskState.RUNNING);
    expect(statusView(s).usage).toEqual({ promptTokens: 15, completionTokens: 15, totalTokens: 30, calls: 2 });
  });

  it('B1 S2 a report names only the tasks that changed; the others keep their state, and the next report builds on it', () => {
    let s = executing();
    s = accepted(applyTaskProgress(s, { round: 1, seq: 1, tasks: [{ ...s.tasks[0]!, state: TaskState.RUNNING }], usage: usage(1) }));
    s = accepted(applyTaskProgress(s, { round: 1, seq: 2, tasks: [{ ...s.tasks[0]!, state: TaskState.DONE, summary: 'ok' }], usage: usage(2) }));
    s = accepted(applyTaskProgress(s, { round: 1, seq: 3, tasks: [{ ...s.tasks[1]!, state: TaskState.RUNNING }], usage: usage(3) }));
    expect(s.tasks.map((t) => [t.id, t.state, t.summary])).toEqual([
      ['a', TaskState.DONE, 'ok'],
      ['b', TaskState.RUNNING, undefined],
    ]);
    expect(s.progressSeq).toBe(3);
    expect(s.executionUsage).toEqual(usage(3));
  });

  it.each([
    ['a version from the past', (s: RunState) => ({ round: 1, seq: 1, tasks: [s.tasks[1]!], usage: usage(1) }), 'version 1 is not newer than 1'],
    ['another round', (s: RunState) => ({ round: 2, seq: 2, tasks: [s.tasks[1]!], usage: usage(1) }), 'round 2 is not the current execution round 1'],
    ['an unknown task id', (s: RunState) => ({ round: 1, seq: 2, tasks: [{ ...s.tasks[0]!, id: 'zz' }], usage: usage(1) }), 'unknown task id(s): zz'],
    ['a task id twice', (s: RunState) => ({ round: 1, seq: 2, tasks: [s.tasks[1]!, s.tasks[1]!], usage: usage(1) }), 'a task id appears twice'],
    [
      'a finished task reopened',
      (s: RunState) => ({ round: 1, seq: 2, tasks: [{ ...s.tasks[0]!, state: TaskState.RUNNING }], usage: usage(1) }),
      'finished task(s) cannot change state: a (DONE)',
    ],
  ])('S2 refused: %s', (_, make, reason) => {
    const s = accepted(applyTaskProgress(executing(), { round: 1, seq: 1, tasks: withStates(executing(), { a: TaskState.DONE }), usage: usage(1) }));
    expect(applyTaskProgress(s, make(s))).toEqual({ ok: false, reason });
  });

  it('S2 the phase version may grow by more than one between two reads; the same version with nothing new changes nothing', () => {
    const s = accepted(applyTaskProgress(executing(), { round: 1, seq: 1, tasks: withStates(executing(), { a: TaskState.DONE }), usage: usage(1) }));
    const later = accepted(applyTaskProgress(s, { round: 1, seq: 7, tasks: [{ ...s.tasks[1]!, state: TaskState.RUNNING }], usage: usage(2) }));
    expect(later.progressSeq).toBe(7);
    expect(later.tasks[1]!.state).toBe(TaskState.RUNNING);
    expect(applyTaskProgress(later, { round: 1, seq: 7, tasks: [], usage: usage(2) })).toEqual({ ok: true, state: later });
  });

  it('S2 progress outside an execution phase is refused', () => {
    const s = initialRunState({ runId: 'r', instruction: 'do', workspace: '/w' });
    expect(applyTaskProgress(s, { round: 0, seq: 1, tasks: [], usage: usage(1) })).toEqual({
      ok: false,
      reason: 'no execution phase is running (phase: goal_understanding)',
    });
  });

  const replacedBy = (t: TaskRecord, ids: string[]): TaskRecord => ({
    ...t,
    state: TaskState.REPLACED_BY_REPLAN,
    replanningInfo: { iteration: 0, maxIterations: 2, replacedBy: ids },
  });
  const fresh = (id: string, dependencies: string[] = []): TaskRecord => ({ ...spec(id, dependencies), state: TaskState.READY });

  it('J5 S2 the replacements of a task re-decomposed in the same report are known and follow it; invented ones are not', () => {
    const s = executing();
    const ok = accepted(
      applyTaskProgress(s, {
        round: 1,
        seq: 1,
        tasks: [replacedBy(s.tasks[0]!, ['a.1', 'a.2']), fresh('a.1'), fresh('a.2'), { ...s.tasks[1]!, dependencies: ['a.1', 'a.2'] }],
        usage: usage(1),
      }),
    );
    expect(ok.tasks.map((t) => [t.id, t.state])).toEqual([
      ['a', TaskState.REPLACED_BY_REPLAN],
      ['a.1', TaskState.READY],
      ['a.2', TaskState.READY],
      ['b', TaskState.READY],
    ]);
    expect(ok.tasks[3]!.dependencies).toEqual(['a.1', 'a.2']);
    const forged = applyTaskProgress(s, { round: 1, seq: 1, tasks: [replacedBy(s.tasks[0]!, ['a.1']), fresh('a.1'), fresh('a.2')], usage: usage(1) });
    expect(forged).toEqual({ ok: false, reason: 'unknown task id(s): a.2' });
    // A replacement named by a task replaced in an earlier report is not new any more.
    expect(applyTaskProgress(ok, { round: 1, seq: 2, tasks: [fresh('a.3')], usage: usage(1) })).toEqual({
      ok: false,
      reason: 'unknown task id(s): a.3',
    });
  });

  it('J5 S2 a task replaced without its replacements is refused', () => {
    const s = executing();
    expect(applyTaskProgress(s, { round: 1, seq: 1, tasks: [replacedBy(s.tasks[0]!, ['a.1', 'a.2']), fresh('a.1')], usage: usage(1) })).toEqual({
      ok: false,
      reason: 'replacement task(s) missing: a.2',
    });
  });

  it('J5 S2 a replacement re-decomposed again before the next report: both levels accepted, each after the task it replaces', () => {
    const s = executing();
    const ok = accepted(
      applyTaskProgress(s, {
        round: 1,
        seq: 1,
        tasks: [replacedBy(s.tasks[0]!, ['a.1', 'a.2']), replacedBy(fresh('a.1'), ['a.1.1']), fresh('a.2'), fresh('a.1.1')],
        usage: usage(1),
      }),
    );
    expect(ok.tasks.map((t) => t.id)).toEqual(['a', 'a.1', 'a.1.1', 'a.2', 'b']);
  });
});

describe('P7 S2 consultations are checked against the run state', () => {
  const consultation = pendingConsultation;
  const running = () => {
    const s = executing();
    return accepted(applyTaskProgress(s, { round: 1, seq: 1, tasks: withStates(s, { a: TaskState.RUNNING }), usage: usage(1) }));
  };

  it('P7 a running task opens its next consultation and closes it by id', () => {
    const opened = applyConsultation(running(), { taskId: 'a', consultationId: 'a-c1', consultation: consultation('a', 1) });
    if (!opened.ok) throw new Error(opened.reason);
    expect(statusView(opened.state).consultations).toEqual([consultation('a', 1)]);
    const closed = applyConsultation(opened.state, { taskId: 'a', consultationId: 'a-c1', consultation: null });
    if (!closed.ok) throw new Error(closed.reason);
    expect(closed.state.consultations).toEqual([]);
    // The numbering only goes up: c1 again is stale, c2 is next.
    expect(applyConsultation(closed.state, { taskId: 'a', consultationId: 'a-c1', consultation: consultation('a', 1) })).toEqual({
      ok: false,
      reason: 'consultation a-c1 is not newer than a-c1',
    });
    expect(applyConsultation(closed.state, { taskId: 'a', consultationId: 'a-c2', consultation: consultation('a', 2) }).ok).toBe(true);
  });

  it('P7 a task run again in a new execution round numbers its consultations from c1 again', () => {
    const opened = applyConsultation(running(), { taskId: 'a', consultationId: 'a-c1', consultation: consultation('a', 1) });
    if (!opened.ok) throw new Error(opened.reason);
    const round2 = enterPhase(opened.state, 'execution').state;
    expect(statusView(round2).consultations).toEqual([]);
    const progressed = accepted(
      applyTaskProgress(round2, { round: 2, seq: 1, tasks: withStates(round2, { a: TaskState.RUNNING }), usage: usage(1) }),
    );
    expect(applyConsultation(progressed, { taskId: 'a', consultationId: 'a-c1', consultation: consultation('a', 1) }).ok).toBe(true);
  });

  it.each([
    ['an unknown task', { taskId: 'zz', consultationId: 'zz-c1', consultation: consultation('zz', 1) }, 'unknown task "zz"'],
    ['a task that is not running', { taskId: 'b', consultationId: 'b-c1', consultation: consultation('b', 1) }, 'task b is READY, not running'],
    [
      'an id outside the task numbering',
      { taskId: 'a', consultationId: 'x', consultation: { ...consultation('a', 1), id: 'x' } },
      'consultation id "x" is not one of task a (a-c<n>)',
    ],
    [
      'a mismatched message id',
      { taskId: 'a', consultationId: 'a-c2', consultation: consultation('a', 1) },
      'consultation id "a-c1" is not one of task a (a-c<n>)',
    ],
    [
      'closing a consultation nobody opened',
      { taskId: 'a', consultationId: 'a-c1', consultation: null },
      'consultation "a-c1" is not open on task a',
    ],
  ])('S2 refused: %s', (_, m, reason) => {
    expect(applyConsultation(running(), m)).toEqual({ ok: false, reason });
  });
});

describe('X9 X14 decisions and questions', () => {
  it('X14 questions are numbered over the run, answered, or timed out; status shows only pending ones', () => {
    const s0 = initialRunState({ runId: 'r', instruction: 'do', workspace: '/w' });
    const q = {
      kind: 'clarification' as const,
      phase: 'goal_understanding' as const,
      replanId: 'replan-1',
      assumptions: [],
      timeoutMinutes: null,
      askedAt: 't',
    };
    const a = askQuestions(s0, { ...q, texts: ['one?', 'two?'] });
    expect(a.ids).toEqual(['q1', 'q2']);
    const b = askQuestions(a.state, { ...q, texts: ['three?'] });
    expect(b.ids).toEqual(['q3']);
    let s = answerQuestion(b.state, { questionId: 'q1', answer: '  yes ' }, 't2');
    expect(allAnswered(s, a.ids)).toBe(false);
    s = timeOutQuestions(s, a.ids);
    expect(allAnswered(s, a.ids)).toBe(true);
    expect(decisionsView(s).questions.map((x) => [x.id, x.status, x.answer])).toEqual([
      ['q1', 'answered', 'yes'],
      ['q2', 'timed_out', undefined],
      ['q3', 'pending', undefined],
    ]);
    expect(statusView(s).questions?.map((x) => x.id)).toEqual(['q3']);
  });

  it('X9 a recorded decision is in the decisions view and the newest in status (cut to its reasoning)', () => {
    const s0 = initialRunState({ runId: 'r', instruction: 'do', workspace: '/w' });
    const { state, record } = recordDecision(s0, {
      phase: 'goal_understanding',
      decision: NO_REPLAN('all clear'),
      outcome: { action: 'none', reason: 'all clear' },
      timestamp: 't',
    });
    expect(decisionsView(state).records).toEqual([record]);
    expect(statusView(state).lastDecision).toEqual(record);
    expect(statusView(state).recentDecisions).toEqual([{ ...record, llm_decision: { reasoning: 'all clear' } }]);
  });
});

describe('O5 inspection memo', () => {
  it('O5 the memo holds status and decisions, bounded far below the payload limit even for 200 long tasks', () => {
    const specs = Array.from({ length: 200 }, (_, i) => spec(`t${i}`));
    let s = setDecomposition(initialRunState({ runId: 'r', instruction: 'do', workspace: '/w' }), specs);
    s = { ...s, tasks: s.tasks.map((t) => ({ ...t, summary: 'x'.repeat(8000) })) };
    const memo = inspectionMemo(s);
    expect(Object.keys(memo).sort()).toEqual([MEMO_CHECKLIST, MEMO_DECISIONS, MEMO_STATUS].sort());
    expect((memo[MEMO_STATUS] as { tasks: unknown[] }).tasks).toHaveLength(200);
    expect(JSON.stringify(memo).length).toBeLessThan(300_000);
  });

  it("O5 V1 a task's end rewrites only the status and the checklist, the same as the whole memo's", () => {
    const s = { ...executing(), tasks: withStates(executing(), { a: TaskState.DONE }) };
    const whole = inspectionMemo(s);
    const progress = progressMemo(s);
    expect(Object.keys(progress).sort()).toEqual([MEMO_CHECKLIST, MEMO_STATUS].sort());
    expect(progress[MEMO_STATUS]).toEqual(whole[MEMO_STATUS]);
    expect(progress[MEMO_CHECKLIST]).toEqual(whole[MEMO_CHECKLIST]);
  });
});

describe('O5 V1 the memo follows every task that ends', () => {
  const key = (states: Record<string, TaskState>) => {
    const s = executing();
    return memoProgressKey({ ...s, tasks: withStates(s, states) });
  };
  it.each([
    ['a task starts: no new memo', { a: TaskState.RUNNING }, { a: TaskState.READY }, true],
    ['a task asks to continue: no new memo', { a: TaskState.NEEDS_CONTINUATION }, { a: TaskState.RUNNING }, true],
    ['a task ends DONE: a new memo', { a: TaskState.DONE }, { a: TaskState.RUNNING }, false],
    ['a task ends BLOCKED: a new memo', { a: TaskState.BLOCKED }, { a: TaskState.RUNNING }, false],
    ['a task is replaced: a new memo', { a: TaskState.REPLACED_BY_REPLAN }, { a: TaskState.DONE }, false],
  ])('O5 V1 %s', (_what, after, before, same) => {
    expect(key(after) === key(before)).toBe(same);
  });
  it('O5 V1 the plan growing changes it too', () => {
    const s = executing();
    expect(memoProgressKey(s)).not.toBe(memoProgressKey({ ...s, tasks: [...s.tasks, { ...s.tasks[0]!, id: 'c' }] }));
  });
});
