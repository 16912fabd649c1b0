import { applyJump, tasksFromActions } from '../../../src/domain/replan/jump';
import { TaskState, type TaskRecord } from '../../../src/domain/types';

function rec(id: string, state: TaskState, summary?: string): TaskRecord {
  return {
    id,
    title: id,
    description: id,
    acceptanceCriteria: [],
    dependencies: [],
    scopePaths: [],
    profile: 'FILE_OPERATION',
    state,
    ...(summary ? { summary } : {}),
  };
}
const plan = () => [
  rec('a', TaskState.DONE, 'done'),
  rec('b', TaskState.BLOCKED, 'failed'),
  rec('c', TaskState.CANCELLED),
  rec('d', TaskState.REPLACED_BY_REPLAN),
  rec('e', TaskState.READY),
];
const states = (ts: TaskRecord[]) => ts.map((t) => `${t.id}:${t.state}`);

describe('X3 / X11 applyJump: which tasks a jump reopens and keeps', () => {
  it('X3 level 1 retry (execution + task): only that task is READY again, its old summary gone', () => {
    const r = applyJump(plan(), { target: 'execution', keepsCompletedWork: true, taskId: 'b' }, 30);
    expect(states(r.tasks)).toEqual(['a:DONE', 'b:READY', 'c:CANCELLED', 'd:REPLACED_BY_REPLAN', 'e:READY']);
    expect(r.tasks[1]!.summary).toBeUndefined();
    expect(r.added).toEqual([]);
  });

  it('X11 levels 2–3 keep completed work: DONE and replaced tasks stay, unfinished ones are READY', () => {
    const r = applyJump(plan(), { target: 'action_sequence', keepsCompletedWork: true }, 30);
    expect(states(r.tasks)).toEqual(['a:DONE', 'b:READY', 'c:READY', 'd:REPLACED_BY_REPLAN', 'e:READY']);
    expect(r.tasks[0]!.summary).toBe('done');
  });

  it.each(['task_decomposition', 'goal_understanding'] as const)('X11 a jump to %s (levels 4–5) leaves the list to the new plan', (target) => {
    const before = plan();
    const r = applyJump(before, { target, keepsCompletedWork: false }, 30);
    expect(r.tasks).toBe(before);
  });

  it('X3 a plan revision adds its additional actions as READY tasks after the kept ones', () => {
    const r = applyJump(plan(), { target: 'action_sequence', keepsCompletedWork: true, additionalActions: ['write docs', 'add a test'] }, 30);
    expect(r.added).toEqual(['add-1', 'add-2']);
    expect(states(r.tasks).slice(-2)).toEqual(['add-1:READY', 'add-2:READY']);
    expect(r.dropped).toBe(0);
  });

  it('S3 X3 additional actions beyond planning.maxTasks are dropped and counted', () => {
    // 4 active tasks (d is replaced), limit 5: one action fits.
    const r = applyJump(plan(), { target: 'action_sequence', keepsCompletedWork: true, additionalActions: ['x', 'y', 'z'] }, 5);
    expect(r.added).toEqual(['add-1']);
    expect(r.dropped).toBe(2);
  });

  it('X3 additional actions are ignored by a jump that does not keep completed work', () => {
    const r = applyJump(plan(), { target: 'task_decomposition', keepsCompletedWork: false, additionalActions: ['x'] }, 30);
    expect(r.added).toEqual([]);
  });
});

describe('X3 tasksFromActions', () => {
  it('X3 ids are unique against existing tasks, blank actions skipped, dependencies only on DONE tasks', () => {
    const existing = [rec('add-1', TaskState.DONE), rec('b', TaskState.BLOCKED), rec('c', TaskState.DONE)];
    const out = tasksFromActions(existing, ['  ', 'first\nmore detail', 'second']);
    expect(out.map((t) => t.id)).toEqual(['add-2', 'add-3']);
    expect(out[0]).toMatchObject({ title: 'first', description: 'first\nmore detail', dependencies: ['add-1', 'c'], state: TaskState.READY });
  });

  it('X3 hostile sizes are bounded', () => {
    const [t] = tasksFromActions([], ['x'.repeat(100_000)]);
    expect(t!.title.length).toBeLessThan(200);
    expect(t!.description.length).toBeLessThan(2100);
    expect(t!.acceptanceCriteria[0]!.length).toBeLessThan(600);
  });
});
