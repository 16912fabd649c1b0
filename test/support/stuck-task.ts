// P9 tests: the one task the stuck-detector tests give a TaskWorkflow (the live model's instruction).
import type { TaskSpec } from '../../src/domain/types';

export const HELLO_INSTRUCTION = 'Create a file hello.txt containing the word hello.';

/** A task that writes hello.txt; a high base limit, so the pacemaker's own limit never comes first. */
export function helloTask(id: string): TaskSpec {
  return {
    id,
    title: 'write hello.txt',
    description: HELLO_INSTRUCTION,
    acceptanceCriteria: ['hello.txt contains hello'],
    dependencies: [],
    scopePaths: ['hello.txt'],
    profile: 'COMPLEX_REASONING',
  };
}
