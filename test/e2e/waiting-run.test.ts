// V1 / X14 / O1 (issue 28): a run waiting for a person's answer, as its users meet it. A run
// started by `replanner run` is a root workflow; while its question waits, the ReplannerStatus
// search attribute, `replanner list` and the Web UI's current details say so and say how to answer.
// It is answered through the `answer` signal sent as the Web UI's "Send a Signal" sends it (the
// typed text as one json/plain payload, over the raw service API); a second answer from the CLI is
// refused and changes nothing. Paused, it shows why and how to resume in the same three places.
import type { WorkflowHandle } from '@temporalio/client';
import { cli } from '../support/cli';
import { listLineOf } from '../support/cli-runs';
import type { DecisionsView } from '../../src/workflows/messages';
import { STATUS_KEY } from '../../src/workflows/search-attributes';
import { uniqueId, until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { scriptOneQuestionRun } from '../support/scenario';

let h: Harness;
harnessForCli((x) => (h = x));

/** The Web UI's "Send a Signal": the text a person typed, as one json/plain payload. */
async function sendSignalAsWebUi(workflowId: string, name: string, typed?: string): Promise<void> {
  await h.client.workflowService.signalWorkflowExecution({
    namespace: 'default',
    workflowExecution: { workflowId },
    signalName: name,
    identity: 'web-ui',
    input: typed === undefined ? {} : { payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(typed) }] },
  });
}

/** The Web UI's current details of the run (answered by the worker through the built-in metadata query). */
async function currentDetails(handle: WorkflowHandle): Promise<string> {
  const m = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return m.currentDetails ?? '';
}

const searchStatus = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(STATUS_KEY);

describe('a run waiting for an answer, visible everywhere (V1, X14, O1)', () => {
  it('V1 X14 O1 WAITING in the search attribute, list and current details; answered by the Web UI signal; a second answer refused; paused shows how to resume; ends DONE', async () => {
    scriptOneQuestionRun(h.fake, 'Which format should the report use?', { confidence: 0.9 });
    const id = uniqueId('waiting');
    const started = await cli('run', 'write the report', '--workspace', h.workspace(), '--id', id);
    expect([started.code, started.err]).toEqual([0, '']);
    const handle = h.client.workflow.getHandle(`run-${id}`);

    // The run is the root workflow: no parent.
    expect((await handle.describe()).parentExecution).toBeUndefined();

    // 1. Waiting: the search attribute, `list` (and `list --waiting`) and the current details.
    await until('ReplannerStatus=WAITING', async () => ((await searchStatus(handle)) === 'WAITING' ? true : undefined), 60_000);
    const listed = await until('list to show WAITING', async () => {
      const l = await listLineOf(id);
      return l.includes('\tWAITING\t') ? l : undefined;
    });
    expect(listed).toContain(`↳ question q1 (clarification): Which format should the report use? — npx replanner answer ${id} q1 "<your answer>"`);
    expect(await listLineOf(id, '--waiting')).toContain(`${id}\tWAITING`);
    const waiting = await until('the current details to lead with the question', async () => {
      const d = await currentDetails(handle);
      return d.startsWith('**Waiting for your answer**') ? d : undefined;
    });
    for (const line of [
      '**Waiting for your answer**: question q1 (clarification)',
      '> Which format should the report use?',
      '**More Actions → Send a Signal** (top right of this page), signal name `answer`, data `{"questionId":"q1","answer":"<your answer>"}`, encoding json/plain',
      `\`npx replanner answer ${id} q1 "<your answer>"\``,
      `\`npx replanner temporal workflow update execute --workflow-id run-${id} --name answerClarification --input '{"questionId":"q1","answer":"<your answer>"}'\``,
      '**Status**: WAITING',
    ])
      expect(waiting).toContain(line);
    console.log(`the waiting run's current details:\n${waiting.slice(0, 2000)}`);

    // 2. Paused while it waits: the details name the pause, its reason and how to resume.
    const paused = await cli('pause', id, 'checking', 'the', 'sources');
    expect(paused.code).toBe(0);
    await until('the pause in the details', async () => ((await currentDetails(handle)).includes('**Paused**: paused by you') ? true : undefined));

    // 3. Hostile or malformed input through the UI's signal changes nothing.
    await sendSignalAsWebUi(handle.workflowId, 'answer', '{"questionId":"q9","answer":"CSV"}');
    await sendSignalAsWebUi(handle.workflowId, 'answer', 'JSON please');
    await sendSignalAsWebUi(handle.workflowId, 'answer', '{"questionId":"q1","answer":"CSV","extra":1}');
    expect(((await handle.query<DecisionsView>('decisions')).questions[0] as { status: string }).status).toBe('pending');

    // 4. The answer, typed into the Web UI's "Send a Signal" as its page says.
    await sendSignalAsWebUi(handle.workflowId, 'answer', '{"questionId":"q1","answer":"JSON"}');
    const answered = await until('q1 answered', async () => {
      const d = await handle.query<DecisionsView>('decisions');
      return d.questions.find((q) => q.id === 'q1' && q.status === 'answered') ? d : undefined;
    });
    expect(answered.questions?.[0]).toMatchObject({ id: 'q1', status: 'answered', answer: 'JSON' });

    // 5. A second answer from elsewhere is refused with the reason, and loses nothing.
    const second = await cli('answer', id, 'q1', 'CSV');
    expect(second.code).toBe(2);
    expect(second.err).toContain('it was already answered: "JSON"');
    expect((await handle.query<DecisionsView>('decisions')).questions[0]).toMatchObject({ status: 'answered', answer: 'JSON' });

    // 6. Answered but still paused: PAUSED, with its reason and how to resume, in the same three places.
    await until('ReplannerStatus=PAUSED', async () => ((await searchStatus(handle)) === 'PAUSED' ? true : undefined));
    const pausedLine = await until('list to show PAUSED', async () => {
      const l = await listLineOf(id);
      return l.includes('\tPAUSED\t') ? l : undefined;
    });
    expect(pausedLine).toMatch(
      new RegExp(`↳ paused by you since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC \\(checking the sources\\) — npx replanner resume ${id}$`),
    );
    const pausedDetails = await until('the details to lead with the pause', async () => {
      const d = await currentDetails(handle);
      return d.startsWith('**Paused**') ? d : undefined;
    });
    expect(pausedDetails).toContain('(checking the sources)');
    expect(pausedDetails).toContain('signal name `resumeSignal`, no data');
    expect(pausedDetails).toContain(`\`npx replanner resume ${id}\``);
    expect(pausedDetails).toContain(`\`npx replanner temporal workflow update execute --workflow-id run-${id} --name resume\``);
    console.log(`the paused run's current details:\n${pausedDetails.slice(0, 1500)}`);

    // 7. Resumed from the Web UI as its page says; the run ends DONE with the answer it was given.
    await sendSignalAsWebUi(handle.workflowId, 'resumeSignal');
    const result = await handle.result();
    expect(result.status).toBe('DONE');
    expect(await searchStatus(handle)).toBe('DONE');
    const goal = h.fake.successfulFor('goal_understanding');
    expect(goal.at(-1)?.text).toContain('JSON');
    expect(goal.some((r) => r.text.includes('CSV'))).toBe(false);
    expect((await listLineOf(id)).includes('↳')).toBe(false);
  }, 240_000);
});
