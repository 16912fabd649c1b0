// S2: messages that reach the run together in one workflow task. The run's updates take effect
// only after the completions of their activation (src/workflows/run/update-order.ts), so between an
// update's validator and its handler the run may have changed: another answer came, or the run
// ended. Each update is handed to a worker that was stopped while they were sent, so they all come
// in one workflow task. Nothing may fail a workflow task (a handler's plain error fails it again on
// every retry: the run would be stuck for good), and the first answer wins.
import { CancelledFailure, WorkflowFailedError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import {
  answerClarificationUpdate,
  budgetRequestSignal,
  decisionsQuery,
  llmTroubleSignal,
  resumeUpdate,
  statusQuery,
} from '../../src/workflows/messages';
import { decision, scriptDecisions } from '../support/decisions';
import { FAST, runOutcome, sleep, uniqueId, until, type Harness } from '../support/harness';
import { DEFAULT_GOAL, fileTask, scriptScenario } from '../support/scenario';
import { ownWorker } from '../support/own-worker';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';

let h: Harness;
harnessForSuite((started) => (h = started));

async function workflowTaskFailures(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.workflowTaskFailedEventAttributes)
    .map((e) => String(e.workflowTaskFailedEventAttributes?.failure?.message));
}

/** The update's failure message (undefined: it was taken). */
const refusal = (r: PromiseSettledResult<unknown>): string | undefined =>
  r.status === 'fulfilled' ? undefined : String((r.reason as WorkflowUpdateFailedError).cause?.message ?? r.reason);

/** A run on its own queue waiting on the question q1, and its worker stopped: what is sent now comes in one workflow task. */
async function runWaitingOnQ1(prefix: string) {
  scriptScenario(h.fake, { tasks: [fileTask('a')] });
  scriptDecisions(h.fake, {
    goal_understanding: [
      decision({ confidence: 0.9, type: 'clarification_request', issue: 'the format is unclear', questions: ['Which output format?'] }),
    ],
  });
  const taskQueue = `${prefix}-${uniqueId()}`;
  const first = await ownWorker(h, taskQueue);
  const { handle } = await startRun(
    { client: h.client, taskQueue },
    { instruction: 'write the file a.txt', workspace: h.workspace(), options: FAST },
    prefix,
  );
  try {
    await until('the pending question q1', async () => (await handle.query(statusQuery)).questions?.find((q) => q.id === 'q1'));
  } finally {
    await first.stop();
  }
  return { handle, taskQueue };
}

/** `p`, or a failure naming the run's workflow task failures when it takes longer than `ms` (a run stuck failing them never answers). */
async function within<T>(p: Promise<T>, ms: number, handle: WorkflowHandle): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void workflowTaskFailures(handle).then(
        (f) => reject(new Error(`no answer within ${ms} ms; workflow task failures: ${JSON.stringify(f)}`)),
        reject,
      );
    }, ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('S2 hostile messages in one workflow task', () => {
  it('S2 two answers to one question in one workflow task: the first is taken, the second refused; nothing fails; the run ends DONE', async () => {
    const { handle, taskQueue } = await runWaitingOnQ1('two-answers');
    const answer = (text: string) => handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: 'q1', answer: text }] });
    const one = answer('CSV');
    await sleep(300);
    const two = answer('JSON');
    await sleep(300);
    const second = await ownWorker(h, taskQueue);
    try {
      const settled = await within(Promise.allSettled([one, two]), 30_000, handle);
      const reasons = settled.map(refusal);
      // Exactly one taken; the other refused because it came second.
      expect(reasons.filter((r) => r === undefined)).toHaveLength(1);
      expect(reasons.find((r) => r !== undefined)).toContain('question q1 is no longer pending: it was already answered');
      const taken = reasons[0] === undefined ? 'CSV' : 'JSON';
      expect((await handle.query(decisionsQuery)).questions.find((q) => q.id === 'q1')?.answer).toBe(taken);
      expect((await runOutcome(handle)).status).toBe('DONE');
      expect(await workflowTaskFailures(handle)).toEqual([]);
    } finally {
      await handle.terminate().catch(() => undefined);
      await second.stop();
    }
  });

  it('S2 O1 a resume in the same workflow task as the run\'s cancellation: the resume is refused ("already ended"), nothing fails, the run ends CANCELLED', async () => {
    const { handle, taskQueue } = await runWaitingOnQ1('cancel-resume');
    await handle.cancel();
    const resumed = handle.executeUpdate(resumeUpdate);
    await sleep(300);
    const second = await ownWorker(h, taskQueue);
    try {
      const [r] = await within(Promise.allSettled([resumed]), 30_000, handle);
      expect(refusal(r)).toContain('the run already ended: CANCELLED');
      const err = await handle.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(await workflowTaskFailures(handle)).toEqual([]);
    } finally {
      await handle.terminate().catch(() => undefined);
      await second.stop();
    }
  });

  it('S2 O3 a forged budgetRequest naming the running phase (a call of 10^12 tokens, as much spent) leaves the budgeted run room for calls: after at most one raise it ends DONE', async () => {
    scriptScenario(h.fake, { tasks: [fileTask('a')] });
    h.fake.usage('*', { prompt: 150, completion: 50 });
    // The Goal phase's call takes a while: the forged request comes while that phase runs.
    h.fake.always('goal_understanding', { delayMs: 1500, then: { json: DEFAULT_GOAL } });
    const { handle } = await startRun(
      h,
      { instruction: 'write the file a.txt', workspace: h.workspace(), options: FAST, config: { budget: { maxTokens: 200_000 } } },
      'forged-budget',
    );
    try {
      await until('the goal call', async () => (h.fake.requestsFor('goal_understanding').length > 0 ? true : undefined));
      await handle.signal(budgetRequestSignal, { from: `${handle.workflowId}.goal_understanding-1`, seq: 1, want: 1, largest: 1e12, spent: 1e12 });
      // Whenever the run pauses with its budget question, the limit is raised (up to three times).
      let raises = 0;
      const ended = await until(
        'the run to end',
        async () => {
          const d = await handle.describe();
          if (d.status.name !== 'RUNNING') return d.status.name;
          const q = (await handle.query(statusQuery)).questions?.find((x) => x.kind === 'budget' && x.status === 'pending');
          if (q && raises < 3) {
            raises += 1;
            await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: q.id, answer: `raise ${raises * 10_000_000}` }] });
          }
          return undefined;
        },
        60_000,
      );
      expect(ended).toBe('COMPLETED');
      expect(raises).toBeLessThanOrEqual(1);
      expect((await runOutcome(handle)).status).toBe('DONE');
      expect(await workflowTaskFailures(handle)).toEqual([]);
    } finally {
      await handle.terminate().catch(() => undefined);
    }
  });

  it('S2 O2 forty llmTrouble pokes naming the running phase while it runs: the run reads that phase a few times, not forty; nothing fails; the run ends DONE', async () => {
    scriptScenario(h.fake, { tasks: [fileTask('a')] });
    h.fake.always('goal_understanding', { delayMs: 3000, then: { json: DEFAULT_GOAL } });
    const { handle } = await startRun(h, { instruction: 'write the file a.txt', workspace: h.workspace(), options: FAST }, 'trouble-pokes');
    await until('the goal call', async () => (h.fake.requestsFor('goal_understanding').length > 0 ? true : undefined));
    const from = `${handle.workflowId}.goal_understanding-1`;
    await Promise.all(Array.from({ length: 40 }, () => handle.signal(llmTroubleSignal, { from })));
    expect((await runOutcome(handle)).status).toBe('DONE');
    const events = (await handle.fetchHistory()).events ?? [];
    const reads = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'inspectOwnWorkflow');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.length).toBeLessThanOrEqual(10);
    expect(await workflowTaskFailures(handle)).toEqual([]);
  });
});
