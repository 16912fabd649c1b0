import { DEFAULT_CONFIG, parseConfig } from '../../../src/domain/config';
import { TaskState, type TaskRecord, type TaskSpec } from '../../../src/domain/types';
import { applyRedecomposition, canRedecompose } from '../../../src/domain/replan/redecomposition';

/** applyRedecomposition's tasks, failing the test when it refuses. */
function markTaskAsReplanned(tasks: TaskRecord[], originalId: string, newTasks: TaskSpec[], reason: string, maxIterations: number): TaskRecord[] {
  const r = applyRedecomposition(tasks, originalId, newTasks, reason, maxIterations);
  if (!r.ok) throw new Error(r.reason);
  return r.tasks;
}

function spec(id: string, dependencies: string[] = []): TaskSpec {
  return {
    id,
    title: `title ${id}`,
    description: `do ${id}`,
    acceptanceCriteria: [`${id} works`],
    dependencies,
    scopePaths: [`src/${id}.ts`],
    profile: 'MULTI_STEP_TASK',
  };
}
function rec(id: string, dependencies: string[] = [], state: TaskState = TaskState.READY): TaskRecord {
  return { ...spec(id, dependencies), state };
}

// a ← b ← c, and d depends on b too
const graph = (): TaskRecord[] => [rec('a', [], TaskState.DONE), rec('b', ['a'], TaskState.BLOCKED), rec('c', ['b']), rec('d', ['b', 'a'])];
const byId = (ts: TaskRecord[], id: string) => ts.find((t) => t.id === id)!;

describe('J7/J8 canRedecompose', () => {
  it.each<[number | undefined, boolean]>([
    [undefined, true],
    [0, true],
    [2, true],
    [3, false],
    [4, false],
  ])('J7 iteration %p with maxIterations 3 → allowed %p', (iteration, ok) => {
    const task = iteration === undefined ? {} : { replanningInfo: { iteration, maxIterations: 3, replacedBy: [] } };
    expect(canRedecompose(task, DEFAULT_CONFIG).ok).toBe(ok);
  });

  it('J8 task_replanning.enabled false → not allowed (disabled)', () => {
    expect(canRedecompose({}, parseConfig({ task_replanning: { enabled: false } }))).toMatchObject({ ok: false, reason: 'disabled' });
  });

  it('J8 maxIterations 0 → never allowed', () => {
    expect(canRedecompose({}, parseConfig({ task_replanning: { maxIterations: 0 } }))).toMatchObject({ ok: false, reason: 'max_iterations' });
  });
});

describe('J5/J6 markTaskAsReplanned', () => {
  it('J5 the original becomes REPLACED_BY_REPLAN with replacedBy and the reason', () => {
    const out = markTaskAsReplanned(graph(), 'b', [spec('b1'), spec('b2', ['b1']), spec('b3', ['b2'])], 'scope too large', 3);
    expect(byId(out, 'b')).toMatchObject({
      state: TaskState.REPLACED_BY_REPLAN,
      replanningInfo: { iteration: 0, maxIterations: 3, replacedBy: ['b1', 'b2', 'b3'], replanReason: 'scope too large' },
    });
  });

  it("J5 new tasks are READY with iteration +1, the chain's original id and the reason", () => {
    const out = markTaskAsReplanned(graph(), 'b', [spec('b1'), spec('b2')], 'why', 3);
    expect(byId(out, 'b1')).toMatchObject({
      state: TaskState.READY,
      replanningInfo: { iteration: 1, maxIterations: 3, originalTaskId: 'b', replacedBy: [], replanReason: 'why' },
    });
    // second generation keeps the chain's first task as originalTaskId
    const out2 = markTaskAsReplanned(out, 'b1', [spec('b1x'), spec('b1y')], 'again', 3);
    expect(byId(out2, 'b1x').replanningInfo).toMatchObject({ iteration: 2, originalTaskId: 'b' });
  });

  it('J6 dependents of the original wait for all replacements', () => {
    const out = markTaskAsReplanned(graph(), 'b', [spec('b1'), spec('b2', ['b1']), spec('b3')], 'r', 3);
    expect(byId(out, 'c').dependencies).toEqual(['b1', 'b2', 'b3']);
    expect(byId(out, 'd').dependencies).toEqual(['b1', 'b2', 'b3', 'a']);
  });

  it('J6 dependencies among the new tasks are preserved', () => {
    const out = markTaskAsReplanned(graph(), 'b', [spec('b1'), spec('b2', ['b1']), spec('b3', ['b1', 'b2'])], 'r', 3);
    expect(byId(out, 'b2').dependencies).toEqual(['b1']);
    expect(byId(out, 'b3').dependencies).toEqual(['b1', 'b2']);
  });

  it("J6 new tasks with no dependency inside the set inherit the original's dependencies", () => {
    const out = markTaskAsReplanned(graph(), 'b', [spec('b1'), spec('b2', ['b1'])], 'r', 3);
    expect(byId(out, 'b1').dependencies).toEqual(['a']);
    expect(byId(out, 'b2').dependencies).toEqual(['b1']);
  });

  it('J6 ids colliding with existing tasks or with each other are prefixed with the original id', () => {
    const r = applyRedecomposition(graph(), 'b', [spec('a'), spec('x', ['a']), spec('x')], 'r', 3);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.replacementIds).toEqual(['b.a', 'x', 'b.x']);
    expect(r.renamed).toEqual([
      { from: 'a', to: 'b.a' },
      { from: 'x', to: 'b.x' },
    ]);
    // "a" inside the set means the new task, not the existing one
    expect(byId(r.tasks, 'x').dependencies).toEqual(['b.a']);
    expect(new Set(r.tasks.map((t) => t.id)).size).toBe(r.tasks.length);
  });

  it('J6 a dependency on the original is dropped; an unknown one is dropped with a warning', () => {
    const r = applyRedecomposition(graph(), 'b', [spec('b1', ['b']), spec('b2', ['ghost'])], 'r', 3);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(byId(r.tasks, 'b1').dependencies).toEqual(['a']);
    expect(r.warnings).toEqual([expect.stringContaining('ghost')]);
  });

  it('J6 new tasks appear right after the original', () => {
    const out = markTaskAsReplanned(graph(), 'b', [spec('b1'), spec('b2')], 'r', 3);
    expect(out.map((t) => t.id)).toEqual(['a', 'b', 'b1', 'b2', 'c', 'd']);
  });

  it('J6 the input list is not modified', () => {
    const g = graph();
    const copy = JSON.parse(JSON.stringify(g));
    markTaskAsReplanned(g, 'b', [spec('b1')], 'r', 3);
    expect(g).toEqual(copy);
  });

  it.each<[string, number, boolean]>([
    ['0 replacement tasks', 0, false],
    ['1 replacement task', 1, true],
    ['3 replacement tasks', 3, true],
    ['5 replacement tasks', 5, true],
    ['8 replacement tasks', 8, true],
    ['9 replacement tasks', 9, false],
  ])('J6 %s → accepted %p', (_n, count, ok) => {
    const tasks = Array.from({ length: count }, (_, i) => spec(`n${i}`));
    expect(applyRedecomposition(graph(), 'b', tasks, 'r', 3).ok).toBe(ok);
  });

  it('J6 a replacement depending on a dependent of the original (a cycle) is rejected', () => {
    const r = applyRedecomposition(graph(), 'b', [spec('b1', ['c'])], 'r', 3);
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('cycle') });
  });

  it.each([TaskState.DONE, TaskState.CANCELLED, TaskState.REPLACED_BY_REPLAN])('J6 a %s task cannot be re-decomposed', (state) => {
    expect(applyRedecomposition([rec('t', [], state)], 't', [spec('n')], 'r', 3).ok).toBe(false);
  });

  it('J6 an unknown original id is rejected', () => {
    expect(applyRedecomposition(graph(), 'zzz', [spec('n')], 'r', 3).ok).toBe(false);
  });
});
