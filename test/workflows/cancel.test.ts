// Issue 12 (edges): cancelling a run while its tasks wait on their worker's LLM call leaves those
// tasks CANCELLED (not BLOCKED by "Request was aborted"), every workflow of the run ends Canceled,
// and the cancellation causes no replan decision.
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { decisionsQuery, statusQuery } from '../../src/workflows/messages';
import { taskWorkflowId } from '../../src/workflows/execution';
import { FAST, uniqueId, until, type Harness } from '../support/harness';
import { harnessForSuite } from '../support/suite-hooks';
import { scriptScenario, fileTask } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started), { keepScript: true });

describe('B3 a cancelled run (issue 12 edges)', () => {
  it('B3 cancelling a run while two parallel tasks wait on slow worker LLM calls: run and tasks CANCELLED, every workflow Canceled, no BLOCKED, no replan', async () => {
    // Every worker reply takes a minute: both tasks are inside their first worker step's LLM request.
    scriptScenario(h.fake, {
      tasks: [fileTask('a'), fileTask('b')],
      workerDelayMs: 60_000,
    });
    const runId = uniqueId('cancel');
    const wfId = runWorkflowId(runId);
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: wfId,
      args: [{ runId, instruction: 'write two files', workspace: h.workspace(), options: { ...FAST, maxParallelTasks: 2 } }],
    });
    const inFlight = () => h.fake.requestsFor('worker_step').filter((r) => r.finishedAt === undefined);
    await until('both tasks to wait on their worker LLM call', async () => (inFlight().length === 2 ? true : undefined), 60_000);

    await handle.cancel();
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);

    const status = await handle.query(statusQuery);
    expect(status.status).toBe('CANCELLED');
    expect(Object.fromEntries(status.tasks.map((t) => [t.id, t.state]))).toEqual({ a: 'CANCELLED', b: 'CANCELLED' });
    expect(status.blocked).toEqual([]);
    expect(JSON.stringify(status)).not.toContain('BLOCKED');
    expect(JSON.stringify(status)).not.toContain('aborted');

    // The run, its execution phase and both task workflows end Canceled (not Failed).
    const described = async (id: string) => (await h.client.workflow.getHandle(id).describe()).status.name;
    expect(await described(wfId)).toBe('CANCELLED');
    expect(await described(`${wfId}.execution-1`)).toBe('CANCELLED');
    expect(await described(taskWorkflowId(wfId, 'a'))).toBe('CANCELLED');
    expect(await described(taskWorkflowId(wfId, 'b'))).toBe('CANCELLED');

    // The worker requests were aborted, not answered; no decision was asked because of the cancellation.
    expect(h.fake.requestsFor('worker_step')).toHaveLength(2);
    expect(h.fake.requestsFor('worker_step').every((r) => r.status !== 200)).toBe(true);
    expect(h.fake.requestsFor('judge')).toHaveLength(0);
    expect(h.fake.requestsFor('replan_decision').filter((r) => r.text.includes('**Executed Action:**'))).toHaveLength(0);
    const decisions = await handle.query(decisionsQuery);
    expect(decisions.records.filter((r) => r.phase === 'execution')).toEqual([]);
    expect(decisions.counters.total).toBe(0);
  });
});
