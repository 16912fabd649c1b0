// O1: an update handed to a worker with no cache of the run, together with a child's end that an
// earlier worker already took in (src/workflows/run/update-order.ts). Core (SDK 1.24) folds the
// earlier worker's workflow task, which sent no command, into the new one and hands the update over
// first. The run must act as a replay of its history does, or its history no longer replays (the
// next worker restart or cache eviction fails the run's workflow tasks for good).
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { pauseUpdate, resumeUpdate } from '../../src/workflows/messages';
import { runOutcome, startHarness, uniqueId, until, type Harness } from '../support/harness';
import { DEFAULT_GOAL, fileTask, scriptScenario } from '../support/scenario';
import { ownWorker } from '../support/own-worker';
import { startRun } from '../support/start-run';

const EventType = temporal.api.enums.v1.EventType;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.stop());

describe('O1 an update that reaches a cold worker with an earlier completion', () => {
  it('O1 resume on a new worker right after the paused run took in its Goal phase end: the run ends DONE and its history replays', async () => {
    scriptScenario(h.fake, { tasks: [fileTask('a')] });
    // The Goal phase's call is in flight when the pause comes; it finishes, and the phase ends.
    h.fake.always('goal_understanding', { delayMs: 1500, then: { json: DEFAULT_GOAL } });
    const taskQueue = `order-${uniqueId()}`;
    const first = await ownWorker(h, taskQueue);
    const { handle } = await startRun({ client: h.client, taskQueue }, { instruction: 'write a', workspace: h.workspace() }, 'order');
    const goal = `${handle.workflowId}.goal_understanding-1`;
    try {
      await until('the goal call', async () => (h.fake.requestsFor('goal_understanding').length > 0 ? true : undefined));
      await handle.executeUpdate(pauseUpdate, { args: [{ reason: 'look first' }] });
      await until('the Goal phase to end', async () =>
        (await h.client.workflow.getHandle(goal).describe()).status.name === 'COMPLETED' ? true : undefined,
      );
      // The paused run took the end in and sent nothing: its last event closes that workflow task.
      const events = await until('the run to take in the phase end', async () => {
        const e = (await handle.fetchHistory()).events ?? [];
        const ended = e.findIndex((x) => x.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED);
        return ended >= 0 && e.at(-1)?.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && e.length > ended + 3 ? e : undefined;
      });
      expect(events.at(-1)?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    } finally {
      await first.stop();
    }
    // A new worker, no cache of the run: the resume is its first workflow task of the run.
    const second = await ownWorker(h, taskQueue);
    try {
      await handle.executeUpdate(resumeUpdate);
      expect((await runOutcome(handle)).status).toBe('DONE');
      const history = await handle.fetchHistory();
      await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.REPLANNER_TEST_BUNDLE! } }, history, handle.workflowId);
      // The resume told no phase child: the Goal phase had ended before it (no signal to an ended child).
      const signalled = (history.events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED);
      expect(signalled).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});
