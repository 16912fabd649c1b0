// O5 / V1 (issue 28): what a person watches never goes backwards across worker crashes. A run of a
// chain of tasks is served by a worker process that is SIGKILLed again and again at chosen points
// (a planning call, a worker call, a judge call or a replan decision in flight; right after a task
// ended; a random moment), and restarted after a pause with no worker at all. All along, the
// finished-task count and the progress line are read the way users read them: `status` (the client
// library's getStatus: the query, or the memo when no worker answers), the memo's checklist (the Web
// UI's Memo tab) and the current details (the Web UI's page, while a worker answers). Each series must
// never decrease.
import { getStatus } from '../../src/client/run-inspect';
import { renderStatus } from '../../src/client/render';
import { MEMO_CHECKLIST } from '../../src/domain/run/views';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { PHASE_KEY } from '../../src/workflows/search-attributes';
import { FAST, sleep, temporalAddress, uniqueId, type Harness } from '../support/harness';
import { killWorker, startWorkerProcess as startWorker, type WorkerProc } from '../support/worker-proc';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';

let h: Harness;
const taskQueue = uniqueId('monotonic');
harnessForWorkerProcesses((x) => (h = x));

const TASKS = 8;

/** One series a person reads: its highest value so far, and every time it went below. */
class Series {
  max = 0;
  samples = 0;
  readonly backwards: string[] = [];
  constructor(readonly name: string) {}
  see(value: number | undefined, context: string): void {
    if (value === undefined) return;
    this.samples++;
    if (value < this.max) this.backwards.push(`${this.name}: ${value} after ${this.max} (${context})`);
    this.max = Math.max(this.max, value);
  }
}

const progressOf = (text: unknown): number | undefined => {
  const m = typeof text === 'string' ? /Progress: (\d+)\/\d+/.exec(text) : null;
  return m ? Number(m[1]) : undefined;
};

describe('status never goes backwards across worker crashes (O5, V1)', () => {
  it('O5 V1 the worker SIGKILLed at many points: the finished-task count and the progress line never go backwards', async () => {
    const tasks = Array.from({ length: TASKS }, (_, i) => ({
      id: `t${i + 1}`,
      title: `write part ${i + 1}`,
      ...(i > 0 ? { dependencies: [`t${i}`] } : {}),
      files: { [`part${i + 1}.txt`]: `${i + 1}` },
    }));
    // Every model call takes a moment, so a kill can land while one is in flight, and a task takes
    // a few seconds, so the kills (at least 8) spread over the chain even when the machine is busy.
    scriptScenario(h.fake, { tasks, latencyMs: 800 });
    const start = () => startWorker({ address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL });
    let worker: WorkerProc = await start();
    const runId = uniqueId('mono');
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue,
      workflowId: runWorkflowId(runId),
      // Each kill costs the call in flight one attempt (its heartbeat times out): more than FAST's 3.
      args: [{ runId, instruction: 'write the parts one after another', workspace: h.workspace(), options: { ...FAST, llmMaxAttempts: 20 } }],
    });
    const running = async () => (await handle.describe()).status.name === 'RUNNING';

    // ------------------------------------------------------------ what a person reads, all along
    const statusDone = new Series('status: tasks DONE');
    const statusLine = new Series('status: "n/m tasks done"');
    const memoLine = new Series('memo checklist: "Progress: n/m"');
    const detailsLine = new Series('current details: "Progress: n/m"');
    let watching = true;
    const readStatus = (async () => {
      while (watching) {
        const s = await getStatus(h.client, runId).catch(() => undefined);
        if (s) {
          statusDone.see(s.tasks.filter((t) => t.state === 'DONE').length, `phase ${s.phase}`);
          const line = /(\d+)\/\d+ tasks done/.exec(renderStatus(s).split('\n')[0] ?? '');
          statusLine.see(line ? Number(line[1]) : undefined, `phase ${s.phase}`);
        }
        memoLine.see(progressOf((await handle.describe()).memo?.[MEMO_CHECKLIST]), 'memo');
        await sleep(100);
      }
    })();
    const readDetails = (async () => {
      while (watching) {
        const details = await Promise.race([
          handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata').then((m) => m.currentDetails),
          sleep(1500).then(() => undefined),
        ]).catch(() => undefined);
        detailsLine.see(progressOf(details), 'details');
        await sleep(100);
      }
    })();

    // ------------------------------------------------------------ the kills
    let doneAtLastKill = 0;
    let randomAt = 0;
    const inFlight = (purposes: string[]) => () => h.fake.requests.some((r) => purposes.includes(r.purpose) && r.finishedAt === undefined);
    const points: { name: string; ready: () => boolean }[] = [
      { name: 'a planning call in flight', ready: inFlight(['goal_understanding', 'task_decomposition', 'quality_judge', 'action_sequence']) },
      { name: 'a worker call in flight', ready: inFlight(['worker_step']) },
      { name: 'right after a task ended', ready: () => statusDone.max > doneAtLastKill },
      { name: 'a judge call in flight', ready: inFlight(['judge']) },
      { name: 'a replan decision in flight', ready: inFlight(['replan_decision']) },
      { name: 'a random moment', ready: () => Date.now() >= randomAt },
    ];
    const kills: string[] = [];
    for (let i = 0; await running(); i++) {
      // The first kill lands in planning; then the points take turns (planning is over by then).
      const point = i === 0 ? points[0]! : points[1 + ((i - 1) % (points.length - 1))]!;
      const deadline = Date.now() + 20_000;
      randomAt = Date.now() + Math.floor(Math.random() * 3000);
      while (!point.ready() && Date.now() < deadline) await sleep(20);
      if (!(await running())) break;
      const seen = point.ready();
      const at = (await handle.describe()).typedSearchAttributes.get(PHASE_KEY) ?? '?';
      await killWorker(worker);
      kills.push(
        `${seen ? point.name : `${point.name}: not seen within 20 s, so a moment 20 s on`} (phase ${at}, ${statusDone.max}/${TASKS} tasks done)`,
      );
      doneAtLastKill = statusDone.max;
      // A while with no worker at all: `status` reads the memo.
      await sleep(1500 + Math.floor(Math.random() * 1500));
      worker = await start();
      await sleep(500 + Math.floor(Math.random() * 1500));
    }
    let result;
    try {
      result = await handle.result();
      await sleep(1000);
    } finally {
      watching = false;
      await Promise.all([readStatus, readDetails]);
      await killWorker(worker);
    }

    const series = [statusDone, statusLine, memoLine, detailsLine];
    console.log(
      [
        `O5 V1 kills: ${kills.length}`,
        ...kills.map((k, n) => `  kill ${n + 1}: ${k}`),
        ...series.map((s) => `${s.name}: ${s.samples} samples, reached ${s.max}, backwards moves ${s.backwards.length}`),
      ].join('\n'),
    );
    expect(result.status).toBe('DONE');
    expect(kills.length).toBeGreaterThanOrEqual(8);
    for (const s of series) expect(s.backwards).toEqual([]);
    // Every series saw the run through to its end.
    expect(statusDone.max).toBe(TASKS);
    expect(memoLine.max).toBe(TASKS);
    expect(Math.min(...series.map((s) => s.samples))).toBeGreaterThan(10);
  }, 900_000);
});
