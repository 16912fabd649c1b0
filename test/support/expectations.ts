// Assertions several suites share. Test-only: jest's globals, so not part of the build (tsconfig.build.json).
import type { WorkflowHandle } from '@temporalio/client';
import type { RunResult } from '../../src/workflows/run';
import { runOutcome } from './harness';

/**
 * Each of `parts` stands in `text` (rendered checklists, notifications) and none of `absent`: one
 * assertion a part, so a failure names the part missing (or there).
 */
export function expectToContainAll(text: string | undefined, parts: string[], absent: string[] = []): void {
  for (const part of parts) expect(text).toContain(part);
  for (const part of absent) expect(text).not.toContain(part);
}

/** The run ends DONE with exactly these tasks, in plan order, in these states; its result. */
export async function expectDone(handle: WorkflowHandle, states: [string, string][]): Promise<RunResult> {
  const result = await runOutcome(handle);
  expect(result.status).toBe('DONE');
  expect(result.tasks.map((t) => [t.id, t.state])).toEqual(states);
  return result;
}
