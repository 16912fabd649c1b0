import type { TaskSpec } from '../../../src/domain/types';
import { DEFAULT_REFINEMENT_CONFIG, applyIndividualFallback, validateStructure } from '../../../src/domain/refinement';

const config = DEFAULT_REFINEMENT_CONFIG;

function task(id: string, dependencies: string[] = [], title = `task ${id}`): TaskSpec {
  return { id, title, description: '', acceptanceCriteria: [], dependencies, scopePaths: [], profile: 'FILE_OPERATION' };
}
/** n independent tasks t1..tn. */
function plan(n: number): TaskSpec[] {
  return Array.from({ length: n }, (_, i) => task(`t${i + 1}`));
}

describe('validateStructure (R3)', () => {
  it('R3 a valid plan passes', () => {
    const prev = [task('a'), task('b', ['a']), task('c', ['b'])];
    const next = [task('a'), task('b', ['a']), task('c', ['a', 'b']), task('d', ['c'])];
    expect(validateStructure(prev, next, config)).toEqual({ ok: true });
  });

  it.each([
    ['R3 10 → 13 tasks (30%, 3 tasks) is not more than 30%: valid', 10, 13, true],
    ['R3 10 → 14 tasks (40%, 4 tasks): broken', 10, 14, false],
    ['R3 10 → 6 tasks (40%, 4 tasks removed): broken', 10, 6, false],
    ['R3 5 → 7 tasks (40% but only 2 tasks): valid', 5, 7, true],
    ['R3 5 → 8 tasks (60%, 3 tasks): broken', 5, 8, false],
    ['R3 3 → 5 tasks (67% but only 2 tasks): valid', 3, 5, true],
    ['R3 20 → 26 tasks (30%, 6 tasks): valid', 20, 26, true],
    ['R3 20 → 27 tasks (35%, 7 tasks): broken', 20, 27, false],
    ['R3 same count: valid', 4, 4, true],
  ] as const)('%s', (_name, before, after, ok) => {
    const r = validateStructure(plan(before), plan(after), config);
    expect(r.ok).toBe(ok);
    if (!r.ok) expect(r.problems.join('\n')).toMatch(new RegExp(`task count changed from ${before} to ${after}`));
  });

  it('R3 the task-count thresholds come from the config', () => {
    expect(validateStructure(plan(10), plan(12), { ...config, taskCountChangeThreshold: 0.1, taskCountChangeMinAbsolute: 1 }).ok).toBe(false);
    expect(validateStructure(plan(10), plan(14), { ...config, taskCountChangeThreshold: 0.5 }).ok).toBe(true);
  });

  it('R3 a dependency on a task that does not exist: broken', () => {
    const r = validateStructure(plan(2), [task('t1'), task('t2', ['t9'])], config);
    expect(r).toMatchObject({ ok: false, problems: ['task "t2" depends on "t9", which does not exist'] });
  });

  it('R3 a dependency cycle: broken', () => {
    const r = validateStructure(plan(3), [task('a', ['c']), task('b', ['a']), task('c', ['b'])], config);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.join('\n')).toMatch(/dependency cycle: /);
  });

  it('R3 a self-dependency and a duplicate id: broken', () => {
    const r = validateStructure(plan(2), [task('t1', ['t1']), task('t2'), task('t2')], config);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toContain('task "t1" depends on itself');
      expect(r.problems).toContain('task id "t2" is used more than once');
    }
  });

  it('R3 an empty new plan: broken', () => {
    const r = validateStructure(plan(2), [], config);
    expect(r).toMatchObject({ ok: false, problems: ['the new plan has no tasks'] });
  });

  it('R3 several problems are all reported', () => {
    const r = validateStructure(plan(3), [task('a', ['x']), task('b', ['c']), task('c', ['b']), ...plan(4).map((t) => task(`n${t.id}`))], config);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.details.map((d) => d.kind).sort()).toEqual(['cycle', 'task_count_change', 'unknown_dependency']);
  });
});

describe('applyIndividualFallback (R3)', () => {
  const previous = [task('a'), task('b', ['a'], 'old b'), task('c', ['b'], 'old c')];

  it('R3 a valid new plan is used as is', () => {
    const next = [task('a'), task('b', ['a'], 'new b'), task('c', ['b'])];
    const r = applyIndividualFallback(previous, next, config);
    expect(r.used).toBe('new_plan');
    expect(r.tasks).toEqual(next);
    expect(r.problems).toEqual([]);
  });

  it('R3 a task with an unknown dependency goes back to its previous version', () => {
    const next = [task('a', [], 'new a'), task('b', ['zzz'], 'new b'), task('c', ['b'], 'new c')];
    const r = applyIndividualFallback(previous, next, config);
    expect(r.used).toBe('individual_fallback');
    expect(r.tasks.map((t) => t.title)).toEqual(['new a', 'old b', 'new c']);
    expect(r.revertedTaskIds).toEqual(['b']);
    expect(r.reason).toMatch(/per-task fallback: kept the previous version of b/);
    expect(validateStructure(previous, r.tasks, config).ok).toBe(true);
  });

  it('R3 a new task (no previous version) with an unknown dependency loses that dependency', () => {
    const next = [task('a'), task('b', ['a']), task('c', ['b']), task('d', ['c', 'ghost'], 'new d')];
    const r = applyIndividualFallback(previous, next, config);
    expect(r.used).toBe('individual_fallback');
    expect(r.tasks.find((t) => t.id === 'd')!.dependencies).toEqual(['c']);
    expect(r.droppedDependencies).toEqual([{ taskId: 'd', dependency: 'ghost' }]);
  });

  it('R3 a cycle is repaired by putting its tasks back to their previous versions', () => {
    const next = [task('a', ['c'], 'new a'), task('b', ['a'], 'new b'), task('c', ['b'], 'new c')];
    const r = applyIndividualFallback(previous, next, config);
    expect(r.used).toBe('individual_fallback');
    expect(r.tasks.map((t) => t.title)).toEqual(['task a', 'old b', 'old c']);
    expect(validateStructure(previous, r.tasks, config).ok).toBe(true);
  });

  it('R3 a cycle among new tasks is broken by dropping the closing edge', () => {
    const next = [task('a'), task('b', ['a']), task('x', ['y']), task('y', ['x'])];
    const r = applyIndividualFallback(previous, next, config);
    expect(r.used).toBe('individual_fallback');
    expect(r.droppedDependencies).toHaveLength(1);
    expect(validateStructure(previous, r.tasks, config).ok).toBe(true);
  });

  it('R3 later duplicates of an id are dropped', () => {
    const next = [task('a'), task('b', ['a'], 'first b'), task('b', [], 'second b'), task('c', ['b'])];
    const r = applyIndividualFallback(previous, next, config);
    expect(r.used).toBe('individual_fallback');
    expect(r.tasks.map((t) => t.title)).toEqual(['task a', 'first b', 'task c']);
    expect(r.droppedDuplicateIds).toEqual(['b']);
  });

  it('R3 a broken task count keeps the previous plan (per-task repair cannot fix it)', () => {
    const r = applyIndividualFallback(previous, plan(7), config);
    expect(r.used).toBe('previous_plan');
    expect(r.tasks).toEqual(previous);
    expect(r.reason).toMatch(/task count changed from 3 to 7/);
  });

  it('R3 with enableIndividualFallback off a broken plan keeps the previous plan', () => {
    const next = [task('a'), task('b', ['zzz']), task('c', ['b'])];
    const r = applyIndividualFallback(previous, next, { ...config, enableIndividualFallback: false });
    expect(r.used).toBe('previous_plan');
    expect(r.tasks).toEqual(previous);
    expect(r.reason).toMatch(/individual fallback disabled/);
  });

  it('R3 the fallback is deterministic', () => {
    const next = [task('a', ['c']), task('b', ['a', 'q']), task('c', ['b']), task('d', ['d'])];
    expect(applyIndividualFallback(previous, next, config)).toEqual(applyIndividualFallback(previous, next, config));
    expect(validateStructure(previous, applyIndividualFallback(previous, next, config).tasks, config).ok).toBe(true);
  });
});
