// Issue 11: the scheduler's pure rules — which tasks start now, which changed, and when the history is full.
import { changedTasks, executionHistoryFull, tasksToStart } from '../../../src/domain/graph';
import type { ReplanDecision } from '../../../src/domain/replan';
import { decisionsForRun } from '../../../src/domain/replan/decision-order';
import { TaskState, type TaskRecord } from '../../../src/domain/types';

function rec(id: string, dependencies: string[] = [], state: TaskState = TaskState.READY): TaskRecord {
  return { id, title: `t ${id}`, description: id, acceptanceCriteria: [], dependencies, scopePaths: [], profile: 'FILE_OPERATION', state };
}
const NO_REPLAN: ReplanDecision = {
  replan_needed: false,
  confidence: 0.9,
  reasoning: 'fine',
  replan_type: null,
  issues_found: [],
  recommended_actions: [],
  clarification_needed: false,
  clarification_questions: [],
};
const ids = (ts: TaskRecord[]) => ts.map((t) => t.id);

describe('B1 tasksToStart', () => {
  // a (DONE) ← b; c independent; d ← c; e independent
  const plan = () => [rec('a', [], TaskState.DONE), rec('b', ['a']), rec('c', [], TaskState.RUNNING), rec('d', ['c']), rec('e')];

  it('B1 starts the ready tasks not yet running, up to the free slots, in plan order', () => {
    expect(ids(tasksToStart(plan(), new Set(['c']), 3, false))).toEqual(['b', 'e']);
    expect(ids(tasksToStart(plan(), new Set(['c']), 2, false))).toEqual(['b']);
  });

  it('B1 no free slot: nothing starts (even when more are running than the limit)', () => {
    expect(tasksToStart(plan(), new Set(['c']), 1, false)).toEqual([]);
    expect(tasksToStart(plan(), new Set(['c', 'x']), 1, false)).toEqual([]);
  });

  it('B1 a task whose dependency is not DONE waits', () => {
    expect(ids(tasksToStart(plan(), new Set(['c']), 10, false))).not.toContain('d');
  });

  it('X1 once a decision wants a replan, nothing starts', () => {
    expect(tasksToStart(plan(), new Set(), 10, true)).toEqual([]);
  });
});

describe('B1 changedTasks (a progress report carries only what changed)', () => {
  const base = [rec('a'), rec('b', ['a'])];

  it('B1 the same list, or equal records in new objects: nothing to report', () => {
    expect(changedTasks(base, base)).toEqual([]);
    expect(
      changedTasks(
        base,
        base.map((t) => ({ ...t })),
      ),
    ).toEqual([]);
  });

  it('B1 a state, a summary, an added task or rewired dependencies are reported, and only those records', () => {
    const running = { ...base[0]!, state: TaskState.RUNNING };
    expect(changedTasks(base, [running, base[1]!])).toEqual([running]);
    const summarised = { ...base[1]!, summary: 'blocked by a' };
    expect(changedTasks(base, [base[0]!, summarised])).toEqual([summarised]);
    expect(changedTasks(base, [...base, rec('c')])).toEqual([rec('c')]);
    const rewired = { ...base[1]!, dependencies: ['a', 'c'] };
    expect(changedTasks(base, [base[0]!, rewired, rec('c')])).toEqual([rewired, rec('c')]);
  });

  it('B1 a report of one change in a 200-task plan is one record', () => {
    const plan = Array.from({ length: 200 }, (_, i) => rec(`t${i}`));
    const after = plan.map((t, i) => (i === 150 ? { ...t, state: TaskState.DONE } : t));
    expect(changedTasks(plan, after).map((t) => t.id)).toEqual(['t150']);
  });
});

describe('X1 decisionsForRun (decisions answered beside the scheduler, handed to the run)', () => {
  const no = (taskId: string) => ({ taskId, decision: { ...NO_REPLAN } });
  const yes = (taskId: string) => ({ taskId, decision: { ...NO_REPLAN, replan_needed: true, replan_type: 'retry' as const } });

  it('X1 "no replan" decisions first, then those wanting a replan, each in answer order', () => {
    expect(decisionsForRun([no('a'), yes('b'), no('c'), yes('d'), no('e')]).map((d) => d.taskId)).toEqual(['a', 'c', 'e', 'b', 'd']);
  });

  it('X13 an unparseable decision counts as "no replan"', () => {
    expect(decisionsForRun([{ ...yes('a'), parseError: 'not JSON' }, no('b')]).map((d) => d.taskId)).toEqual(['a', 'b']);
  });
});

describe('S3 executionHistoryFull (the execution phase hands over to a new round)', () => {
  it('S3 full at the threshold or when the server suggests continue-as-new; not below', () => {
    expect(executionHistoryFull(4999, false, 5000)).toBe(false);
    expect(executionHistoryFull(5000, false, 5000)).toBe(true);
    expect(executionHistoryFull(10, true, 5000)).toBe(true);
  });
});
