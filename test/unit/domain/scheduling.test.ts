// Issue 11: the scheduler's pure rules — which tasks start now, and whether progress is worth a report.
import { tasksChanged, tasksToStart } from '../../../src/domain/graph';
import { TaskState, type TaskRecord } from '../../../src/domain/types';

function rec(id: string, dependencies: string[] = [], state: TaskState = TaskState.READY): TaskRecord {
  return { id, title: `t ${id}`, description: id, acceptanceCriteria: [], dependencies, scopePaths: [], profile: 'FILE_OPERATION', state };
}
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
