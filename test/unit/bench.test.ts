// Issue 11: the bench's pure parts (the critical-path bound from the request log, the graphs) and
// the fake LLM's fixed latency on every purpose, which the bench's figures rest on.
import OpenAI from 'openai';
import { FakeOpenAI, type RecordedRequest } from '../support/fake-openai';
import { scriptScenario } from '../support/scenario';
import { chainGraph, criticalPathCalls, independent, median, requestTaskId } from '../../bench/run';

function req(purpose: string, text: string): RecordedRequest {
  return { seq: 0, purpose, body: {}, headers: {}, startedAt: 0, messages: [{ role: 'user', content: text }], text };
}
const taskCalls = (id: string) => [
  req('worker_step', `TASK ${id}: do it`),
  req('worker_step', `TASK ${id}: do it`),
  req('judge', `TASK ${id}: judge it`),
  req('replan_decision', `You have executed an action.\n**Executed Action:**\ntask ${id}: title\n**Execution Result:**\nDONE`),
];
const phaseCalls = ['goal_understanding', 'task_decomposition', 'quality_judge', 'action_sequence', 'reflection'].flatMap((p) => [
  req(p, 'phase'),
  ...(p === 'quality_judge' ? [] : [req('replan_decision', `phase ${p}`)]),
]);

describe('bench: the critical-path bound', () => {
  it('X1 counts every phase call and decision plus the heaviest dependency chain of task calls', () => {
    const plan = chainGraph(4, 2);
    expect(plan).toHaveLength(9);
    expect(plan.find((t) => t.id === 'join')?.dependencies).toEqual(['c0s1', 'c1s1', 'c2s1', 'c3s1']);
    const requests = [...phaseCalls, ...plan.flatMap((t) => taskCalls(t.id))];
    // 9 phase-level calls + a chain of 3 tasks (c_s0 → c_s1 → join) × 4 calls each.
    expect(criticalPathCalls(requests, plan).calls).toBe(9 + 3 * 4);
  });

  it('X1 a task with more calls makes its chain the critical one; independent tasks count once', () => {
    const plan = independent(3);
    const requests = [...phaseCalls, ...plan.flatMap((t) => taskCalls(t.id)), req('worker_step', 'TASK t2: again')];
    expect(criticalPathCalls(requests, plan).calls).toBe(9 + 5);
  });

  it('X1 execution decisions are tied to their task; phase decisions are not', () => {
    expect(requestTaskId(taskCalls('c1s0')[3]!)).toBe('c1s0');
    expect(requestTaskId(req('replan_decision', 'phase goal_understanding'))).toBeUndefined();
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('FakeOpenAI latencyMs', () => {
  let fake: FakeOpenAI;
  beforeEach(async () => {
    fake = await FakeOpenAI.start({ logUnscripted: false });
  });
  afterEach(async () => fake.stop());

  it('answers every purpose after the fixed latency (scenario latencyMs)', async () => {
    scriptScenario(fake, { tasks: independent(1), latencyMs: 150 });
    for (const purpose of ['goal_understanding', 'quality_judge', 'replan_decision', 'reflection']) {
      const c = new OpenAI({ apiKey: 'k', baseURL: fake.baseURL, maxRetries: 0, defaultHeaders: { 'x-replanner-purpose': purpose } });
      const t0 = Date.now();
      await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(145);
    }
    const recorded = fake.requests.map((r) => r.finishedAt! - r.startedAt);
    expect(Math.min(...recorded)).toBeGreaterThanOrEqual(145);
  });

  it('is 0 unless asked: an unscripted latency adds nothing', async () => {
    scriptScenario(fake, { tasks: independent(1) });
    expect(fake.latencyMs).toBe(0);
  });
});
