// Issue 12, O3 through the `replanner` CLI, in-process against the real dev server and a real
// worker: `run --budget-tokens`, the budget question in `status`, `answer` raising the limit or
// stopping the run, and how `status` / `watch` show a run stopped by its budget.
import { main } from '../../src/client/cli';
import type { Question, RunStatus } from '../../src/workflows/messages';
import { cli } from '../support/cli';
import { uniqueId, until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { scriptScenario, type ScenarioTask } from '../support/scenario';
import { PassThrough } from 'node:stream';

let h: Harness;
harnessForCli((x) => (h = x));

const TASKS: ScenarioTask[] = ['a', 'b'].map((id) => ({
  id,
  title: `write the ${id} files`,
  files: Object.fromEntries([1, 2, 3].map((n) => [`${id}${n}.txt`, `${id}${n}`])),
}));

/** Every LLM answer reports 200 tokens: the run needs about 4,000; a 2,000-token budget runs out in execution. */
function scriptRun(): void {
  h.fake.reset();
  scriptScenario(h.fake, { tasks: TASKS });
  h.fake.usage('*', { prompt: 150, completion: 50 });
}

async function statusOf(id: string): Promise<RunStatus> {
  const r = await cli('status', id, '--json');
  if (r.code !== 0) throw new Error(`status exited ${r.code}: ${r.err}`);
  return JSON.parse(r.out) as RunStatus;
}

async function budgetQuestion(id: string): Promise<Question> {
  return until(
    `the budget question of run ${id}`,
    async () => {
      const s = await statusOf(id);
      return s.status === 'WAITING' ? s.questions?.find((q) => q.kind === 'budget' && q.status === 'pending') : undefined;
    },
    90_000,
  );
}

describe('replanner run --budget-tokens / answer (O3)', () => {
  it('O3 --budget-tokens must be a positive whole number (exit 2, nothing started)', async () => {
    const before = h.fake.requests.length;
    const r = await cli('run', 'write files', '--workspace', h.workspace(), '--budget-tokens', '0');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--budget-tokens must be a whole number from 1 to');
    expect(h.fake.requests.length).toBe(before);
  });

  it('O3 the budget question shows in status with usage against the budget; `answer raise` continues to DONE', async () => {
    scriptRun();
    const id = uniqueId('budget');
    expect((await cli('run', 'write the a and b files', '--workspace', h.workspace(), '--id', id, '--budget-tokens', '2000')).code).toBe(0);
    const q = await budgetQuestion(id);

    const human = await cli('status', id);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(new RegExp(`^Run ${id}: WAITING`, 'm'));
    expect(human.out).toMatch(/^Budget: [\d,]+ \/ 2,000 tokens \(\d+\.\d%\)$/m);
    expect(human.out).toMatch(new RegExp(`^PAUSED: the budget is used up since \\d\\d:\\d\\d:\\d\\d \\(.*\\); answer ${q.id}: raise or stop$`, 'm'));
    expect(human.out).toContain(`Question ${q.id} (budget, Execution phase): The run's budget is used up: used`);
    expect(human.out).toContain(`npx replanner answer ${id} ${q.id} "raise <tokens>" (or stop)`);

    // A wrong answer exits 2 with the reason; `resume` does not end a budget pause.
    const wrong = await cli('answer', id, q.id, 'more');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('the answer was rejected');
    expect(wrong.err).toContain('raise <tokens>');
    const resumed = await cli('resume', id);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain(`Run ${id} is still paused by its budget (`);
    expect(resumed.out).toContain(`answer ${q.id}: raise or stop); resume does not raise it`);
    expect((await statusOf(id)).status).toBe('WAITING');

    const ok = await cli('answer', id, q.id, 'raise', '50000');
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out.trim()).toBe(`answered ${q.id}`);
    const w = await cli('watch', id);
    expect(w.code).toBe(0);
    expect(w.out).toContain(`Run ${id}: DONE`);
    expect(w.out).toMatch(/^Budget: [\d,]+ \/ 50,000 tokens/m);
  });

  it('O3 `answer stop` ends the run STOPPED: status says why (exit 0), watch exits 1, the workflow is Failed', async () => {
    scriptRun();
    const id = uniqueId('budget');
    expect((await cli('run', 'write the a and b files', '--workspace', h.workspace(), '--id', id, '--budget-tokens', '2000')).code).toBe(0);
    const q = await budgetQuestion(id);
    let out = '';
    const watching = main(['watch', id], { write: (s: string) => (out += s) }, { write: () => undefined }, new PassThrough());
    expect((await cli('answer', id, q.id, 'stop')).code).toBe(0);
    expect(await watching).toBe(1);
    expect(out).toContain(`Run ${id}: STOPPED`);

    const s = await statusOf(id);
    expect(s.status).toBe('STOPPED');
    expect(s.error).toMatch(/^stopped by its budget: used [\d,]+ of 2,000 tokens$/);
    expect(s.budget).toMatchObject({ maxTokens: 2000 });
    const human = await cli('status', id);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(new RegExp(`^Run ${id}: STOPPED`, 'm'));
    expect(human.out).toMatch(/^Error: stopped by its budget: used [\d,]+ of 2,000 tokens$/m);
    // The workflow ends once its phases are cancelled: Failed (RunStoppedByBudget), not Completed.
    const handle = h.client.workflow.getHandle(`run-${id}`);
    await expect(handle.result()).rejects.toThrow(/Workflow execution failed/);
    expect((await handle.describe()).status.name).toBe('FAILED');
  });
});
