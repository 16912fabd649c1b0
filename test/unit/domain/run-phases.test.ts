// X1 / X3: the phase order, and where the run goes after the execution phase.
import { afterExecution, nextPhase } from '../../../src/domain/run/phases';
import { TaskState, type Phase } from '../../../src/domain/types';

const tasks = (...states: TaskState[]) => states.map((state) => ({ state }));

describe('X1 the phase order', () => {
  it.each<[Phase, Phase | 'done']>([
    ['goal_understanding', 'task_decomposition'],
    ['task_decomposition', 'action_sequence'],
    ['action_sequence', 'execution'],
    ['execution', 'reflection'],
    ['reflection', 'done'],
  ])('X1 after %s comes %s', (phase, next) => {
    expect(nextPhase(phase)).toBe(next);
  });
});

describe('X1 / X3 after the execution phase', () => {
  it.each<[string, ReturnType<typeof tasks>, Phase | undefined, Phase]>([
    ['every task ended, no replan: reflection', tasks(TaskState.DONE, TaskState.BLOCKED), undefined, 'reflection'],
    ['no task at all, no replan: reflection', tasks(), undefined, 'reflection'],
    ['a task still READY, no replan: the execution phase again', tasks(TaskState.DONE, TaskState.READY), undefined, 'execution'],
    ['tasks replaced or cancelled are not waiting', tasks(TaskState.REPLACED_BY_REPLAN, TaskState.CANCELLED), undefined, 'reflection'],
    ['a replan wins over READY tasks', tasks(TaskState.READY), 'task_decomposition', 'task_decomposition'],
    ['a replan to the goal with every task done', tasks(TaskState.DONE), 'goal_understanding', 'goal_understanding'],
    ['a replan back to the execution phase', tasks(TaskState.DONE), 'execution', 'execution'],
  ])('X3 %s', (_name, states, replanTarget, next) => {
    expect(afterExecution(states, replanTarget)).toBe(next);
  });
});
