// Issue 32: the stuck detector (P9) against the live small model — llama-cpp-python's server with
// SmolLM2-135M-Instruct (scripts/ensure-llm-server, as test/e2e/live-model.test.ts) — with the
// configuration the issue names: replanning off, at most 2 tasks, one task at a time, replies capped
// at 768 tokens, a 40,000-token budget, and the instruction "Create a file hello.txt containing the
// word hello.". Before the detector, this model spent 38,638 of the 40,000 tokens in one iteration
// repeating failing calls. Held to: the run finishes, or the stuck note appears, before it has
// spent half its budget. No CPU hog here: what is measured is the tokens, not the speed.
// The report (steps, tokens, the patterns seen) goes to stderr, and to REPLANNER_LIVE_STUCK_REPORT.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FINAL } from '../../src/client/run-inspect';
import type { RunStatus } from '../../src/workflows/messages';
import { cli } from '../support/cli';
import { uniqueId } from '../support/harness';
import { runLive, startLiveWorker, type Logged } from '../support/live-llm';
import { liveModelForSuite } from '../support/suite-hooks';

const START_TIMEOUT_MS = 20 * 60_000;
/** On 2 quiet cores the run takes ~1.5 min; the bound leaves room for a machine several times slower. */
const RUN_BOUND_MS = 20 * 60_000;
const BUDGET_TOKENS = 40_000;

const suite = liveModelForSuite(START_TIMEOUT_MS);

/** What the test saw of the stuck detector: the first note and the run's tokens when it was first seen. */
interface Seen {
  note: string;
  taskId: string;
  tokens: number;
}

it(
  'P9 O3 the live small model with the issue-32 configuration: the run finishes or reaches the stuck note before it spends half its 40,000-token budget',
  async () => {
    const live = await startLiveWorker(suite.proxy!.url, 'live-stuck', suite.saved);
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-live-stuck-'));
    const config = `${workspace}.yaml`;
    suite.dirs.push(workspace, config);
    fs.writeFileSync(
      config,
      'replanning:\n  enabled: false\nplanning:\n  maxTasks: 2\nexecution:\n  maxParallelTasks: 1\nllm:\n  timeoutSeconds: 300\n  maxReplyTokens: 768\n',
    );
    process.env = live.env;
    const id = uniqueId('live-stuck');
    const runWf = `run-${id}`;
    const started = Date.now();
    let last: RunStatus | undefined;
    let seen: Seen | undefined;
    const answered = new Set<string>();
    try {
      const r = await runLive(id, workspace, config, BUDGET_TOKENS);
      expect(r.code).toBe(0);
      for (;;) {
        const s = JSON.parse((await cli('status', id, '--json')).out) as StatusJson;
        last = s;
        seen ??= stuckNow(s);
        // A stuck consultation: "stop" (the first choice) — the note is what this test waits for.
        for (const c of s.consultations ?? []) {
          if (answered.has(c.id)) continue;
          answered.add(c.id);
          await cli('consult', id, c.taskId, '1');
        }
        const budgetQ = s.questions?.find((q) => q.kind === 'budget' && q.status === 'pending');
        if (budgetQ && !answered.has(budgetQ.id)) {
          answered.add(budgetQ.id);
          await cli('answer', id, budgetQ.id, 'stop');
        }
        if (FINAL.has(s.status)) break;
        if (Date.now() - started > RUN_BOUND_MS) throw new Error(`no final status within ${RUN_BOUND_MS / 60_000} min: ${s.status} in ${s.phase}`);
        await new Promise((res) => setTimeout(res, 2000));
      }
    } finally {
      const report = stuckReport(id, last, seen, Date.now() - started, suite.proxy!.requests);
      process.stderr.write(`${report}\n`);
      if (process.env.REPLANNER_LIVE_STUCK_REPORT) fs.writeFileSync(process.env.REPLANNER_LIVE_STUCK_REPORT, report);
      await live.client.workflow
        .getHandle(runWf)
        .terminate('live stuck test: ended')
        .catch(() => undefined);
      await live.stop();
    }
    // Finished (DONE or BLOCKED, not stopped at the budget question) or stuck, under half the budget.
    const finished = ['DONE', 'BLOCKED'].includes(last.status) ? last.usage.totalTokens : undefined;
    const firstStop = Math.min(seen?.tokens ?? Infinity, finished ?? Infinity);
    expect(firstStop).toBeLessThan(BUDGET_TOKENS / 2);
  },
  RUN_BOUND_MS + 60_000,
);

/** Status as `status --json` prints it: the running tasks' tokens so far beside the run's (src/client/running-tasks.ts). */
type StatusJson = RunStatus & { runningTasks?: { usage: { totalTokens: number } }[] };

/** The stuck note as `status` shows it now (a task's note, running or ended; a consultation), with the tokens spent by then. */
function stuckNow(s: StatusJson): Seen | undefined {
  const tokens = s.usage.totalTokens + (s.runningTasks ?? []).reduce((n, r) => n + r.usage.totalTokens, 0);
  const task = s.tasks.find((t) => t.stuck);
  if (task) return { note: task.stuck!, taskId: task.id, tokens };
  const consult = (s.consultations ?? []).find((c) => c.message.startsWith('stuck: '));
  return consult ? { note: consult.message.split('\n')[0]!, taskId: consult.taskId, tokens } : undefined;
}

/** The closing note's lines: the outcome, the worker steps, the tokens, the patterns seen. */
function stuckReport(id: string, s: RunStatus | undefined, seen: Seen | undefined, wall: number, requests: Logged[]): string {
  const byPurpose = new Map<string, number>();
  for (const q of requests) if (q.purpose) byPurpose.set(q.purpose, (byPurpose.get(q.purpose) ?? 0) + 1);
  return [
    `live-stuck run ${id}: ${s?.status ?? '?'} in ${s?.phase ?? '?'} after ${(wall / 1000).toFixed(0)} s; ${s?.usage.totalTokens ?? '?'} of ${BUDGET_TOKENS} tokens in ${s?.usage.calls ?? '?'} LLM calls`,
    `requests at the model server by purpose: ${JSON.stringify(Object.fromEntries(byPurpose))}`,
    seen ? `stuck note first seen at ${seen.tokens} tokens (task ${seen.taskId}): ${seen.note}` : 'no stuck note seen',
    ...(s?.tasks ?? []).map((t) => `task ${t.id} ${t.state}: ${t.summary ?? ''}${t.stuck ? ` | ${t.stuck}` : ''}`),
  ].join('\n');
}
