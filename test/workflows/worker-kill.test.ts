// X9 / X14: the worker process is SIGKILLed while the run waits durably for the user's answer to a
// clarification question. A new worker process takes over: the decision log, the counters and the
// pending question are exactly as before, and the run completes once the question is answered,
// without repeating any finished LLM call.
// O7: the worker SIGKILLed again and again while one worker step waits for the model: the step's
// own attempts are not used up by the lost workers, and the task ends DONE.
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { answerClarificationUpdate, decisionsQuery, statusQuery, type DecisionsView, type RunStatus } from '../../src/workflows/messages';
import { FAST, runOutcome, temporalAddress, uniqueId, until, type Harness } from '../support/harness';
import { startWorkerProcess as startWorker } from '../support/worker-proc';
import { harnessForWorkerProcesses } from '../support/suite-hooks';
import { nth } from '../support/lists';
import { scriptScenario, workerReply, workerStepsSoFar, type ScenarioTask } from '../support/scenario';
import { startRun } from '../support/start-run';
import { decision, decisionPhaseOf, scriptDecisions } from '../support/decisions';

let h: Harness;
const taskQueue = uniqueId('worker-kill');

harnessForWorkerProcesses((x) => (h = x));

/** A Replanner worker in its own process on this test's task queue, talking to the harness's fake LLM. */
const startWorkerProcess = () => startWorker({ address: temporalAddress(), taskQueue: taskQueue, llmBaseURL: h.fake.baseURL });

describe('worker process killed during a clarification wait', () => {
  it('X9 X14 the worker SIGKILLed while the run waits for an answer: state intact, completes after the answer', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'a', title: 'write the report', files: { 'report.txt': 'r' } }] });
    scriptDecisions(h.fake, {
      goal_understanding: [
        decision({ confidence: 0.9, type: 'goal_revision', issue: 'objective unclear' }),
        decision({ confidence: 0.9, type: 'clarification_request', questions: ['Which output format?'], assumptions: ['JSON'] }),
      ],
    });
    let worker = await startWorkerProcess();

    const runId = uniqueId('kill');
    const handle = await h.client.workflow.start(RunWorkflow, {
      taskQueue,
      workflowId: runWorkflowId(runId),
      args: [
        {
          runId,
          instruction: 'write a report of the data',
          workspace: h.workspace(),
          options: FAST,
          config: { replanning: { goal_understanding: { auto_assume_timeout_minutes: 30 } } },
        },
      ],
    });

    const before: RunStatus = await until('the question q1 to be asked', async () => {
      const s = await handle.query(statusQuery);
      return s.questions?.some((q) => q.id === 'q1' && q.status === 'pending') ? s : undefined;
    });
    const decisionsBefore: DecisionsView = await handle.query(decisionsQuery);
    expect(before.status).toBe('WAITING');
    expect(before.phase).toBe('goal_understanding');
    expect(before.questions).toEqual([
      expect.objectContaining({
        id: 'q1',
        kind: 'clarification',
        phase: 'goal_understanding',
        text: 'Which output format?',
        assumptions: ['JSON'],
        timeoutMinutes: 30,
        status: 'pending',
      }),
    ]);
    // The goal revision and the clarification request are both recorded and counted.
    expect(decisionsBefore.records).toHaveLength(2);
    expect(decisionsBefore.records.map((r) => r.replan_type)).toEqual(['goal_revision', 'clarification_request']);
    expect(decisionsBefore.counters.total).toBe(2);
    expect(decisionsBefore.counters.byPhase.goal_understanding).toBe(2);
    expect(before.replans).toEqual({ total: 2, byType: { goal_revision: 1, clarification_request: 1 }, byPhase: { goal_understanding: 2 } });
    expect(decisionsBefore.questions).toEqual(before.questions);
    const requestsBefore = h.fake.requests.length;

    // SIGKILL: no graceful shutdown, nothing flushed.
    worker.child.kill('SIGKILL');
    expect((await worker.exited).signal).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 1000));
    worker = await startWorkerProcess();

    // Queries need a worker: the new one replays the history to answer them.
    const decisionsAfter = await until('the decisions query on the new worker', () => handle.query(decisionsQuery), 90_000);
    const after = await until('the status query on the new worker', () => handle.query(statusQuery), 90_000);
    expect(decisionsAfter.counters).toEqual(decisionsBefore.counters);
    expect(decisionsAfter.records).toEqual(decisionsBefore.records);
    expect(decisionsAfter.dropped).toEqual(decisionsBefore.dropped);
    expect(decisionsAfter.questions).toEqual(decisionsBefore.questions);
    expect(after.questions).toEqual(before.questions);
    expect(after.replans).toEqual(before.replans);
    expect(after.lastDecision).toEqual(before.lastDecision);
    expect(after.phase).toBe(before.phase);
    expect(after.phaseRuns).toEqual(before.phaseRuns);
    expect(after.usage).toEqual(before.usage);
    // Replaying asked the LLM nothing.
    expect(h.fake.requests.length).toBe(requestsBefore);

    const answeredAt = Date.now();
    const ack = await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: 'q1', answer: 'CSV' }] });
    expect(ack).toEqual({ questionId: 'q1', stillPending: [] });

    const result = await handle.result();
    expect(result.status).toBe('DONE');

    const goalRequests = h.fake.successfulFor('goal_understanding');
    const afterAnswer = goalRequests.filter((r) => r.startedAt >= answeredAt);
    expect(afterAnswer).toHaveLength(1);
    expect(nth(afterAnswer, 0).text).toContain('CSV');
    expect(nth(afterAnswer, 0).text).toContain('Which output format?');

    // No LLM call repeated: exactly what the scenario needs. Goal: first try, after the revision,
    // after the answer; one decision after each of those and after each later phase (one task).
    const ok = (p: string) => h.fake.successfulFor(p).length;
    expect(goalRequests).toHaveLength(3);
    expect(ok('task_decomposition')).toBe(1);
    expect(ok('quality_judge')).toBe(1);
    expect(ok('action_sequence')).toBe(1);
    expect(ok('judge')).toBe(1);
    expect(ok('reflection')).toBe(1);
    expect(ok('worker_step')).toBe(2);
    const decisions = h.fake.successfulFor('replan_decision').map(decisionPhaseOf);
    expect(decisions).toEqual([
      'goal_understanding',
      'goal_understanding',
      'goal_understanding',
      'task_decomposition',
      'action_sequence',
      'execution',
      'reflection',
    ]);
    expect(h.fake.requests.every((r) => r.status === 200)).toBe(true);

    const final = await handle.query(decisionsQuery);
    expect(final.questions).toEqual([expect.objectContaining({ id: 'q1', status: 'answered', answer: 'CSV' })]);
    expect(final.records.find((r) => r.replan_type === 'clarification_request')?.result).toBe('success');
  });
});

describe('O7 a worker that dies during an LLM call', () => {
  it('O7 O4 the worker SIGKILLed six times while one worker step waits for the model (3 attempts of its own): the task still ends DONE', async () => {
    // The model's requests counted from here (the test before asked it too).
    h.fake.reset();
    const task: ScenarioTask = { id: 'a', title: 'write a', files: { 'a.txt': 'A' } };
    scriptScenario(h.fake, { tasks: [task] });
    const KILLS = 6;
    let held = 0;
    // The task's first worker step: its first six attempts find a model that takes two minutes,
    // and the worker is killed meanwhile; the seventh gets the reply at once.
    h.fake.always('worker_step', (req) => {
      const reply = workerReply(task, workerStepsSoFar(req));
      if (workerStepsSoFar(req) > 0 || held >= KILLS) return reply;
      held += 1;
      return { delayMs: 120_000, then: reply };
    });
    // A task queue of its own: the worker of the test before still polls the suite's queue, and a
    // step it took would wait out the model's two minutes unkilled.
    const ownQueue = uniqueId('worker-kill-o7');
    const startWorkerProcess = () => startWorker({ address: temporalAddress(), taskQueue: ownQueue, llmBaseURL: h.fake.baseURL });
    let worker = await startWorkerProcess();
    // FAST: 3 attempts of the call's own; a lost step is noticed after 1 s without a heartbeat.
    const { handle } = await startRun(
      { client: h.client, taskQueue: ownQueue },
      { instruction: 'write a.txt', workspace: h.workspace(), options: { ...FAST, workerHeartbeatTimeoutMs: 1000 } },
      'kill6',
    );
    for (let kill = 1; kill <= KILLS; kill++) {
      await until(
        `attempt ${kill} of the worker step to reach the model`,
        async () => (h.fake.requestsFor('worker_step').length >= kill ? true : undefined),
        90_000,
      );
      worker.child.kill('SIGKILL');
      expect((await worker.exited).signal).toBe('SIGKILL');
      worker = await startWorkerProcess();
    }
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['a', 'DONE']]);
    // The first step was asked seven times (six lost with their worker), the summary step once.
    expect(h.fake.requestsFor('worker_step').filter((r) => workerStepsSoFar(r) === 0)).toHaveLength(KILLS + 1);
  }, 400_000);
});
