// Issue 11: the execution scheduler does not wait in front of itself. A replan decision after a
// task runs beside the scheduler (the next ready task starts at once); a decision that wants a
// replan stops further starts from the moment it answers.
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { decisionsQuery, statusQuery, type SealedProgress } from '../../src/workflows/messages';
import { taskWorkflowId } from '../../src/workflows/execution';
import type { RunOptions } from '../../src/workflows/options';
import { childReadsIn } from '../support/child-reads';
import type { RecordedRequest } from '../support/fake-openai';
import { FAST, uniqueId, until, type Harness } from '../support/harness';
import { expectDone } from '../support/expectations';
import { harnessForSuite } from '../support/suite-hooks';
import { decision, decisionPhaseOf } from '../support/decisions';
import { NO_REPLAN_DECISION, scriptScenario, taskIdOf, workerReply, workerStepsSoFar, type ScenarioTask } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started));

const task = (id: string): ScenarioTask => ({ id, title: `write ${id}`, files: { [`${id}.txt`]: id.toUpperCase() } });

/** The task an execution-phase replan_decision request is about. */
const decidedTask = (r: RecordedRequest) => /\*\*Executed Action:\*\*\ntask (\S+):/.exec(r.text)?.[1];
const firstWorker = (id: string) => h.fake.requestsFor('worker_step').find((r) => r.text.includes(`TASK ${id}:`));
const decisionAfter = (id: string) => h.fake.requestsFor('replan_decision').find((r) => decisionPhaseOf(r) === 'execution' && decidedTask(r) === id);

function startRun(maxParallelTasks: number, extra: Partial<RunOptions> = {}) {
  const runId = uniqueId('sched');
  return h.client.workflow.start(RunWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: 'write the files', workspace: h.workspace(), options: { ...FAST, maxParallelTasks, ...extra } }],
  });
}

/** Every execution decision says "no replan"; the one after task a answers after `ms`. */
function slowDecisionAfterA(ms: number): void {
  h.fake.always('replan_decision', (req) =>
    decisionPhaseOf(req) === 'execution' && decidedTask(req) === 'a'
      ? { delayMs: ms, then: { json: NO_REPLAN_DECISION } }
      : { json: NO_REPLAN_DECISION },
  );
}

describe('X1 B1 replan decisions run beside the scheduler', () => {
  it('X1 B1 a slow decision after task a does not hold back task b (one slot): b starts its worker before that decision answers', async () => {
    scriptScenario(h.fake, { tasks: [task('a'), task('b')] });
    slowDecisionAfterA(2000);
    const handle = await startRun(1);
    await expectDone(handle, [
      ['a', 'DONE'],
      ['b', 'DONE'],
    ]);
    const afterA = decisionAfter('a')!;
    expect(afterA).toBeDefined();
    expect(firstWorker('b')!.startedAt).toBeLessThan(afterA.finishedAt!);
    // One slot: b still waited for a itself (its judge answered before b's worker started).
    const judgeA = h.fake.requestsFor('judge').find((r) => r.text.includes('TASK a:'))!;
    expect(firstWorker('b')!.startedAt).toBeGreaterThanOrEqual(judgeA.finishedAt!);
    // Both decisions are still recorded, in the run's decision log.
    const executed = (await handle.query(decisionsQuery)).records.filter((r) => r.phase === 'execution');
    expect(executed).toHaveLength(2);
  });

  it('X1 B1 a dependent of a starts before the slow decision after a answers', async () => {
    scriptScenario(h.fake, { tasks: [task('a'), { ...task('b'), dependencies: ['a'] }] });
    slowDecisionAfterA(2000);
    const handle = await startRun(3);
    expect((await handle.result()).status).toBe('DONE');
    expect(firstWorker('b')!.startedAt).toBeLessThan(decisionAfter('a')!.finishedAt!);
  });

  it('X1 B1 a decision that wants a replan stops further starts: a task that became ready after it answered does not start in that round', async () => {
    // One slot, three independent tasks: a, then b (started while the decision after a runs), then c.
    // b's worker is slow (1.5 s a step), so the decision after a (0.5 s) answers "replan" (low confidence: the run then
    // ignores it, X7) while b runs; c becomes startable only when b ends, after that answer.
    scriptScenario(h.fake, { tasks: [task('a'), task('b'), task('c')] });
    h.fake.always('worker_step', (req) => {
      const t = task(taskIdOf(req) ?? '?');
      const reply = workerReply(t, workerStepsSoFar(req));
      return t.id === 'b' ? { delayMs: 1500, then: reply } : reply;
    });
    h.fake.always('replan_decision', (req) =>
      decisionPhaseOf(req) === 'execution' && decidedTask(req) === 'a'
        ? { delayMs: 500, then: { json: decision({ confidence: 0.2, type: 'retry', issue: 'a looks odd' }) } }
        : { json: NO_REPLAN_DECISION },
    );
    const handle = await startRun(1);
    await expectDone(handle, [
      ['a', 'DONE'],
      ['b', 'DONE'],
      ['c', 'DONE'],
    ]);
    const afterA = decisionAfter('a')!;
    // b had started before the decision answered; c started only after it, in the next round.
    expect(firstWorker('b')!.startedAt).toBeLessThan(afterA.finishedAt!);
    expect(firstWorker('c')!.startedAt).toBeGreaterThan(afterA.finishedAt!);
    expect((await handle.query(statusQuery)).phaseRuns.execution).toBe(2);
    const started = async (id: string) =>
      h.client.workflow
        .getHandle(id)
        .describe()
        .then(
          () => true,
          () => false,
        );
    expect(await started(taskWorkflowId(handle.workflowId, 'c'))).toBe(false);
    expect(await started(taskWorkflowId(handle.workflowId, 'c', 2))).toBe(true);
    // No decision was asked after b: a replan was already wanted when b ended.
    expect(decisionAfter('b')).toBeUndefined();
  });
});

describe('S3 B1 the execution history stays bounded whatever the plan size', () => {
  it('S3 B1 a full execution history hands the READY rest to a new round: every task DONE, each round small', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    scriptScenario(h.fake, { tasks: ids.map(task) });
    // A tiny threshold (the run's continue-as-new threshold, 5000 by default) forces hand-overs.
    const handle = await startRun(1, { continueAsNewAfterEvents: 40 });
    const result = await handle.result();

    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => t.state)).toEqual(ids.map(() => 'DONE'));
    const rounds = (await handle.query(statusQuery)).phaseRuns.execution ?? 0;
    expect(rounds).toBeGreaterThan(1);
    for (let n = 1; n <= rounds; n++) {
      const d = await h.client.workflow.getHandle(`${handle.workflowId}.execution-${n}`).describe();
      // One task started past the threshold finishes in its round (about 20 events with its decision).
      expect(d.historyLength).toBeLessThan(40 + 30);
    }
  });
});

describe('B1 S2 progress reaches the run as sealed deltas', () => {
  it('B1 S2 the execution phase reports only the tasks that changed, sealed with the token the run gave it, newer versions each time, about two records per task in all; the run takes them without reading the phase; status follows the tasks live', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    scriptScenario(h.fake, { tasks: ids.map(task) });
    // Task i's worker is slow, so status can be read while the others are done and i still runs.
    h.fake.always('worker_step', (req) => {
      const t = task(taskIdOf(req) ?? '?');
      const reply = workerReply(t, workerStepsSoFar(req));
      return t.id === 'i' ? { delayMs: 1500, then: reply } : reply;
    });
    const handle = await startRun(3);
    const live = await until('status to show i running and the others done', async () => {
      const s = await handle.query(statusQuery);
      const states = Object.fromEntries(s.tasks.map((t) => [t.id, t.state]));
      return states.i === 'RUNNING' && ids.slice(0, -1).every((id) => states[id] === 'DONE') ? s : undefined;
    });
    expect(live.phase).toBe('execution');
    expect((await handle.result()).status).toBe('DONE');

    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    // S2: each report is sealed with the token the run gave its execution phase.
    const execution = (await h.client.workflow.getHandle(`${handle.workflowId}.execution-1`).fetchHistory()).events ?? [];
    const given = execution[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    const token = (JSON.parse(Buffer.from(given!).toString()) as { progressToken?: string }).progressToken;
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    const reports = events
      .map((e) => e.workflowExecutionSignaledEventAttributes)
      .filter((a) => a?.signalName === 'taskProgress')
      .map((a) => JSON.parse(Buffer.from(a!.input!.payloads![0]!.data!).toString()) as SealedProgress);
    expect(reports.length).toBeGreaterThan(0);
    for (const r of reports) expect(r.token).toBe(token);
    // Taken as they come: the run read nothing from its execution phase.
    expect(childReadsIn(events)).toEqual([]);
    const seqs = reports.map((r) => r.report.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    // Each report follows on from the one before it.
    expect(reports.map((r) => r.since)).toEqual([0, ...seqs.slice(0, -1)]);
    // Whole-plan reports would carry 9 records each; deltas carry each task when it starts and when it ends.
    const records = reports.reduce((n, r) => n + r.report.tasks.length, 0);
    expect(records).toBeLessThanOrEqual(2 * ids.length);
  });
});
