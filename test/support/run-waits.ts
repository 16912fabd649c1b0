// Waits on a run that several suites share: until its LLM calls have settled, until its budget
// paused it.
import type { WorkflowHandle } from '@temporalio/client';
import { statusQuery, type RunStatus } from '../../src/workflows/messages';
import type { FakeOpenAI } from './fake-openai';
import { until } from './harness';

/** Until no LLM call is in flight and none has started for 2 s: what a pause let finish has finished. */
export async function untilCallsSettled(fake: FakeOpenAI): Promise<void> {
  await until(
    'the calls in flight to finish',
    async () => {
      const last = Math.max(...fake.requests.map((r) => r.startedAt));
      return fake.requests.every((r) => r.finishedAt !== undefined) && Date.now() - last > 2000 ? true : undefined;
    },
    30_000,
  );
}

/** Until the run is paused by its budget and its LLM calls have settled; its status at the pause. */
export async function pausedByBudget(handle: WorkflowHandle, fake: FakeOpenAI): Promise<RunStatus> {
  const s = await until(
    'the budget pause',
    async () => {
      const st = await handle.query(statusQuery);
      return st.status === 'PAUSED' && st.pause?.kind === 'budget' ? st : undefined;
    },
    90_000,
  );
  // Calls in flight finish, and a task may still spend what it was lent before the pause reached it.
  await untilCallsSettled(fake);
  return s;
}
