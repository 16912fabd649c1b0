// Issue 12, O4: every LLM activity heartbeats with a short heartbeat timeout. The worker is
// SIGKILLed while goal_understanding's LLM call hangs: another worker retries that call within
// 30 s, measured on the child workflow's history (attempt 1 scheduled → attempt 2 started).
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { FAST, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { scriptScenario } from '../support/scenario';
import { killWorker, startWorkerProcess } from '../support/worker-proc';
import { harnessForWorkerProcesses } from '../support/suite-hooks';

let h: Harness;
harnessForWorkerProcesses((x) => (h = x));

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

describe('O4 LLM activities heartbeat', () => {
  it('O4 worker SIGKILLed during a planning LLM call: the call is retried within 30 s (history timestamps)', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'a', title: 'write a', files: { 'a.txt': 'A' } }] });
    // The first goal_understanding request hangs (until its worker dies); the retry is answered.
    h.fake.script('goal_understanding', { hangMs: 300_000 });
    const taskQueue = uniqueId('o4');
    const params = { address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL };
    const first = await startWorkerProcess(params);
    const runId = uniqueId('o4');
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue,
      workflowId: runWorkflowId(runId),
      args: [{ runId, instruction: 'write a', workspace: h.workspace(), options: FAST }],
    });
    await until('the goal_understanding call in flight', async () => (h.fake.requestsFor('goal_understanding').length ? true : undefined));
    await killWorker(first);
    await startWorkerProcess(params);
    expect((await handle.result()).status).toBe('DONE');

    const history = await h.client.workflow.getHandle(`${runWorkflowId(runId)}.goal_understanding-1`).fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'understandGoal');
    expect(scheduled?.activityTaskScheduledEventAttributes?.heartbeatTimeout).toBeTruthy();
    const started = events.find(
      (e) =>
        e.activityTaskStartedEventAttributes && e.activityTaskStartedEventAttributes.scheduledEventId?.toString() === scheduled?.eventId?.toString(),
    );
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(2);
    const retriedAfter = ms(started!.eventTime) - ms(scheduled!.eventTime);
    expect(retriedAfter).toBeLessThan(30_000);
    expect(h.fake.requestsFor('goal_understanding')).toHaveLength(2);
  });
});
