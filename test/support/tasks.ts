// The plain task the domain tests plan with: only its id (and what a test overrides) matters.
import type { TaskRecord, TaskSpec, TaskState } from '../../src/domain/types';

export function taskSpec(id: string, over: Partial<TaskSpec> = {}): TaskSpec {
  return {
    id,
    title: `task ${id}`,
    description: '',
    acceptanceCriteria: [],
    dependencies: [],
    scopePaths: [],
    profile: 'FILE_OPERATION',
    ...over,
  };
}

/** A task of the run's state: `do <id>` in `state`, with the judge's summary when given. */
export function taskRecord(id: string, state: TaskState, summary?: string): TaskRecord {
  return { ...taskSpec(id, { title: `do ${id}` }), state, ...(summary ? { summary } : {}) };
}
