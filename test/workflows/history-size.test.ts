// Issue 11's gate, history events per LLM call ≤ 13 (12 until issue 28), on the bench's own shape: the 9-task chain
// graph (4 chains of 2, then a join) at parallel 1, counted as `npm run bench` counts it (every
// workflow execution of the run, tool-call activities included; bench/run.ts runHistories). Parallel
// 1 is the tightest row: one progress report per task, each read from the execution child (S2).
// Issue 28 added costs per run and per task, not per call (12.84 on this 45-call run, from 11.9):
// the workspace lock as the run's child (its own 9 events, its start and release in the run) and one
// memo write per finished task (so
// `status` read from the memo never goes backwards after a crash). A larger run amortises them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chainGraph, runHistories } from '../../bench/run';
import { uniqueId, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started), { keepScript: true });

describe('B1 history per LLM call', () => {
  it('B1 S2 the 9-task chain graph at parallel 1: at most 13 history events per LLM call over all its workflows', async () => {
    const plan = chainGraph(4, 2);
    h.fake.reset();
    scriptScenario(h.fake, { tasks: plan, latencyMs: 0 });
    const runId = uniqueId('hist');
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-hist-'));
    const { handle } = await startRun(h, { runId, instruction: 'bench', workspace: ws, options: { maxParallelTasks: 1 } }, 'hist');
    expect((await handle.result()).status).toBe('DONE');
    const calls = h.fake.requests.length;
    const hist = await runHistories(h.client, handle.workflowId, plan, 1);
    const events = hist.events.reduce((a, b) => a + b, 0);
    const byType = Object.entries(hist.types)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k.replace(/EventAttributes$/, '')} ${(v / calls).toFixed(2)}`);
    console.log(
      `B1 history: ${events} events for ${calls} LLM calls (${(events / calls).toFixed(2)} per call) over ${hist.events.length} workflows\n${byType.join('\n')}`,
    );
    expect(calls).toBeGreaterThanOrEqual(45);
    expect(events / calls).toBeLessThanOrEqual(13);
    fs.rmSync(ws, { recursive: true, force: true });
  });
});
