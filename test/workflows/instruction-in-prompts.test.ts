// C2 / C5: every replanning prompt (phase replan decisions, task re-decomposition) carries the user's
// original instruction and the Coverage criterion, whatever the instruction looks like: Japanese,
// or so long that it must be cut to a token budget (head and tail kept around a marker).
import type { RecordedRequest } from '../support/fake-openai';
import { lastUserMessage } from '../support/fake-openai';
import { FAST, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { nth } from '../support/lists';
import { scriptScenario, taskIdOf, type Scenario, fileTask } from '../support/scenario';
import { decision, decisionPhaseOf, scriptDecisions } from '../support/decisions';

let h: Harness;
harnessForSuite((started) => (h = started));

/** A run with one phase replan (goal revision) and one J6 task re-decomposition. */
const SCENARIO: Scenario = {
  tasks: [fileTask('a'), fileTask('b', ['a'])],
  judge: (id, n) =>
    id === 'a' && n === 1
      ? { success: false, shouldContinue: false, shouldReplan: true, reason: 'scope too large', missingRequirements: ['x'] }
      : { success: true, shouldContinue: false, shouldReplan: false, reason: `${id} is done`, missingRequirements: [] },
  replacements: {
    a: [
      { id: 'a1', title: 'write a part 1', files: { 'a1.txt': '1' } },
      { id: 'a2', title: 'write a part 2', dependencies: ['a1'], files: { 'a2.txt': '2' } },
      { id: 'a3', title: 'write a part 3', files: { 'a3.txt': '3' } },
    ],
  },
};

async function runWith(instruction: string) {
  scriptScenario(h.fake, SCENARIO);
  scriptDecisions(h.fake, { goal_understanding: [decision({ confidence: 0.9, type: 'goal_revision', issue: 'objective unclear' })] });
  const { handle } = await startRun(h, { instruction, workspace: h.workspace(), options: FAST }, 'instr');
  const result = await handle.result();
  expect(result.status).toBe('DONE');
  // The paths we claim to cover were all taken: a phase replan and a task re-decomposition.
  expect(h.fake.successfulFor('goal_understanding')).toHaveLength(2);
  expect(result.tasks.find((t) => t.id === 'a')?.state).toBe('REPLACED_BY_REPLAN');
  const replanPrompts = [...h.fake.requestsFor('replan_decision'), ...h.fake.requestsFor('task_replan')];
  const phases = new Set(h.fake.requestsFor('replan_decision').map(decisionPhaseOf));
  expect([...phases].sort()).toEqual(['action_sequence', 'execution', 'goal_understanding', 'reflection', 'task_decomposition']);
  expect(h.fake.requestsFor('task_replan')).toHaveLength(1);
  expect(taskIdOf(nth(h.fake.requestsFor('task_replan'), 0))).toBe('a');
  return replanPrompts;
}

const describeReq = (r: RecordedRequest) => `${r.purpose} #${r.seq} (${decisionPhaseOf(r) ?? taskIdOf(r) ?? '?'})`;

describe('the instruction in replanning prompts (C2, C5)', () => {
  it('C2 C5 every replanning prompt contains the original instruction: a Japanese instruction', async () => {
    const instruction = 'ユーザー認証を実装し、orchestrate.tsを更新してそれを使うようにしてください。テストも追加すること。';
    const prompts = await runWith(instruction);
    expect(prompts.length).toBeGreaterThan(8);
    for (const r of prompts) {
      const user = lastUserMessage(r);
      expect({ req: describeReq(r), has: user.includes(instruction) }).toEqual({ req: describeReq(r), has: true });
      expect({ req: describeReq(r), has: user.includes('Coverage') }).toEqual({ req: describeReq(r), has: true });
      expect(user).not.toContain('[truncated');
    }
  });

  it('C2 C5 every replanning prompt contains the original instruction: a very long one, cut to its budget', async () => {
    const lines = ['HEAD-MARKER: the requirements of this instruction follow.'];
    for (let i = 1; lines.join('\n').length < 40_000; i++) {
      lines.push(`Requirement ${String(i).padStart(4, '0')}: the system must handle case number ${i} correctly and log it.`);
    }
    lines.push('Finally, everything must be tested. TAIL-MARKER');
    const instruction = lines.join('\n');
    expect(instruction.length).toBeGreaterThan(40_000);

    const prompts = await runWith(instruction);
    expect(prompts.length).toBeGreaterThan(8);
    for (const r of prompts) {
      const user = lastUserMessage(r);
      const req = describeReq(r);
      expect({ req, head: user.includes('HEAD-MARKER'), tail: user.includes('TAIL-MARKER'), cut: user.includes('[truncated') }).toEqual({
        req,
        head: true,
        tail: true,
        cut: true,
      });
      expect({ req, coverage: user.includes('Coverage') }).toEqual({ req, coverage: true });
      expect(r.text).not.toContain(instruction);
      // Neither the middle of the instruction leaks in: it was really cut, not repeated elsewhere.
      expect(r.text).not.toContain('Requirement 0200:');
      expect({ req, length: user.length < 20_000 }).toEqual({ req, length: true });
    }
  });
});
