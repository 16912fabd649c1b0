// Issue 11: the scheduler's pure rules — which tasks start now, and whether progress is worth a report.
import { executionHistoryFull, tasksChanged, tasksToStart } from '../../../src/domain/graph';
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

describe('B1 tasksChanged (a progress report only when it tells the run something)', () => {
  const base = [rec('a'), rec('b', ['a'])];

  it('B1 the same list, or equal records in new objects: no change', () => {
    expect(tasksChanged(base, base)).toBe(false);
    expect(
      tasksChanged(
        base,
        base.map((t) => ({ ...t })),
      ),
    ).toBe(false);
  });

  it('B1 a state, a summary, an added task or rewired dependencies are changes', () => {
    expect(tasksChanged(base, [{ ...base[0]!, state: TaskState.RUNNING }, base[1]!])).toBe(true);
    expect(tasksChanged(base, [base[0]!, { ...base[1]!, summary: 'blocked by a' }])).toBe(true);
    expect(tasksChanged(base, [...base, rec('c')])).toBe(true);
    expect(tasksChanged(base, [base[0]!, { ...base[1]!, dependencies: ['a', 'c'] }])).toBe(true);
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
