// R1 / R3 / C3 / S3: the refinement loop's record and its choice of plan after a re-plan
// (src/domain/refinement/record.ts), and the task graph sent back to the planner (src/domain/graph.ts).
import { taskGraphVerdict } from '../../../src/domain/graph';
import { DEFAULT_REFINEMENT_CONFIG } from '../../../src/domain/refinement/config';
import type { RefinementDecision } from '../../../src/domain/refinement/decision';
import { acceptedSuggestions, judgedAttempt, refinedPlan } from '../../../src/domain/refinement/record';
import type { TaskSpec } from '../../../src/domain/types';

const bare = { description: '', acceptanceCriteria: [], scopePaths: [], profile: 'UNKNOWN' as const };
const spec = (id: string, dependencies: string[] = []): TaskSpec => ({ ...bare, id, title: id, dependencies });
const replan: RefinementDecision = { action: 'replan', kind: 'quality', rule: 4, reason: 'quality not OK (score 40, 9 issue(s)) → replan' };

describe('R1 / C3 the record of a judged plan', () => {
  it('R1 keeps the first 8 issues, each clipped, the score and the decision', () => {
    const issues = Array.from({ length: 9 }, (_, i) => `${i}${'x'.repeat(310)}`);
    const r = judgedAttempt(2, { result: { isAcceptable: false, issues, suggestions: [], overallScore: 40 }, judgeFailed: false }, replan);
    expect(r).toEqual({
      attempt: 2,
      acceptable: false,
      score: 40,
      issues: issues.slice(0, 8).map((i) => `${i.slice(0, 299)}…`),
      decision: 'replan',
      reason: replan.reason,
    });
  });

  it('C3 a judge that failed is marked; no score, no score field', () => {
    const r = judgedAttempt(1, { result: { isAcceptable: false, issues: ['Quality judge failed: x'], suggestions: [] }, judgeFailed: true }, replan);
    expect(r).toEqual({
      attempt: 1,
      acceptable: false,
      issues: ['Quality judge failed: x'],
      decision: 'replan',
      reason: replan.reason,
      judgeFailed: true,
    });
  });

  it.each([
    ['none', undefined, []],
    ['at most 10, clipped', Array.from({ length: 12 }, () => 's'.repeat(310)), Array.from({ length: 10 }, () => `${'s'.repeat(299)}…`)],
  ])('R1 the suggestions recorded with an accepted plan: %s', (_, suggestions, recorded) => {
    expect(acceptedSuggestions({ action: 'accept', rule: 6, reason: '', ...(suggestions ? { suggestions } : {}) })).toEqual(recorded);
  });
});

describe('R3 / S3 the plan after a re-plan', () => {
  const previous = [spec('a'), spec('b', ['a'])];
  const config = DEFAULT_REFINEMENT_CONFIG;

  it('R3 a valid new plan is taken', () => {
    const next = [spec('a'), spec('b', ['a']), spec('c', ['b'])];
    expect(refinedPlan({ previous, replanned: { tasks: next }, maxTasks: 30, config })).toEqual({
      tasks: next,
      structure: 'new_plan: new plan is structurally valid',
    });
  });

  it('R3 a re-plan that failed keeps the previous plan, saying why (clipped)', () => {
    const r = refinedPlan({ previous, replanned: { error: `LLM down ${'!'.repeat(300)}` }, maxTasks: 30, config });
    expect(r.tasks).toBe(previous);
    expect(r.structure).toBe(`re-plan failed (LLM down ${'!'.repeat(190)}…); previous plan kept`);
    expect(r.sizeNote).toBeUndefined();
  });

  it('S3 a re-plan over planning.maxTasks keeps the previous plan, and the next re-plan is told the limit', () => {
    const r = refinedPlan({ previous, replanned: { tasks: [spec('a'), spec('b'), spec('c')] }, maxTasks: 2, config });
    expect(r).toEqual({
      tasks: previous,
      structure: 're-plan refused (the plan has 3 tasks; planning.maxTasks is 2); previous plan kept',
      sizeNote:
        'YOUR PREVIOUS PLAN WAS REFUSED: the plan has 3 tasks; planning.maxTasks is 2. Return at most 2 tasks in total: merge small steps into larger tasks.',
    });
  });

  it('R3 a broken task of the new plan goes back to its previous version', () => {
    const r = refinedPlan({ previous, replanned: { tasks: [spec('a'), spec('b', ['zz'])] }, maxTasks: 30, config });
    expect(r.tasks).toEqual(previous);
    expect(r.structure).toMatch(/^individual_fallback: /);
  });
});

describe('the task graph sent back to the planner', () => {
  it.each([
    ['a valid graph runs', [spec('a'), spec('b', ['a'])], 0, { kind: 'valid' }],
    ['an invalid one goes back', [spec('a', ['b']), spec('b', ['a'])], 1, { kind: 'ask_again', problems: ['dependency cycle: a -> b -> a'] }],
    [
      'past its repairs it is refused, counting every invalid graph',
      [spec('a', ['zz'])],
      2,
      { kind: 'refuse', problems: ['task "a" depends on "zz", which does not exist'], invalidGraphs: 3 },
    ],
  ] as const)('%s', (_, tasks, repairs, verdict) => {
    expect(taskGraphVerdict([...tasks], repairs, 2)).toEqual(verdict);
  });
});
