// Issue 4: LLM replan decisions at every phase on the real dev server (X1–X9, X14).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { DecisionRecord } from '../../src/domain/replan';
import { answerClarificationSignal, answerClarificationUpdate, decisionsQuery, statusQuery, type DecisionsView } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId, type RunInput } from '../../src/workflows/run';
import { FAST, temporalAddress, uniqueId, until, runOutcome, type Harness } from '../support/harness';
import { harnessForSuite } from '../support/suite-hooks';
import { decision, decisionPhaseOf, isAlternativesRequest, scriptDecisions } from '../support/decisions';
import { saveHistories } from '../support/histories';
import { REPLAN_COUNT_KEY } from '../../src/workflows/search-attributes';
import { plannedTask, scriptScenario, type Scenario, fileTask } from '../support/scenario';

const run = promisify(execFile);
let h: Harness;
harnessForSuite((started) => (h = started));

const ONE_TASK: Scenario = { tasks: [fileTask('a')] };

function start(config?: unknown, extra: Partial<RunInput> = {}): Promise<WorkflowHandle<typeof RunWorkflow>> {
  const runId = uniqueId('rp');
  return h.client.workflow.start(RunWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: 'write the file a.txt', workspace: h.workspace(), options: FAST, config, ...extra }],
  });
}

const decisionsOf = (handle: WorkflowHandle) => handle.query(decisionsQuery);
const brief = (r: DecisionRecord) => [r.phase, r.outcome, r.executed, r.result, r.override_reason ?? null];

/** The validator's message of a rejected answerClarification update. */
async function updateRejection(handle: WorkflowHandle, input: { questionId: string; answer: string }): Promise<string> {
  const err = await handle.executeUpdate(answerClarificationUpdate, { args: [input] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return String((err as { cause?: Error }).cause?.message);
}

async function pendingQuestion(handle: WorkflowHandle, id = 'q1') {
  return until(`question ${id}`, async () => (await handle.query(statusQuery)).questions?.find((q) => q.id === id));
}

describe('X7 confidence bands', () => {
  it('X7 X9 0.9 replans at once, 0.2 is ignored, 0.6 replans with a warning, 0.4 waits for the user to confirm — all in the decision log', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, {
      goal_understanding: [
        decision({ confidence: 0.9, type: 'goal_revision', issue: 'the objective is unclear' }),
        decision({ confidence: 0.2, type: 'goal_revision', issue: 'maybe another reading' }),
      ],
      task_decomposition: [
        decision({ confidence: 0.6, type: 'task_redecomposition', issue: 'tasks are too coarse' }),
        decision({ confidence: 0.4, type: 'task_redecomposition', issue: 'a step may be missing' }),
      ],
    });
    const handle = await start();
    const q = await pendingQuestion(handle);
    expect(q.kind).toBe('confirmation');
    expect(q.text).toContain('low confidence (40%)');
    // While it waits, the log already shows the confirmation as pending.
    const waiting = await decisionsOf(handle);
    expect(waiting.records.at(-1)).toMatchObject({ outcome: 'confirm', result: 'pending', executed: false, confidence: 0.4 });

    expect(await updateRejection(handle, { questionId: 'q1', answer: 'maybe' })).toContain(
      'question q1 asks for a confirmation: answer yes or no (got "maybe")',
    );
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: 'q1', answer: 'yes' }] });
    const result = await handle.result();
    expect(result.status).toBe('DONE');

    const view = await decisionsOf(handle);
    const log = view.records.filter((r) => r.phase !== 'action_sequence' && r.phase !== 'execution' && r.phase !== 'reflection');
    expect(log.map(brief)).toEqual([
      ['goal_understanding', 'replan', true, 'success', null],
      ['goal_understanding', 'ignore', false, 'skipped', 'very_low_confidence'],
      ['task_decomposition', 'replan', true, 'success', null],
      ['task_decomposition', 'confirm', true, 'success', null],
      ['task_decomposition', 'none', false, 'skipped', null],
    ]);
    expect(log[0]!.message).toBeUndefined();
    expect(log[1]!.message).toContain('Plan kept');
    expect(log[2]!.message).toContain('moderate confidence 60%');
    expect(log[0]!.llm_decision).toMatchObject({ replan_type: 'goal_revision', confidence: 0.9 });
    expect(log[0]!.plan_after!.goal).toBeTruthy();
    expect(log[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(view.counters.total).toBe(3);
    expect(view.questions).toEqual([expect.objectContaining({ id: 'q1', status: 'answered', answer: 'yes' })]);

    const status = await handle.query(statusQuery);
    expect(status.phaseRuns).toMatchObject({ goal_understanding: 2, task_decomposition: 3, execution: 1 });
    expect(status.replans?.total).toBe(3);
    const sa = (await handle.describe()).typedSearchAttributes.getAll().find((p) => p.key.name === 'ReplanCount');
    expect(sa?.value).toBe(3);
    // X3: the goal replan told the next goal phase why.
    const goals = h.fake.successfulFor('goal_understanding');
    expect(goals[1]!.text).toContain('the objective is unclear');
    await saveHistories(h.client, [handle.workflowId, `${handle.workflowId}.execution-1`]);
  });

  it('X7 a declined confirmation keeps the plan (answered by the signal twin)', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, { action_sequence: [decision({ confidence: 0.35, type: 'action_regeneration', issue: 'order' })] });
    const handle = await start();
    await pendingQuestion(handle);
    await handle.signal(answerClarificationSignal, { questionId: 'q1', answer: 'no' });
    expect((await handle.result()).status).toBe('DONE');
    const view = await decisionsOf(handle);
    expect(view.records.find((r) => r.outcome === 'confirm')).toMatchObject({ executed: false, result: 'skipped', override_reason: 'user_declined' });
    expect(view.counters.total).toBe(0);
    expect((await handle.query(statusQuery)).phaseRuns.action_sequence).toBe(1);
  });
});

describe('X6 overrides and limits', () => {
  it('X6 X8 the same trigger twice: the next replan is refused as a loop and the LLM is told so in its next prompt', async () => {
    scriptScenario(h.fake, ONE_TASK);
    const same = decision({ confidence: 0.9, type: 'goal_revision', issue: 'Error at line 12: objective unclear' });
    scriptDecisions(h.fake, {
      goal_understanding: [same, decision({ confidence: 0.9, type: 'goal_revision', issue: 'error at line 13: objective unclear.' }), same],
    });
    const handle = await start();
    expect((await handle.result()).status).toBe('DONE');

    const view = await decisionsOf(handle);
    const goal = view.records.filter((r) => r.phase === 'goal_understanding');
    expect(goal.map(brief)).toEqual([
      ['goal_understanding', 'replan', true, 'success', null],
      ['goal_understanding', 'replan', true, 'success', null],
      ['goal_understanding', 'override', false, 'skipped', 'loop_detected'],
      ['goal_understanding', 'none', false, 'skipped', null],
    ]);
    expect(goal[2]!.message).toContain('refused as a loop');
    const reqs = h.fake.requestsFor('replan_decision').filter((r) => decisionPhaseOf(r) === 'goal_understanding');
    // The third decision's prompt already warned; the next (alternatives) prompt says it was refused.
    expect(reqs[2]!.text).toContain('will be refused as a loop');
    expect(isAlternativesRequest(reqs[3]!)).toBe(true);
    expect(reqs[3]!.text).toContain('the same replan was already tried for the same problem (loop detected)');
    expect(view.counters.total).toBe(2);
    expect((await handle.query(statusQuery)).phaseRuns.goal_understanding).toBe(3);
  });

  const looping = decision({ confidence: 0.9, type: 'goal_revision', issue: 'objective unclear' });
  const loopConfig = () => ({});

  it('X8 no alternative from the LLM: the user is asked how to go on; the answer reaches later prompts', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, { goal_understanding: [looping, looping, looping] }, looping);
    const handle = await start(loopConfig());
    const q = await pendingQuestion(handle);
    expect(q.kind).toBe('escalation');
    expect(q.text).toContain('Replan Could Not Be Carried Out');
    await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: 'q1', answer: 'Keep the goal as it is and go on.' }] });
    expect((await handle.result()).status).toBe('DONE');
    const reasons = (await decisionsOf(handle)).records.map((r) => r.override_reason ?? r.outcome);
    expect(reasons.slice(0, 4)).toEqual(['replan', 'replan', 'loop_detected', 'loop_detected']);
    const later = h.fake.requestsFor('replan_decision').filter((r) => decisionPhaseOf(r) === 'task_decomposition');
    expect(later[0]!.text).toContain('Keep the goal as it is and go on.');
  });

  it('X13 a replan that fails to execute is recorded as failed, the LLM is asked for alternatives, and the previous plan goes on', async () => {
    scriptScenario(h.fake, ONE_TASK);
    // The first decomposition is fine; the one the replan asks for never yields a valid graph.
    h.fake.script('task_decomposition', { json: { tasks: ONE_TASK.tasks.map(plannedTask) } });
    const cyclic = [
      { ...plannedTask({ id: 'x', title: 'x' }), dependencies: ['y'] },
      { ...plannedTask({ id: 'y', title: 'y' }), dependencies: ['x'] },
    ];
    h.fake.always('task_decomposition', { json: { tasks: cyclic } });
    scriptDecisions(h.fake, { action_sequence: [decision({ confidence: 0.9, type: 'task_redecomposition', issue: 'a step is missing' })] });
    const handle = await start();
    const result = await handle.result();
    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['a', 'DONE']]);
    const view = await decisionsOf(handle);
    const failed = view.records.find((r) => r.outcome === 'replan')!;
    expect(failed).toMatchObject({ phase: 'action_sequence', executed: true, result: 'failure' });
    expect(failed.plan_after!.note).toContain('failed: ');
    expect(failed.plan_after!.note).toContain('cycle');
    // X9: the plan after a failed replan is the plan before it, restored.
    expect(failed.plan_after!.tasks).toEqual(failed.plan_before!.tasks);
    const alternatives = h.fake.requestsFor('replan_decision').filter(isAlternativesRequest);
    expect(alternatives).toHaveLength(1);
    expect(alternatives[0]!.text).toContain('the replan was started but failed');
    expect((await handle.query(statusQuery)).phaseRuns).toMatchObject({ task_decomposition: 2, action_sequence: 1, execution: 1 });
  });

  it('X13 on_replan_failure abort: nobody answers the escalation, the run stops and says why', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, { goal_understanding: [looping, looping, looping] }, looping);
    const handle = await start({
      replanning: { on_replan_failure: 'abort', goal_understanding: { auto_assume_timeout_minutes: 0.02 } },
    });
    await expect(handle.result()).rejects.toThrow();
    const status = await handle.query(statusQuery);
    expect(status.status).toBe('FAILED');
    expect(status.error).toContain('Run stopped: the same replan was already tried for the same problem');
    expect(status.error).toContain('replanning.on_replan_failure: abort');
  });

  it('X5 X6 the global limit (10) holds: the 11th replan is refused', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, {
      goal_understanding: [(_req, n) => decision({ confidence: 0.9, type: 'goal_revision', issue: `problem number ${'x'.repeat(n)}` })],
    });
    const handle = await start();
    expect((await handle.result()).status).toBe('DONE');
    const view = await decisionsOf(handle);
    expect(view.counters.total).toBe(10);
    const refused = view.records.find((r) => r.outcome === 'override')!;
    expect(refused).toMatchObject({ override_reason: 'global_limit', executed: false });
    expect(refused.message).toContain('10/10, replanning.global.max_total_replans');
    expect((await handle.query(statusQuery)).phaseRuns.goal_understanding).toBe(11);
    const sa = (await handle.describe()).typedSearchAttributes.getAll().find((p) => p.key.name === 'ReplanCount');
    expect(sa?.value).toBe(10);
  });

  // Each phase's own limit (defaults, X5): the phase keeps asking for its replan with a new issue each time.
  const blockedOnce: Scenario = {
    tasks: [fileTask('a')],
    judge: () => ({ success: false, shouldContinue: false, shouldReplan: false, reason: 'a.txt is wrong', missingRequirements: [] }),
  };
  it.each([
    ['task_decomposition', 'task_redecomposition', 3, 'replanning.task_decomposition.max_redecomposition_attempts', ONE_TASK],
    ['action_sequence', 'action_regeneration', 3, 'replanning.action_sequence.max_regeneration_attempts', ONE_TASK],
    ['reflection', 'plan_revision', 2, 'replanning.reflection.max_plan_revisions', ONE_TASK],
    ['execution', 'partial_replan', 2, 'replanning.execution.max_partial_replans', blockedOnce],
    ['execution', 'retry', 3, 'replanning.execution.max_action_retries', blockedOnce],
  ] as const)('X5 the %s limit of %s (%i) holds', async (phase, type, limit, key, scenario) => {
    scriptScenario(h.fake, scenario);
    scriptDecisions(h.fake, { [phase]: [(_req: unknown, n: number) => decision({ confidence: 0.9, type, issue: `issue ${'#'.repeat(n)}` })] });
    const handle = await start();
    await runOutcome(handle);
    const view = await decisionsOf(handle);
    expect(view.counters.byType[type]).toBe(limit);
    expect(view.counters.total).toBe(limit);
    const refused = view.records.filter((r) => r.outcome === 'override');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]).toMatchObject({ phase, override_reason: 'phase_limit' });
    expect(refused[0]!.message).toContain(`${limit}/${limit}, ${key}`);
    if (type === 'retry') await saveHistories(h.client, [handle.workflowId, `${handle.workflowId}.execution-1`, `${handle.workflowId}.execution-2`]);
  });

  it('X5 goal revisions are bounded by the global limit only: three in a row all run (the old per-phase limit was 2)', async () => {
    scriptScenario(h.fake, ONE_TASK);
    // Distinct issues, so loop detection (X6) does not step in.
    const revise = (issue: string) => decision({ confidence: 0.9, type: 'goal_revision', issue });
    scriptDecisions(h.fake, {
      goal_understanding: [revise('the objective is unclear'), revise('the audience is unknown'), revise('the output format is open')],
    });
    const handle = await start({ replanning: { global: { max_total_replans: 3 } } });
    expect((await handle.result()).status).toBe('DONE');
    const view = await decisionsOf(handle);
    expect(view.counters.byType.goal_revision).toBe(3);
    expect(view.records.filter((r) => r.outcome === 'override')).toEqual([]);
    expect((await handle.query(statusQuery)).phaseRuns.goal_understanding).toBe(4);
  });

  it('X13 an unparseable decision is "no replan": logged with the reason, the run goes on', async () => {
    scriptScenario(h.fake, ONE_TASK);
    h.fake.script('replan_decision', { content: 'Honestly I would replan, the goal feels vague.' });
    h.fake.script('replan_decision', {
      content: 'Here:\n```json\n{"replan_needed": false, "confidence": 0.8, "reasoning": "fine in a code block", "replan_type": "none"}\n```',
    });
    const handle = await start();
    expect((await handle.result()).status).toBe('DONE');
    const [first, second] = (await decisionsOf(handle)).records;
    expect(first).toMatchObject({ phase: 'goal_understanding', outcome: 'none', executed: false, result: 'skipped' });
    expect(first!.llm_decision.reasoning).toContain('unparseable replan decision');
    expect(second).toMatchObject({ phase: 'task_decomposition', outcome: 'none' });
    expect(second!.llm_decision.reasoning).toBe('fine in a code block');
    // Not retried: one request per phase end.
    expect(h.fake.requestsFor('replan_decision').filter((r) => decisionPhaseOf(r) === 'goal_understanding')).toHaveLength(1);
  });

  it('X5 the clarification limit (2) holds: the third question round is refused', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, {
      goal_understanding: [
        (_req, n) =>
          decision({ confidence: 0.9, type: 'clarification_request', issue: `unclear ${'?'.repeat(n)}`, questions: [`question round ${n}?`] }),
      ],
    });
    const handle = await start();
    for (const id of ['q1', 'q2']) {
      await pendingQuestion(handle, id);
      await handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId: id, answer: `answer to ${id}` }] });
    }
    expect((await handle.result()).status).toBe('DONE');
    const view = await decisionsOf(handle);
    expect(view.counters.byType.clarification_request).toBe(2);
    expect(view.questions.map((q) => q.id)).toEqual(['q1', 'q2']);
    const refused = view.records.find((r) => r.outcome === 'override')!;
    expect(refused).toMatchObject({ override_reason: 'phase_limit', replan_type: 'clarification_request' });
    expect(refused.message).toContain('2/2, replanning.goal_understanding.max_clarification_requests');
  });

  it('X12 an invalid config fails the run at start, naming the key', async () => {
    scriptScenario(h.fake, ONE_TASK);
    const handle = await start({ replanning: { llm_decision: { min_confidence_threshold: 2 } } });
    await expect(handle.result()).rejects.toThrow();
    const status = await handle.query(statusQuery);
    expect(status.status).toBe('FAILED');
    expect(status.error).toContain('replanning.llm_decision.min_confidence_threshold');
    expect(h.fake.requests).toHaveLength(0);
  });

  it('X12 replanning.enabled false: no decision is asked', async () => {
    scriptScenario(h.fake, ONE_TASK);
    const handle = await start({ replanning: { enabled: false } });
    expect((await handle.result()).status).toBe('DONE');
    expect(h.fake.requestsFor('replan_decision')).toHaveLength(0);
  });
});

describe('X14 clarification', () => {
  const clarifying = decision({
    confidence: 0.9,
    type: 'clarification_request',
    issue: 'the output format is not specified',
    questions: ['Which output format do you want?', 'Should existing files be kept?'],
    assumptions: ['JSON output', 'existing files are kept'],
  });

  it('X14 V8 questions answered with `temporal workflow update`; bad answers are rejected by the validator; the goal is re-understood with the answers; an answered question is no plan change (ReplanCount 0)', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, { goal_understanding: [clarifying] });
    const handle = await start();
    await pendingQuestion(handle, 'q2');
    const update = (input: unknown) =>
      run(process.env.TEMPORAL_CLI_PATH!, [
        'workflow',
        'update',
        'execute',
        '--address',
        temporalAddress(),
        '--workflow-id',
        handle.workflowId,
        '--name',
        'answerClarification',
        '--input',
        JSON.stringify(input),
      ]);
    const rejected = async (input: unknown) => {
      const e = await update(input).then(
        () => undefined,
        (err: { stderr?: string }) => err,
      );
      expect(e).toBeDefined();
      return (e!.stderr ?? '').replace(/\\"/g, '"');
    };
    expect(await rejected({ questionId: 'q9', answer: 'CSV' })).toContain('unknown question "q9" (pending: q1, q2)');
    expect(await rejected({ questionId: 'q1', answer: '   ' })).toContain('the answer to q1 is empty');
    const ok = await update({ questionId: 'q1', answer: 'CSV please' });
    expect(ok.stdout).toContain('q2');
    expect(await rejected({ questionId: 'q1', answer: 'TSV' })).toContain('question q1 is no longer pending: it was already answered: "CSV please"');
    // The client SDK sees the same validator.
    expect(await updateRejection(handle, { questionId: 'q7', answer: 'x' })).toContain('unknown question "q7" (pending: q2)');
    await update({ questionId: 'q2', answer: 'yes, keep them' });

    expect((await handle.result()).status).toBe('DONE');
    const view: DecisionsView = await decisionsOf(handle);
    expect(view.records[0]).toMatchObject({ outcome: 'clarify', executed: true, result: 'success', replan_type: 'clarification_request' });
    expect(view.questions.map((q) => [q.id, q.status, q.answer])).toEqual([
      ['q1', 'answered', 'CSV please'],
      ['q2', 'answered', 'yes, keep them'],
    ]);
    const second = h.fake.successfulFor('goal_understanding')[1]!;
    expect(second.text).toContain('CSV please');
    expect(second.text).toContain('Which output format do you want?');
    expect(view.counters.byType.clarification_request).toBe(1);
    // V8: the limits still count the question, the ReplanCount search attribute does not: no plan changed.
    expect(view.counters.total).toBe(1);
    expect((await handle.describe()).typedSearchAttributes.get(REPLAN_COUNT_KEY)).toBe(0);
  });

  it('X14 nobody answers: after the timeout the run goes on with the LLM assumptions and says so', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, { goal_understanding: [clarifying] });
    const handle = await start({ replanning: { goal_understanding: { auto_assume_timeout_minutes: 0.02 } } });
    expect((await handle.result()).status).toBe('DONE');
    const view = await decisionsOf(handle);
    expect(view.records[0]).toMatchObject({ outcome: 'clarify', result: 'success', override_reason: 'no_response_assumed' });
    expect(view.records[0]!.plan_after!.note).toContain('continuing on these assumptions: JSON output; existing files are kept');
    expect(view.questions.map((q) => q.status)).toEqual(['timed_out', 'timed_out']);
    const status = await handle.query(statusQuery);
    expect(status.goal?.assumptions).toEqual(expect.arrayContaining(['JSON output', 'existing files are kept']));
    expect(status.phaseRuns.goal_understanding).toBe(1);
    // Later prompts are told what was assumed.
    const later = h.fake.requestsFor('replan_decision').filter((r) => decisionPhaseOf(r) === 'task_decomposition');
    expect(later[0]!.text).toContain('Assumed (no answer to q1, q2)');
  });
});

describe('continue-as-new', () => {
  it('X9 counters, decision log and questions are carried across continue-as-new', async () => {
    scriptScenario(h.fake, ONE_TASK);
    scriptDecisions(h.fake, {
      goal_understanding: [decision({ confidence: 0.9, type: 'goal_revision', issue: 'unclear objective' })],
      reflection: [decision({ confidence: 0.6, type: 'plan_revision', issue: 'docs missing' })],
    });
    const handle = await start(undefined, { options: { ...FAST, continueAsNewAfterEvents: 1 } });
    expect((await handle.result()).status).toBe('DONE');
    const view = await decisionsOf(handle);
    expect(view.counters.total).toBe(2);
    expect(view.records.filter((r) => r.outcome === 'replan').map((r) => [r.phase, r.result])).toEqual([
      ['goal_understanding', 'success'],
      ['reflection', 'success'],
    ]);
    const status = await handle.query(statusQuery);
    expect(status.phaseRuns).toMatchObject({ goal_understanding: 2, action_sequence: 2, reflection: 2 });
    // It really continued as new: more than one run of the workflow id.
    const runs = [];
    for await (const w of h.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.push(w.runId);
    expect(runs.length).toBeGreaterThan(3);
  });
});
