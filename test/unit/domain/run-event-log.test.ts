// V2: the run's event log policy (src/domain/run/event-log.ts) and how the run's state feeds it (withEvents).
import {
  appendRunEvents,
  emptyEventLog,
  executionDecisionNote,
  runEventsAfter,
  runEventsBetween,
  type RunEventBody,
} from '../../../src/domain/run/event-log';
import { answerQuestion, applyConsultation, askQuestions } from '../../../src/domain/run/questions';
import { applyTaskProgress, setDecomposition } from '../../../src/domain/run/plan';
import { completeReplan, recordDecision } from '../../../src/domain/run/decisions';
import { completeRun, enterPhase } from '../../../src/domain/run/phases';
import { eventsView, withEvents } from '../../../src/domain/run/events';
import { initialRunState, type PendingConsultation, type RunState } from '../../../src/domain/run/state';
import { pauseRun, resumeRun } from '../../../src/domain/run/pause';
import { NO_REPLAN } from '../../../src/domain/replan/decision';
import { resolveReplan } from '../../../src/domain/replan/resolve';
import { TaskState } from '../../../src/domain/types';
import { ZERO_USAGE } from '../../../src/domain/usage';
import { taskSpec } from '../../support/tasks';

const body = (n: number): RunEventBody => ({ kind: 'phase', phase: 'execution', n });
const T0 = '2026-01-01T00:00:00.000Z';

describe('V2 event log: append, trim, read after a cursor', () => {
  it('V2 events are numbered 1, 2, … in order and stamped with the time given', () => {
    const l = appendRunEvents(appendRunEvents(undefined, [body(1), body(2)], T0), [body(3)], 'later');
    expect(l.events.map((e) => [e.seq, e.time])).toEqual([
      [1, T0],
      [2, T0],
      [3, 'later'],
    ]);
    expect(l.nextSeq).toBe(4);
    expect(appendRunEvents(l, [], 'x')).toBe(l);
  });

  it('V2 the log keeps the newest max events; sequence numbers go on', () => {
    let l = emptyEventLog();
    for (let i = 1; i <= 12; i++) l = appendRunEvents(l, [body(i)], T0, 5);
    expect(l.events.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    expect(l.nextSeq).toBe(13);
  });

  it('V2 a reader gets each event after its cursor exactly once; a cursor behind the window is told how many it missed', () => {
    let l = emptyEventLog();
    for (let i = 1; i <= 12; i++) l = appendRunEvents(l, [body(i)], T0, 5);
    expect(runEventsAfter(l, 9)).toMatchObject({ firstSeq: 8, nextSeq: 13, dropped: 0, more: false });
    expect(runEventsAfter(l, 9).events.map((e) => e.seq)).toEqual([10, 11, 12]);
    expect(runEventsAfter(l, 12).events).toEqual([]);
    // Seen up to 3: 4..7 are gone.
    const behind = runEventsAfter(l, 3);
    expect(behind.dropped).toBe(4);
    expect(behind.events.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    // From the start: 1..7 gone.
    expect(runEventsAfter(l, 0).dropped).toBe(7);
    // A cursor beyond the log (or not a number) is no error.
    expect(runEventsAfter(l, 99)).toMatchObject({ events: [], dropped: 0 });
    expect(runEventsAfter(l, Number.NaN).events).toHaveLength(5);
    expect(runEventsAfter(l, -4).events).toHaveLength(5);
    expect(runEventsAfter(undefined, 0)).toEqual({ events: [], firstSeq: 1, nextSeq: 1, dropped: 0, more: false });
  });

  it('V2 a read is paged: `more` says the reader should ask again from the last seq it got', () => {
    let l = emptyEventLog();
    for (let i = 1; i <= 7; i++) l = appendRunEvents(l, [body(i)], T0);
    const first = runEventsAfter(l, 0, 3);
    expect(first.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(first.more).toBe(true);
    const second = runEventsAfter(l, 3, 3);
    expect(second.events.map((e) => e.seq)).toEqual([4, 5, 6]);
    expect(runEventsAfter(l, 6, 3)).toMatchObject({ more: false });
  });
});

/** The execution phase's "no replan" after task a, recorded as the run records it. */
const noReplanAfterA = (x: RunState): RunState =>
  recordDecision(x, { phase: 'execution', taskId: 'a', decision: NO_REPLAN('fine'), outcome: { action: 'none', reason: 'fine' }, timestamp: T0 })
    .state;

/** Applies transitions the way the run does (RunWorkflow's entity.apply). */
function run(s: RunState, ...steps: ((s: RunState) => RunState)[]): RunState {
  return steps.reduce((acc, t) => withEvents(acc, t(acc), T0), s);
}

const kinds = (s: RunState) => eventsView(s, 0).events.map((e) => e.kind);

describe('V2 events from the run state changes (withEvents)', () => {
  const s0 = initialRunState({ runId: 'r', instruction: 'do', workspace: '/w' });
  /** Task `a`'s first consultation. */
  const consultationOfA = (over: Partial<PendingConsultation>): PendingConsultation => ({
    id: 'a-c1',
    taskId: 'a',
    kind: 'no_progress',
    iteration: 2,
    maxLoops: 5,
    message: '',
    trigger: 'x',
    choices: [],
    timeoutMinutes: 10,
    ...over,
  });
  /** The run in its execution phase with task `a` running. */
  const executingA = (s: RunState) =>
    run(
      s,
      (x) => setDecomposition(x, [taskSpec('a')]),
      (x) => enterPhase(x, 'execution').state,
      (x) => ({ ...x, tasks: x.tasks.map((t) => ({ ...t, state: TaskState.RUNNING })) }),
    );

  it('V2 phase entries, new tasks and task transitions, in the order they happened', () => {
    const s = run(
      s0,
      (x) => enterPhase(x, 'task_decomposition').state,
      (x) => setDecomposition(x, [taskSpec('a'), taskSpec('b')]),
      (x) => enterPhase(x, 'execution').state,
      (x) => ({ ...x, tasks: x.tasks.map((t) => (t.id === 'a' ? { ...t, state: TaskState.RUNNING } : t)) }),
      (x) => ({ ...x, tasks: x.tasks.map((t) => (t.id === 'a' ? { ...t, state: TaskState.DONE, summary: 'wrote a' } : t)) }),
      (x) => enterPhase(x, 'execution').state,
    );
    expect(eventsView(s, 0).events).toEqual([
      { seq: 1, time: T0, kind: 'phase', phase: 'task_decomposition', n: 1 },
      { seq: 2, time: T0, kind: 'task', taskId: 'a', title: 'task a', state: 'READY' },
      { seq: 3, time: T0, kind: 'task', taskId: 'b', title: 'task b', state: 'READY' },
      { seq: 4, time: T0, kind: 'phase', phase: 'execution', n: 1 },
      { seq: 5, time: T0, kind: 'task', taskId: 'a', title: 'task a', state: 'RUNNING' },
      { seq: 6, time: T0, kind: 'task', taskId: 'a', title: 'task a', state: 'DONE', summary: 'wrote a' },
      { seq: 7, time: T0, kind: 'phase', phase: 'execution', n: 2 },
    ]);
    // No change, no event.
    expect(withEvents(s, { ...s }, T0).events).toBe(s.events);
  });

  it('V2 a decision names its task; "no replan" is marked noop; its later result is its own event', () => {
    const withDecisions = run(
      s0,
      noReplanAfterA,
      (x) =>
        recordDecision(x, {
          phase: 'reflection',
          decision: { ...NO_REPLAN('x'), replan_needed: true, confidence: 0.9, reasoning: 'docs missing', replan_type: 'plan_revision' },
          outcome: {
            ...resolveReplan('reflection', { ...NO_REPLAN('x'), replan_needed: true, replan_type: 'plan_revision' }),
            action: 'replan',
            confidence: 0.9,
            band: 'immediate',
          },
          timestamp: T0,
        }).state,
      (x) => completeReplan(x, 'replan-2', { result: 'success', durationMs: 5 }),
    );
    const events = eventsView(withDecisions, 0).events;
    expect(events[0]).toMatchObject({
      kind: 'decision',
      replanId: 'replan-1',
      phase: 'execution',
      taskId: 'a',
      outcome: 'none',
      noop: true,
      result: 'skipped',
    });
    expect(events[1]).toMatchObject({
      kind: 'decision',
      replanId: 'replan-2',
      outcome: 'replan',
      replanType: 'plan_revision',
      targetPhase: 'action_sequence',
      noop: false,
      reasoning: 'docs missing',
    });
    expect(events[2]).toMatchObject({ kind: 'decision_result', replanId: 'replan-2', result: 'success' });
    expect(events).toHaveLength(3);
  });

  it('V2 questions asked and answered, consultations, pauses and resumes, and the run end', () => {
    const executing = executingA(s0);
    const consultation = consultationOfA({ message: 'stuck' });
    const s = run(
      executing,
      (x) =>
        askQuestions(x, {
          kind: 'clarification',
          phase: 'execution',
          replanId: 'replan-1',
          texts: ['Which format?'],
          assumptions: ['JSON'],
          timeoutMinutes: 5,
          askedAt: T0,
        }).state,
      (x) => answerQuestion(x, { questionId: 'q1', answer: 'CSV' }, T0),
      (x) => {
        const r = applyConsultation(x, { taskId: 'a', consultationId: 'a-c1', consultation });
        return r.ok ? r.state : x;
      },
      (x) => {
        const r = applyConsultation(x, { taskId: 'a', consultationId: 'a-c1', consultation: null });
        return r.ok ? r.state : x;
      },
      (x) => {
        const r = pauseRun(x, { reason: 'lunch', at: T0 });
        return r.ok ? r.state : x;
      },
      (x) => {
        const r = resumeRun(x);
        return r.ok ? r.state : x;
      },
      (x) => ({ ...x, tasks: x.tasks.map((t) => ({ ...t, state: TaskState.DONE })) }),
      completeRun,
    );
    const events = eventsView(s, 0).events.slice(3);
    expect(events.map((e) => e.kind)).toEqual([
      'question',
      'question_closed',
      'consultation',
      'consultation_closed',
      'pause',
      'resume',
      'task',
      'run_end',
    ]);
    expect(events[0]).toMatchObject({ questionId: 'q1', questionKind: 'clarification', text: 'Which format?', assumptions: ['JSON'] });
    expect(events[1]).toMatchObject({ questionId: 'q1', status: 'answered', answer: 'CSV' });
    expect(events[2]).toMatchObject({ consultationId: 'a-c1', taskId: 'a', consultationKind: 'no_progress' });
    expect(events[4]).toMatchObject({ pauseKind: 'user', by: 'user', reason: 'lunch' });
    expect(events[7]).toMatchObject({ kind: 'run_end', status: 'DONE' });
    expect(kinds(s).slice(0, 4)).toEqual(['task', 'phase', 'task', 'question']);
  });

  it("V9 a consultation event carries the situation and the numbered choices in the run's language (a Japanese instruction: seed 002's words)", () => {
    const open = (instruction: string) => {
      const executing = executingA({ ...s0, instruction });
      const consultation = consultationOfA({
        message: 'No progress.\nThe same again.',
        messageJa: '進捗がありません。\n同じことの繰り返しです。',
        choices: [{ number: 1, key: 'stop', effect: 'stop', label: 'Stop the work', ja: '作業を中止する', needsText: false }],
      });
      const s = run(executing, (x) => {
        const r = applyConsultation(x, { taskId: 'a', consultationId: 'a-c1', consultation });
        return r.ok ? r.state : x;
      });
      return eventsView(s, 0).events.find((e) => e.kind === 'consultation');
    };
    expect(open('パーサーを直してください')).toMatchObject({
      consultationKind: 'no_progress',
      language: 'ja',
      message: '進捗がありません。\n同じことの繰り返しです。',
      choices: [{ number: 1, label: '作業を中止する', needsText: false }],
    });
    expect(open('fix the parser')).toMatchObject({
      language: 'en',
      message: 'No progress.\nThe same again.',
      choices: [{ number: 1, label: 'Stop the work', needsText: false }],
    });
  });

  it('V2 notifications: a delivery and a failure with its error', () => {
    const a = { ...s0, notifications: { target: 'o/r#1', delivered: 0, failed: 0 } };
    const out = runEventsBetween(
      { ...a, pauses: [] },
      { ...a, notifications: { target: 'o/r#1', delivered: 1, failed: 1, lastError: '403 forbidden' }, pauses: [] },
    );
    expect(out).toEqual([{ kind: 'notification', target: 'o/r#1', delivered: 1, failed: 1, error: '403 forbidden' }]);
  });

  it('V2 long texts are clipped (the log stays small)', () => {
    const out = runEventsBetween(
      { ...s0, pauses: [] },
      { ...s0, tasks: [{ ...taskSpec('a'), title: 'x'.repeat(5000), state: TaskState.DONE, summary: 'y'.repeat(5000) }], pauses: [] },
    );
    expect(JSON.stringify(out).length).toBeLessThan(700);
  });
});

describe('V2 execution decisions are told while the phase runs', () => {
  const s0 = initialRunState({ runId: 'r', instruction: 'do', workspace: '/w' });
  const executing = run(
    s0,
    (x) => setDecomposition(x, [taskSpec('a'), taskSpec('b')]),
    (x) => enterPhase(x, 'execution').state,
  );
  const progress = (x: RunState, m: Partial<Parameters<typeof applyTaskProgress>[1]>) => {
    const r = applyTaskProgress(x, { round: 1, seq: x.progressSeq, tasks: [], usage: ZERO_USAGE, ...m });
    if (!r.ok) throw new Error(r.reason);
    return r.state;
  };
  const noteA = executionDecisionNote('a', { ...NO_REPLAN('a is fine'), confidence: 0.9 });
  const wantB = executionDecisionNote('b', { ...NO_REPLAN('x'), replan_needed: true, confidence: 0.8, replan_type: 'retry', reasoning: 'b failed' });

  it('V2 a note of the phase becomes a decision event at once, naming its task; when the run records it, its record id follows as decision_result', () => {
    expect(wantB).toEqual({ taskId: 'b', replan: true, confidence: 0.8, replanType: 'retry', reasoning: 'b failed' });
    const told = run(executing, (x) =>
      progress(x, { seq: 1, tasks: [{ ...x.tasks[0]!, state: TaskState.DONE }], decisions: [noteA], decisionsFrom: 0 }),
    );
    const events = eventsView(told, 0).events.slice(3);
    expect(events.map((e) => e.kind)).toEqual(['task', 'decision']);
    expect(events[1]).toMatchObject({ kind: 'decision', phase: 'execution', taskId: 'a', outcome: 'none', noop: true });
    expect(events[1]).not.toHaveProperty('replanId');
    // The same notes again (a repeated read), or notes that do not follow on: nothing new.
    const again = run(told, (x) => progress(x, { decisions: [noteA], decisionsFrom: 0 }));
    expect(again.events).toBe(told.events);
    const gap = run(told, (x) => progress(x, { decisions: [wantB], decisionsFrom: 5 }));
    expect(gap.executionDecisions).toHaveLength(1);
    // The next one follows on.
    const both = run(told, (x) => progress(x, { decisions: [wantB], decisionsFrom: 1 }));
    expect(eventsView(both, told.events!.nextSeq - 1).events).toEqual([
      expect.objectContaining({ kind: 'decision', taskId: 'b', outcome: 'replan wanted', replanType: 'retry', noop: false }),
    ]);
    // Recorded after the phase: results, not decisions again.
    const recorded = run(both, noReplanAfterA);
    expect(eventsView(recorded, both.events!.nextSeq - 1).events).toEqual([
      expect.objectContaining({ kind: 'decision_result', replanId: 'replan-1', taskId: 'a', outcome: 'none', result: 'skipped', noop: true }),
    ]);
    // A decision about a task not told before is a decision with its record id.
    const other = run(
      recorded,
      (x) =>
        recordDecision(x, { phase: 'reflection', decision: NO_REPLAN('fine'), outcome: { action: 'none', reason: 'fine' }, timestamp: T0 }).state,
    );
    expect(eventsView(other, recorded.events!.nextSeq - 1).events).toEqual([expect.objectContaining({ kind: 'decision', replanId: 'replan-2' })]);
  });

  it('V2 a new execution round starts its notes again', () => {
    const told = run(executing, (x) => progress(x, { decisions: [noteA], decisionsFrom: 0 }));
    const round2 = run(told, (x) => enterPhase(x, 'execution').state);
    expect(round2.executionDecisions).toEqual([]);
    const again = run(round2, (x) => progress({ ...x }, { round: 2, decisions: [noteA], decisionsFrom: 0 }));
    expect(eventsView(again, round2.events!.nextSeq - 1).events).toEqual([expect.objectContaining({ kind: 'decision', taskId: 'a' })]);
  });

  it('V2 a reply that could not be read is told as no replan, with why', () => {
    expect(executionDecisionNote('a', { ...NO_REPLAN('x'), replan_needed: true, confidence: 0 }, 'not JSON')).toMatchObject({
      replan: false,
      reasoning: 'the reply could not be read: not JSON',
    });
  });
});
