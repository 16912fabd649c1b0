// Issue 12, O3: a durable per-run token budget. Three parallel tasks whose workers take 5 steps
// each; every LLM answer reports 200 tokens (the fake's per-purpose usage), so the run needs about
// 5,600 tokens: a 5,000-token budget pauses it with the budget question, and what the LLM reported
// never exceeds the budget by more than one call. Raising the limit continues to DONE; answering
// stop ends the run STOPPED as a failed workflow (RunStoppedByBudget) carrying the final status.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { answerClarificationUpdate, budgetGrantSignal, budgetRequestSignal, statusQuery, type RunStatus } from '../../src/workflows/messages';
import { taskWorkflowId } from '../../src/workflows/execution';
import { MEMO_STATUS } from '../../src/domain/run/views';
import { STATUS_KEY } from '../../src/workflows/search-attributes';
import { FAST, runOutcome, sleep, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { fourFileTasks, scriptScenario } from '../support/scenario';
import { pausedByBudget } from '../support/run-waits';

let h: Harness;
harnessForSuite((started) => (h = started));

const PER_CALL = 200;
const BUDGET = 5000;

/** Four files each: four tool-call steps and a summary step = 5 worker steps per task. */
const TASKS = fourFileTasks(['a', 'b', 'c']);

async function startBudgetedRun(budget: Record<string, unknown> = { maxTokens: BUDGET }, tasks = TASKS) {
  scriptScenario(h.fake, { tasks, workerDelayMs: 150 });
  h.fake.usage('*', { prompt: 150, completion: 50 });
  const { runId, handle } = await startRun(
    h,
    {
      instruction: 'write the files of a, b and c',
      workspace: h.workspace(),
      options: { ...FAST, maxParallelTasks: 3 },
      config: { budget },
    },
    'budget',
  );
  return { runId, handle };
}

describe('O3 a durable per-run token budget', () => {
  it('O3 a 5,000-token budget on three parallel tasks pauses the run with the budget question; usage stays within one call of the budget; raising it continues to DONE', async () => {
    const { handle } = await startBudgetedRun();
    const paused = await pausedByBudget(handle, h.fake);

    // The question, answered like the others.
    const q = paused.questions!.find((x) => x.kind === 'budget')!;
    expect(q).toBeDefined();
    expect(q.text).toMatch(/budget is used up: used [\d,]+ of 5,000 tokens/);
    expect(q.text).toContain('raise');
    expect(paused.pause).toMatchObject({ kind: 'budget', by: 'budget' });
    expect(paused.pause!.reason).toContain(q.id);

    // Nothing more is asked while paused, and what the LLM reported stays within one call of the budget.
    const seen = h.fake.requests.length;
    await sleep(3000);
    expect(h.fake.requests.length).toBe(seen);
    const reported = h.fake.tokensUsed();
    // Paused by the budget, not at once (tasks may still hold unspent loans when the pause reaches them).
    expect(reported).toBeGreaterThan(BUDGET / 2);
    expect(reported).toBeLessThanOrEqual(BUDGET + PER_CALL);
    // status: usage against the budget (the run's ledger matches what the LLM reported).
    const s = await handle.query(statusQuery);
    expect(s.budget).toMatchObject({ maxTokens: BUDGET });
    expect(s.budget!.usedTokens).toBeLessThanOrEqual(reported);
    // The memo shows the budget pause too (O5: no worker needed).
    const memo = (await handle.describe()).memo?.[MEMO_STATUS] as RunStatus;
    expect(memo.status).toBe('PAUSED');
    expect((await handle.describe()).typedSearchAttributes.get(STATUS_KEY)).toBe('PAUSED');
    expect(memo.budget?.maxTokens).toBe(BUDGET);

    // S2: forged lease messages neither raise the budget nor start a call: a grant is not a message
    // the run takes, a request from a stranger is ignored, a task takes no grant its own request did
    // not ask for (another number, or more than it asked).
    const before = await handle.query(statusQuery);
    await handle.signal(budgetGrantSignal, { seq: 1, tokens: 1_000_000 });
    await handle.signal(budgetRequestSignal, { from: 'stranger', seq: 1, want: 1_000_000, largest: 0, spent: 1_000_000 });
    for (const id of ['a', 'b', 'c']) {
      const task = h.client.workflow.getHandle(taskWorkflowId(handle.workflowId, id));
      await task.signal(budgetGrantSignal, { seq: 99, tokens: 1000 }).catch(() => undefined);
      await task.signal(budgetGrantSignal, { seq: 1, tokens: 1_000_000 }).catch(() => undefined);
    }
    await sleep(2000);
    expect(h.fake.requests.length).toBe(seen);
    expect(await handle.query(statusQuery)).toEqual(before);

    // A malformed answer is rejected by the validator; a raise continues where the run stopped.
    const rejection = (answer: string) =>
      handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: q.id, answer }] }).then(
        () => 'accepted',
        (e: unknown) => String((e as { cause?: Error }).cause?.message),
      );
    expect(await rejection('more please')).toMatch(/raise <tokens>/);
    expect(await rejection('raise 100')).toMatch(/above the [\d,]+ used/);
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: q.id, answer: 'raise 20000' }] });
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => t.state)).toEqual(['DONE', 'DONE', 'DONE']);
    // No finished call was asked again: every worker step answered exactly once per task and step.
    expect(h.fake.successfulFor('worker_step')).toHaveLength(15);
    const final = await handle.query(statusQuery);
    expect(final.budget).toMatchObject({ maxTokens: 20000, usedTokens: h.fake.tokensUsed() });
    expect(result.usage.totalTokens).toBe(h.fake.tokensUsed());
  });

  it('O3 answering stop ends the run STOPPED with the reason, as a failed workflow (RunStoppedByBudget) with the final status', async () => {
    const { handle } = await startBudgetedRun();
    // Planning calls larger than worker steps: a task is still lent what it asks for (no more).
    h.fake.usage('task_decomposition', { prompt: 700, completion: 100 });
    const paused = await pausedByBudget(handle, h.fake);
    const q = paused.questions!.find((x) => x.kind === 'budget')!;
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: q.id, answer: 'stop' }] });

    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('RunStoppedByBudget');
    expect(cause!.message).toMatch(/stopped by its budget: used [\d,]+ of 5,000 tokens/);
    const result = await runOutcome(handle);
    expect(result.status).toBe('STOPPED');
    // The Web UI list shows it failed, not a green Completed.
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect((await handle.describe()).typedSearchAttributes.get(STATUS_KEY)).toBe('STOPPED');
    const memo = (await handle.describe()).memo?.[MEMO_STATUS] as RunStatus;
    expect(memo.status).toBe('STOPPED');
    expect(memo.error).toMatch(/^stopped by its budget: used [\d,]+ of 5,000 tokens/);
    expect(memo.budget).toMatchObject({ maxTokens: BUDGET });
    // Open tasks were cancelled; no LLM call started after the stop.
    expect(memo.tasks.every((t) => t.state === 'DONE' || t.state === 'CANCELLED')).toBe(true);
    expect(h.fake.tokensUsed()).toBeLessThanOrEqual(BUDGET + PER_CALL);
    expect(h.fake.successfulFor('worker_step').length).toBeGreaterThan(0);
  });

  it('O3 a cost budget from the per-model price table pauses with the cost in the question; "raise $1" continues to DONE', async () => {
    // $1 per million prompt tokens, $3 per million completion tokens: a 150 + 50 token call costs $0.0003.
    const prices = { 'fake-model': { inputPerMTok: 1, outputPerMTok: 3 } };
    const { handle } = await startBudgetedRun({ maxCostUsd: 0.004, prices }, TASKS.slice(0, 1));
    const paused = await pausedByBudget(handle, h.fake);
    const q = paused.questions!.find((x) => x.kind === 'budget')!;
    expect(q.text).toMatch(/used [\d,]+ tokens, \$0\.00\d\d of \$0\.0040/);
    expect(q.text).toContain('"raise $<dollars>"');
    // What the LLM reported costs no more than the limit (the limit is kept at the dearer price).
    const cost = h.fake.requests.reduce((n, r) => n + (r.usage ? (r.usage.prompt_tokens * 1 + r.usage.completion_tokens * 3) / 1e6 : 0), 0);
    expect(cost).toBeLessThanOrEqual(0.004 + 0.0003);
    expect(paused.budget).toMatchObject({ maxCostUsd: 0.004, model: 'fake-model' });
    expect(paused.budget!.costUsd).toBeGreaterThan(0);
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: q.id, answer: 'raise $1' }] });
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');
    expect((await handle.query(statusQuery)).budget).toMatchObject({ maxCostUsd: 1 });
  });
});
