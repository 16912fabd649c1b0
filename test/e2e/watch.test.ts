// V2: `replanner watch --json` is lossless and ordered. Over a run with a clarification question
// (answered), a task re-decomposition replan and a Duck Pacemaker consultation (answered), every
// phase entry, decision, task transition, question and consultation appears exactly once and in
// order — checked against what really happened: the scripted LLM server's request log and the
// Temporal histories (child workflow starts and completions, decision activities, signals), not
// against the run's own event log. The worker's tool calls show while its task runs.
import { PassThrough } from 'node:stream';
import type { temporal } from '@temporalio/proto';
import { main } from '../../src/client/cli';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { taskWorkflowId } from '../../src/workflows/execution';
import type { RunEvent } from '../../src/workflows/messages';
import { cli } from '../support/cli';
import { decision, decisionPhaseOf, isAlternativesRequest, scriptDecisions } from '../support/decisions';
import { FAST, uniqueId, until, type Harness } from '../support/harness';
import { stalledParserVerdict, TRIGGER } from '../support/pacemaker-triggers';
import { plannedTask, scriptScenario } from '../support/scenario';
import { harnessForCli } from '../support/suite-hooks';

let h: Harness;
harnessForCli((x) => (h = x));

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const CLARIFY = decision({
  confidence: 0.9,
  type: 'clarification_request',
  issue: 'format unspecified',
  questions: ['Which format?'],
  assumptions: ['JSON'],
});

/** One stalling task (its judge misses the same thing until `unstuck`), after a coarse first plan the LLM asks to decompose again. */
function scriptRun(): { unstuck: () => void } {
  let unstuck = false;
  const t = TRIGGER.no_progress;
  h.fake.reset();
  scriptScenario(h.fake, {
    workerDelayMs: 300,
    tasks: [
      { id: 's', title: 'make the parser work', profile: t.profile, files: { 'stall.txt': 'same thing again' } },
      { id: 'w', title: 'wire the parser in', dependencies: ['s'], files: { 'wired.txt': 'ok' } },
      { id: 'v', title: 'document the parser', dependencies: ['w'], files: { 'PARSER.md': '# parser' } },
    ],
    judge: () => (unstuck ? { success: true, reason: 'the parser works', missingRequirements: [] } : stalledParserVerdict(t.confidence)),
  });
  h.fake.script('task_decomposition', { json: { tasks: [plannedTask({ id: 'coarse', title: 'do everything at once' })] } });
  scriptDecisions(h.fake, {
    goal_understanding: [CLARIFY],
    task_decomposition: [decision({ confidence: 0.85, type: 'task_redecomposition', issue: 'one task is too coarse' })],
  });
  return { unstuck: () => (unstuck = true) };
}

async function historyOf(workflowId: string): Promise<HistoryEvent[]> {
  return (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/** The workflow ids of the children a history started, in order. */
const childStarts = (events: HistoryEvent[]) =>
  events.map((e) => e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId).filter((x): x is string => !!x);

/** How many activities of `type` completed in a history. */
function activitiesCompleted(events: HistoryEvent[], type: string): number {
  const scheduled = new Map(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => [Number(e.eventId), e.activityTaskScheduledEventAttributes!.activityType?.name]),
  );
  return events.filter((e) => scheduled.get(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1)) === type).length;
}

describe('replanner watch (V2)', () => {
  it('V2 watch --json emits every phase entry, decision, task transition, question and consultation exactly once, in order; worker tool calls while the task runs', async () => {
    const stall = scriptRun();
    const runId = uniqueId('watch');
    const wfId = runWorkflowId(runId);
    const workspace = h.workspace();
    await h.client.workflow.start(RunWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: wfId,
      args: [{ runId, instruction: 'make the parser work', workspace, options: FAST, config: { pacemaker: TRIGGER.no_progress.pacemaker } }],
    });

    // Each line with the wall-clock time it was printed.
    const lines: { at: number; v: Record<string, unknown> }[] = [];
    let pending = '';
    let err = '';
    const watching = main(
      ['watch', runId, '--json'],
      {
        write: (s: string) => {
          pending += s;
          for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
            lines.push({ at: Date.now(), v: JSON.parse(pending.slice(0, i)) as Record<string, unknown> });
            pending = pending.slice(i + 1);
          }
        },
      },
      { write: (s: string) => (err += s) },
      new PassThrough(),
    );
    const seen = (p: (v: Record<string, unknown>) => boolean) => async () => (lines.some((l) => p(l.v)) ? true : undefined);
    await until(
      'the question in the stream',
      seen((v) => v.kind === 'question'),
      60_000,
    );
    expect((await cli('answer', runId, 'q1', 'CSV please')).code).toBe(0);
    await until(
      'the consultation in the stream',
      seen((v) => v.kind === 'consultation'),
      90_000,
    );
    stall.unstuck();
    expect((await cli('consult', runId, 's', 'guidance', 'write the parser in lib/parser.ts')).code).toBe(0);
    expect(await watching).toBe(0);
    expect(err).toBe('');

    const events = lines.map((l) => l.v).filter((v): v is RunEvent & Record<string, unknown> => typeof v.seq === 'number');
    // Numbered 1, 2, … with no gap and no repeat: nothing dropped, nothing twice.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(lines.some((l) => l.v.kind === 'dropped')).toBe(false);
    expect(lines.at(-1)?.v).toMatchObject({ kind: 'final', status: { status: 'DONE' } });
    const of = <K extends RunEvent['kind']>(kind: K) => events.filter((e): e is Extract<RunEvent, { kind: K }> & { seq: number } => e.kind === kind);

    // Phase entries: exactly the phase children the run started, in the order it started them.
    const run = await historyOf(wfId);
    // The run's phases (its workspace lock is a child too, since the run is the root).
    const phaseChildren = childStarts(run)
      .filter((id) => id.startsWith(`${wfId}.`))
      .map((id) => id.slice(wfId.length + 1));
    expect(of('phase').map((e) => `${e.phase}-${e.n}`)).toEqual(phaseChildren);
    expect(phaseChildren).toEqual([
      'goal_understanding-1',
      'goal_understanding-2',
      'task_decomposition-1',
      'task_decomposition-2',
      'action_sequence-1',
      'execution-1',
      'reflection-1',
    ]);

    // Decisions: one per replan_decision answer the LLM server gave, in the order it gave them,
    // and one per decideReplan activity completed in the run's and its execution phase's histories.
    const executionId = `${wfId}.execution-1`;
    const execution = await historyOf(executionId);
    const asked = h.fake.successfulFor('replan_decision').filter((r) => !isAlternativesRequest(r));
    const decisions = of('decision');
    expect(decisions.map((d) => d.phase)).toEqual(asked.map((r) => decisionPhaseOf(r)));
    expect(decisions.length).toBe(activitiesCompleted(run, 'decideReplan') + activitiesCompleted(execution, 'decideReplan'));
    // Every decision in execution names its task; the re-decomposition is there with its type.
    const inExecution = decisions.filter((d) => d.phase === 'execution');
    expect(inExecution.map((d) => d.taskId)).toEqual(['s', 'w', 'v']);
    // Each decision has one record id: its own, or (told while the phase ran) its decision_result's.
    const withId = decisions.map((d) => d.replanId).filter(Boolean);
    const results = of('decision_result').filter((r) => !withId.includes(r.replanId));
    const ids = [...withId, ...results.map((r) => r.replanId)];
    expect(new Set(ids).size).toBe(decisions.length);
    expect(ids).toHaveLength(decisions.length);
    expect(decisions.find((d) => d.replanType === 'task_redecomposition')).toMatchObject({
      phase: 'task_decomposition',
      outcome: 'replan',
      noop: false,
    });
    // Each decision comes after the entry of the phase it was about and before the next phase's.
    for (const d of decisions) {
      const entered = of('phase')
        .filter((p) => p.seq < d.seq)
        .at(-1);
      expect(entered?.phase).toBe(d.phase);
    }

    // Task transitions: one RUNNING and one DONE per task workflow the execution phase started and completed.
    const taskChildren = childStarts(execution);
    expect(taskChildren).toEqual(['s', 'w', 'v'].map((id) => taskWorkflowId(wfId, id)));
    const completedTasks = execution.filter((e) => e.childWorkflowExecutionCompletedEventAttributes).length;
    expect(completedTasks).toBe(3);
    const execEntry = of('phase').find((p) => p.phase === 'execution')!;
    const reflectionEntry = of('phase').find((p) => p.phase === 'reflection')!;
    for (const id of ['s', 'w', 'v']) {
      const t = of('task').filter((e) => e.taskId === id);
      expect(t.map((e) => e.state)).toEqual(['READY', 'RUNNING', 'DONE']);
      expect(t[1]!.seq).toBeGreaterThan(execEntry.seq);
      expect(t[2]!.seq).toBeLessThan(reflectionEntry.seq);
    }
    const s = of('task').filter((e) => e.taskId === 's');
    const [, running, done] = s;
    // The decision about s is told while the phase still runs (before v, two tasks later, ends), and
    // after the LLM answered it; its record follows when the phase ended.
    const aboutS = inExecution[0]!;
    const vDone = of('task').find((e) => e.taskId === 'v' && e.state === 'DONE')!;
    expect(aboutS.seq).toBeGreaterThan(done!.seq);
    expect(aboutS.seq).toBeLessThan(vDone.seq);
    expect(aboutS.replanId).toBeUndefined();
    expect(of('decision_result').find((r) => r.taskId === 's')).toMatchObject({ outcome: 'none', result: 'skipped' });

    // The question: once, with the LLM's text, then answered once with what was sent.
    expect(
      h.fake.successfulFor('replan_decision').filter((r) => r.text.includes('completed the goal understanding phase')).length,
    ).toBeGreaterThanOrEqual(1);
    expect(of('question')).toEqual([
      expect.objectContaining({ questionId: 'q1', questionKind: 'clarification', text: expect.stringContaining('Which format?') }),
    ]);
    expect(of('question_closed')).toEqual([expect.objectContaining({ questionId: 'q1', status: 'answered', answer: 'CSV please' })]);

    // The consultation: opened and closed once, as the task told the run (two taskConsultation signals in its history).
    const task = await historyOf(taskWorkflowId(wfId, 's'));
    const told = task.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'taskConsultation').length;
    expect(of('consultation')).toEqual([expect.objectContaining({ consultationId: 's-c1', taskId: 's', consultationKind: 'no_progress' })]);
    expect(of('consultation_closed').map((e) => e.consultationId)).toEqual(['s-c1']);
    expect(told).toBe(2);
    const opened = of('consultation')[0]!;
    expect(opened.seq).toBeGreaterThan(running!.seq);
    expect(opened.seq).toBeLessThan(done!.seq);
    expect(of('run_end')).toEqual([expect.objectContaining({ status: 'DONE' })]);

    // The worker's tool calls: printed while the task ran (before its DONE event, and before its workflow closed).
    const steps = lines.filter((l) => l.v.kind === 'worker_step' && l.v.taskId === 's');
    expect(steps.length).toBeGreaterThan(0);
    expect(steps[0]!.v.actions).toEqual([expect.stringMatching(/^write_file\(.*stall\.txt/)]);
    const doneLine = lines.findIndex((l) => l.v.seq === done!.seq);
    expect(lines.indexOf(steps[0]!)).toBeLessThan(doneLine);
    const closed = (await h.client.workflow.getHandle(taskWorkflowId(wfId, 's')).describe()).closeTime!.getTime();
    expect(steps[0]!.at).toBeLessThan(closed);
    // Each step once.
    const keys = steps.map((l) => `${String(l.v.iteration)}.${String(l.v.step)}`);
    expect(new Set(keys).size).toBe(keys.length);

    // watch --verbose (human) prints each decision once: one told while the phase ran (s's, above)
    // is not printed again when its record comes; every decision the LLM was asked has one line.
    const verbose = await cli('watch', runId, '--verbose');
    expect(verbose.code).toBe(0);
    // (A result line, "decision 1: plan changed: … · done", follows a decision whose result changed.)
    const decisionLines = verbose.out.split('\n').filter((l) => l.startsWith('  decision ') && !/^ {2}decision \d+(?: \(task [^)]+\))?: /.test(l));
    for (const id of ['s', 'w', 'v']) expect(decisionLines.filter((l) => l.includes(`(task ${id})`))).toHaveLength(1);
    expect(decisionLines).toHaveLength(decisions.length);
  });

  it('V2 watch (human) prints the same stream: phases, the task with how long it took, decisions naming their task; no-op decisions only with --verbose', async () => {
    h.fake.reset();
    scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
    const runId = uniqueId('watch');
    await h.client.workflow.start(RunWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: runWorkflowId(runId),
      args: [{ runId, instruction: 'write one file', workspace: h.workspace(), options: FAST }],
    });
    const quiet = await cli('watch', runId);
    expect(quiet.code).toBe(0);
    const order = [
      'phase: Goal',
      'phase: Tasks',
      'phase: Steps',
      'phase: Execution',
      '[~] one RUNNING',
      '[x] one DONE',
      'phase: Reflection',
      'status: DONE',
      `Run ${runId}: DONE`,
    ];
    const at = order.map((x) => quiet.out.indexOf(x));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(quiet.out).toMatch(/\[x\] one DONE — .* \(\d+s\)/);
    expect(quiet.out.split('\n').filter((l) => l.startsWith('  decision') && l.includes('plan kept'))).toEqual([]);
    // After the run ended, watch replays the whole log; --verbose adds the decisions that changed nothing, naming the task.
    const verbose = await cli('watch', runId, '--verbose');
    expect(verbose.code).toBe(0);
    expect(verbose.out).toMatch(/decision \d+ · Execution \(task one\) · plan kept · confidence 0\.90/);
    expect(verbose.out).not.toMatch(/\bR\d\.\d/);
  });

  it('V2 watch --help documents --verbose, --json lines and the exit codes', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('npx replanner watch <runId> [--ask] [--verbose] [--json]');
    expect(r.out).toContain('--verbose, -v');
    expect(r.out).toMatch(/watch exits 0 when the run ended DONE, 1 when it ended otherwise, 3 when/);
  });
});
