import { activeTasks, planSizeFeedback, planSizeProblem, planSizeVerdict } from '../../../src/domain/plan-size';
import { TaskState } from '../../../src/domain/types';

describe('S3 plan size (planning.maxTasks)', () => {
  it.each([
    [30, 30, undefined],
    [29, 30, undefined],
    [31, 30, 'the plan has 31 tasks; planning.maxTasks is 30'],
    [40, 30, 'the plan has 40 tasks; planning.maxTasks is 30'],
    [2, 1, 'the plan has 2 tasks; planning.maxTasks is 1'],
  ])('S3 %i tasks under maxTasks %i → %p', (count, max, problem) => {
    expect(planSizeProblem(count, max)).toBe(problem);
  });

  it('S3 the planner feedback names the limit and the refused size', () => {
    const text = planSizeFeedback('the plan has 40 tasks; planning.maxTasks is 30', 30);
    expect(text).toContain('the plan has 40 tasks; planning.maxTasks is 30');
    expect(text).toContain('at most 30 tasks');
  });

  it('S3 a task replaced by its re-decomposition does not count', () => {
    const states = [TaskState.DONE, TaskState.REPLACED_BY_REPLAN, TaskState.READY, TaskState.BLOCKED];
    expect(activeTasks(states.map((state) => ({ state }))).map((t) => t.state)).toEqual([TaskState.DONE, TaskState.READY, TaskState.BLOCKED]);
  });

  it('S3 a plan over the limit is sent back to the planner once, then refused; one that fits is kept', () => {
    expect(planSizeVerdict(30, 30, 0)).toEqual({ kind: 'fits' });
    const again = planSizeVerdict(31, 30, 0);
    expect(again.kind).toBe('ask_again');
    expect(again.kind === 'ask_again' && again.feedback).toContain('at most 30 tasks');
    expect(planSizeVerdict(31, 30, 1)).toEqual({ kind: 'refuse', problem: 'the plan has 31 tasks; planning.maxTasks is 30' });
    expect(planSizeVerdict(12, 30, 1)).toEqual({ kind: 'fits' });
  });
});
