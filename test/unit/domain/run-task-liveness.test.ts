// V4: a task never moves backwards; one whose worker died stays RUNNING, marked (src/domain/run/task-liveness.ts).
import { taskAsSeen, tasksAsSeen, WORKER_LOST_RETRYING, WORKER_LOST_WAITING, type TaskWorkflowSeen } from '../../../src/domain/run/task-liveness';
import { TaskState, type TaskRecord } from '../../../src/domain/types';

const task = (id: string, state: TaskState): TaskRecord => ({ id, title: id, description: '', dependencies: [], state }) as unknown as TaskRecord;
const open = (activities: TaskWorkflowSeen['activities'] = [{ attempt: 1 }]): TaskWorkflowSeen => ({ open: true, activities });

describe('V4 a task as a view shows it', () => {
  it('V4 a task the run last recorded READY whose workflow is open is RUNNING (the memo lags: it is written when a task ends)', () => {
    expect(taskAsSeen(task('a', TaskState.READY), open(), true)).toMatchObject({ state: 'RUNNING' });
    expect(taskAsSeen(task('a', TaskState.READY), open(), true).workerLost).toBeUndefined();
  });

  it('V4 a task whose workflow is not open, or was not seen, is shown as recorded', () => {
    expect(taskAsSeen(task('a', TaskState.READY), undefined, false)).toMatchObject({ state: 'READY' });
    expect(taskAsSeen(task('a', TaskState.RUNNING), { open: false, activities: [] }, false)).toEqual(task('a', TaskState.RUNNING));
  });

  it('V4 a task recorded READY whose workflow ran and ended before the run was told is RUNNING, not READY again', () => {
    expect(taskAsSeen(task('a', TaskState.READY), { open: false, activities: [] }, true)).toMatchObject({ state: 'RUNNING' });
    expect(taskAsSeen(task('a', TaskState.READY), { open: false, activities: [] }, true).workerLost).toBeUndefined();
  });

  it('V4 a finished task never moves, whatever its workflow shows', () => {
    for (const s of [TaskState.DONE, TaskState.BLOCKED, TaskState.CANCELLED, TaskState.REPLACED_BY_REPLAN]) {
      expect(taskAsSeen(task('a', s), open([{ attempt: 3, lastFailure: 'heartbeat_timeout' }]), false)).toEqual(task('a', s));
    }
  });

  it('V4 its step lost with its worker (a try past the first after a heartbeat or start-to-close timeout): worker lost, retrying', () => {
    for (const lastFailure of ['heartbeat_timeout', 'start_to_close_timeout'] as const) {
      expect(taskAsSeen(task('a', TaskState.RUNNING), open([{ attempt: 2, lastFailure }]), true)).toMatchObject({
        state: 'RUNNING',
        workerLost: WORKER_LOST_RETRYING,
      });
    }
    expect(WORKER_LOST_RETRYING).toBe('worker lost, retrying');
  });

  it('V4 a retry after another failure (the model’s error), or a first try, is no lost worker', () => {
    expect(taskAsSeen(task('a', TaskState.RUNNING), open([{ attempt: 2, lastFailure: 'other' }]), true).workerLost).toBeUndefined();
    expect(taskAsSeen(task('a', TaskState.NEEDS_CONTINUATION), open([{ attempt: 1 }]), true)).toEqual(task('a', TaskState.NEEDS_CONTINUATION));
  });

  it('V4 no live worker polls the run’s queue: a started task stays RUNNING, retried once a worker polls again', () => {
    expect(taskAsSeen(task('a', TaskState.READY), open([{ attempt: 1 }]), false)).toMatchObject({
      state: 'RUNNING',
      workerLost: WORKER_LOST_WAITING,
    });
    expect(WORKER_LOST_WAITING.startsWith('worker lost, retrying')).toBe(true);
  });

  it('V4 every task of a view, by id', () => {
    const seen = new Map([['b', open()]]);
    expect(tasksAsSeen([task('a', TaskState.READY), task('b', TaskState.READY)], seen, true).map((t) => t.state)).toEqual(['READY', 'RUNNING']);
  });
});
