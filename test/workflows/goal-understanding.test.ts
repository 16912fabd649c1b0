// Issue 2: the first real slice and the LLM gateway's failure handling, on the real dev server.
import { GoalUnderstandingWorkflow } from '../../src/workflows/phases';
import { DEFAULT_RUN_OPTIONS } from '../../src/workflows/options';
import { FAST, failureOf, uniqueId, type Harness } from '../support/harness';
import { harnessForSuite } from '../support/suite-hooks';
import { nth } from '../support/lists';

const GOAL = {
  main_objective: 'Add input validation to the signup API',
  success_criteria: ['invalid emails are rejected with 400', 'tests cover the validation'],
  constraints: ['keep the public API'],
  ambiguities: ['password rules are not stated'],
  assumptions: ['passwords need 8+ characters'],
  task_profile: 'MULTI_STEP_TASK',
};

let h: Harness;
harnessForSuite((started) => (h = started));

function start(instruction = 'add input validation to the signup API and test it') {
  const workspace = h.workspace({ 'README.md': '# signup service\n' });
  return h.client.workflow.start(GoalUnderstandingWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: uniqueId('goal'),
    args: [{ run: { runId: uniqueId('r'), workspace, instruction }, options: { ...DEFAULT_RUN_OPTIONS, ...FAST } }],
  });
}

describe('GoalUnderstandingWorkflow through the LLM gateway', () => {
  it('B1 returns the validated goal with token usage, the prompt carries the instruction and purpose header', async () => {
    h.fake.script('goal_understanding', { json: GOAL });
    const result = await (await start()).result();
    expect(result.value.main_objective).toBe(GOAL.main_objective);
    expect(result.value.task_profile).toBe('MULTI_STEP_TASK');
    expect(result.usage.totalTokens).toBeGreaterThan(0);
    const req = nth(h.fake.requestsFor('goal_understanding'), 0, 'goal_understanding request');
    expect(req.text).toContain('add input validation to the signup API and test it');
    expect(req.text).toContain('README.md');
    expect(req.body.response_format.type).toBe('json_schema');
    expect(req.body.response_format.json_schema.name).toBe('goal_understanding');
  });

  it('429 with retry-after then success: retried, one successful call recorded', async () => {
    h.fake.script('goal_understanding', { status: 429, headers: { 'retry-after': '1' } }, { json: GOAL });
    const result = await (await start()).result();
    expect(result.value.main_objective).toBe(GOAL.main_objective);
    expect(h.fake.requestsFor('goal_understanding').map((r) => r.status)).toEqual([429, 200]);
    expect(h.fake.successfulFor('goal_understanding')).toHaveLength(1);
    // retry-after (1 s) is honoured as the next retry delay, not the 100 ms initial interval.
    const requests = h.fake.requestsFor('goal_understanding');
    expect(nth(requests, 1).startedAt - nth(requests, 0).startedAt).toBeGreaterThanOrEqual(900);
  });

  it('401 fails fast with a clear error and no retries', async () => {
    h.fake.always('goal_understanding', { status: 401, message: 'Incorrect API key provided' });
    const msg = await failureOf(await start());
    expect(msg).toContain('OPENAI_API_KEY rejected by');
    expect(msg).toContain('goal_understanding failed');
    expect(h.fake.requestsFor('goal_understanding')).toHaveLength(1);
  });

  it('schema-violating JSON is retried and, after the last attempt, the workflow fails with a clear message', async () => {
    h.fake.always('goal_understanding', { json: { main_objective: 42, success_criteria: [] } });
    const msg = await failureOf(await start());
    expect(msg).toContain('does not match the goal_understanding schema');
    expect(msg).toContain('main_objective');
    expect(h.fake.requestsFor('goal_understanding')).toHaveLength(FAST.llmMaxAttempts!);
  });

  it('malformed JSON then a valid reply: the activity retries and succeeds', async () => {
    h.fake.script('goal_understanding', { content: '{"main_objective": "oops' }, { content: '```json\n' + JSON.stringify(GOAL) + '\n```' });
    const result = await (await start()).result();
    expect(result.value.success_criteria).toHaveLength(2);
    expect(h.fake.successfulFor('goal_understanding')).toHaveLength(2);
  });

  it('500 then success is retried', async () => {
    h.fake.script('goal_understanding', { status: 500 }, { json: GOAL });
    const result = await (await start()).result();
    expect(result.value.main_objective).toBe(GOAL.main_objective);
    expect(h.fake.requestsFor('goal_understanding')).toHaveLength(2);
  });
});
