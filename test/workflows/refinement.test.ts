// Issue 5: plan quality judge and the refinement loop in task_decomposition (R1–R7, C1, C3),
// on the real dev server with the scripted LLM.
import { WorkflowFailedError } from '@temporalio/client';
import { renderStatus } from '../../src/client/render';
import { statusQuery } from '../../src/workflows/messages';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import { lastUserMessage } from '../support/fake-openai';
import { FAST, uniqueId, type Harness } from '../support/harness';
import { harnessForSuite } from '../support/suite-hooks';
import { nth } from '../support/lists';
import { plannedTask, scriptScenario, type ScenarioTask } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started));

const INSTRUCTION = 'write the parser and document it in the README';

function startRun(config: { refinement?: Record<string, unknown> } = {}) {
  const runId = uniqueId('ref');
  return h.client.workflow.start(RunWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: INSTRUCTION, workspace: h.workspace(), options: FAST, config }],
  });
}

const planned = plannedTask;

const PARSER: ScenarioTask = { id: 'parser', title: 'write the parser', files: { 'parser.js': 'module.exports = {}' } };
const TESTS: ScenarioTask = { id: 'tests', title: 'test the parser', dependencies: ['parser'], files: { 'parser.test.js': '// ok' } };
const README: ScenarioTask = { id: 'readme', title: 'document the parser in the README', files: { 'README.md': '# parser' } };

const POOR = {
  isAcceptable: false,
  issues: ['[Coverage] no task documents the parser in the README'],
  suggestions: ['add a task that updates README.md'],
  overallScore: 45,
};

describe('plan quality refinement (R1–R3, C1, C3)', () => {
  it('R1 R2.4 R2.6 C1 a poor first plan is refined once with the judge feedback and accepted; status shows the record', async () => {
    // The refined plan (what `always` answers) has the README task the first plan lacked.
    scriptScenario(h.fake, { tasks: [PARSER, TESTS, README] });
    h.fake.script('task_decomposition', { json: { tasks: [planned(PARSER), planned(TESTS)] } });
    h.fake.script('quality_judge', { json: POOR });

    const handle = await startRun();
    const result = await handle.result();
    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => t.id)).toEqual(['parser', 'tests', 'readme']);

    const decompositions = h.fake.requestsFor('task_decomposition');
    expect(decompositions).toHaveLength(2);
    expect(nth(decompositions, 1).text).toContain('[Coverage] no task documents the parser in the README');
    expect(nth(decompositions, 1).text).toContain('add a task that updates README.md');
    expect(nth(decompositions, 1).text).toContain('PREVIOUS PLAN');

    // C1: the quality prompt opens with the user instruction and has the weighted criteria incl. Coverage.
    const judged = h.fake.requestsFor('quality_judge');
    expect(judged).toHaveLength(2);
    const prompt = lastUserMessage(nth(judged, 0));
    expect(prompt.startsWith('USER INSTRUCTION')).toBe(true);
    expect(prompt).toContain(INSTRUCTION);
    expect(prompt).toContain('CRITICAL (70%)');
    expect(prompt).toContain('**Coverage**');

    const status = await handle.query(statusQuery);
    expect(status.quality).toMatchObject({
      outcome: 'accepted',
      attempts: [
        { attempt: 1, score: 45, acceptable: false, decision: 'replan', structure: expect.stringMatching(/^new_plan/) },
        { attempt: 2, score: 90, acceptable: true, decision: 'accept' },
      ],
    });
    expect(status.quality?.attempts[0]?.reason).toMatch(/^quality not OK/);
    expect(renderStatus(status)).toContain('Plan quality: accepted after 2 judgement(s), scores 45 → 90');
  });

  it.each([
    [
      'R3 a big task-count jump (2 → 6 tasks)',
      {},
      [PARSER, TESTS, { id: 'x1', title: 'x1' }, { id: 'x2', title: 'x2' }, { id: 'x3', title: 'x3' }, { id: 'x4', title: 'x4' }],
    ],
    [
      'R3 a dependency on a missing task (individual fallback off)',
      { enableIndividualFallback: false },
      [
        { id: 'parser', title: 'rewrite the parser' },
        { id: 'tests', title: 'test it', dependencies: ['ghost'] },
      ],
    ],
  ])('%s: the broken refinement is rejected in favour of the previous plan, which is executed', async (_name, refinement, broken) => {
    scriptScenario(h.fake, { tasks: [PARSER, TESTS] });
    h.fake.script('task_decomposition', { json: { tasks: [planned(PARSER), planned(TESTS)] } }, { json: { tasks: broken.map(planned) } });
    h.fake.script('quality_judge', { json: POOR });

    const handle = await startRun({ refinement });
    const result = await handle.result();
    expect(result.status).toBe('DONE');
    expect(result.tasks.map((t) => [t.id, t.title])).toEqual([
      ['parser', 'write the parser'],
      ['tests', 'test the parser'],
    ]);
    expect(h.fake.requestsFor('task_decomposition')).toHaveLength(2);
    const workedOn = new Set(h.fake.requestsFor('worker_step').map((r) => /^TASK (\S+):/m.exec(r.text)?.[1]));
    expect([...workedOn].sort()).toEqual(['parser', 'tests']);
    const status = await handle.query(statusQuery);
    expect(status.quality?.attempts[0]?.structure).toMatch(/^previous_plan: new plan is structurally broken/);
    expect(status.quality?.outcome).toBe('accepted');
  });

  it('C3 a quality judge reply that cannot be parsed rejects the plan by default: the run FAILS clearly', async () => {
    scriptScenario(h.fake, { tasks: [PARSER] });
    h.fake.always('quality_judge', { content: 'not json' });

    const handle = await startRun();
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const status = await handle.query(statusQuery);
    expect(status.status).toBe('FAILED');
    expect(status.error).toContain('the plan was rejected by the quality judge');
    expect(status.error).toContain('Quality judge failed');
    expect(status.error).toContain('fail-closed: plan rejected');
    expect(status.error).toContain('not JSON');
    // Retried as an activity (FAST: 3 attempts), never executed.
    expect(h.fake.requestsFor('quality_judge')).toHaveLength(FAST.llmMaxAttempts!);
    expect(h.fake.requestsFor('worker_step')).toHaveLength(0);
    expect(renderStatus(status)).toContain('Error: ');
  });

  it('C3 with failOpen: true an unparseable quality judge lets the plan through', async () => {
    scriptScenario(h.fake, { tasks: [PARSER] });
    h.fake.always('quality_judge', { content: 'not json' });

    const handle = await startRun({ refinement: { failOpen: true } });
    const result = await handle.result();
    expect(result.status).toBe('DONE');
    const status = await handle.query(statusQuery);
    expect(status.quality).toMatchObject({ outcome: 'accepted', attempts: [{ judgeFailed: true, decision: 'accept' }] });
  });

  it('R2.1 a plan still poor after maxRefinementAttempts re-plans is rejected with the judge issues', async () => {
    scriptScenario(h.fake, { tasks: [PARSER, TESTS], quality: POOR });
    const handle = await startRun({ refinement: { maxRefinementAttempts: 1 } });
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const status = await handle.query(statusQuery);
    expect(status.status).toBe('FAILED');
    expect(status.error).toContain('maximum refinement attempts reached');
    expect(status.error).not.toMatch(/R2\./);
    expect(status.error).toContain('[Coverage] no task documents the parser in the README');
    expect(h.fake.requestsFor('task_decomposition')).toHaveLength(2);
    expect(h.fake.requestsFor('quality_judge')).toHaveLength(2);
  });
});
