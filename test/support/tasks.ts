// The plain task the domain tests plan with: only its id (and what a test overrides) matters.
import type { TaskSpec } from '../../src/domain/types';

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
