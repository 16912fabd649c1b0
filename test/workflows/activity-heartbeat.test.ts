// O4 (issue 27): the activities' one heartbeat helper (src/activities/heartbeat.ts) through the real
// dev server. A planning LLM call and worker steps that each take longer than their heartbeat
// timeout finish on their first attempt (without beats Temporal would time them out and ask the
// LLM again), and a worker step's beats carry its details, as `describe` shows them.
import { defaultPayloadConverter } from '@temporalio/common';
import { taskWorkflowId } from '../../src/workflows/execution';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { FAST, runOutcome, uniqueId, until, type Harness } from '../support/harness';
import { harnessForSuite } from '../support/suite-hooks';
import { DEFAULT_GOAL, scriptScenario, fileTask } from '../support/scenario';

let h: Harness;
// A request timeout past the slow replies: only a missing heartbeat could end an attempt early.
harnessForSuite((started) => (h = started), { keepScript: true, harness: { llmTimeoutMs: 60_000 } });

describe('O4 one heartbeat helper', () => {
  it('O4 calls slower than their heartbeat timeout finish on attempt 1; a worker step beats with its step number', async () => {
    // Worker steps: a 2 s heartbeat timeout, each reply 5 s late. Planning calls: the fixed 10 s, one reply 12 s late.
    scriptScenario(h.fake, { tasks: [fileTask('a')], workerDelayMs: 5000 });
    h.fake.script('goal_understanding', { delayMs: 12_000, then: { json: DEFAULT_GOAL } });
    const runId = uniqueId('hb');
    const workflowId = runWorkflowId(runId);
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ runId, instruction: 'write a', workspace: h.workspace(), options: { ...FAST, workerHeartbeatTimeoutMs: 2000 } }],
    });

    const details = await until(
      "the worker step's heartbeat details",
      async () => {
        const d = await h.client.workflow
          .getHandle(taskWorkflowId(workflowId, 'a'))
          .describe()
          .catch(() => undefined);
        const step = d?.raw.pendingActivities?.find((a) => a.activityType?.name === 'workerStep');
        const payload = step?.heartbeatDetails?.payloads?.[0];
        return payload ? defaultPayloadConverter.fromPayload<unknown>(payload) : undefined;
      },
      90_000,
    );
    // Its step number, and (since requests stream) what its LLM call is doing.
    expect(details).toMatchObject({ step: 1 });
    expect(Object.keys(details as object).sort()).toEqual((details as { llm?: unknown }).llm ? ['llm', 'step'] : ['step']);
    const llm = (details as { llm?: { purpose: string } }).llm;
    if (llm) expect(llm.purpose).toBe('worker_step');

    expect((await runOutcome(handle)).status).toBe('DONE');
    // One request per call: no attempt timed out for want of a beat.
    expect(h.fake.requestsFor('goal_understanding')).toHaveLength(1);
    const steps = h.fake.requestsFor('worker_step');
    expect(steps.length).toBeGreaterThanOrEqual(2);
    const sent = steps.map((r) => JSON.stringify(r.body.messages));
    expect(new Set(sent).size).toBe(sent.length);
  }, 120_000);
});
