// X3 / X9 / X13 / X14: the run's replan transitions (src/domain/run/decisions.ts): a decision
// recorded with the plan it would change, the jump a replan makes, a replan finished or failed, and
// the run going on with assumptions.
import { DEFAULT_CONFIG } from '../../../src/domain/config';
import { NO_REPLAN, type ReplanDecision } from '../../../src/domain/replan/decision';
import { emptyCounters } from '../../../src/domain/replan/limits';
import { evaluateReplanDecision } from '../../../src/domain/replan/policy';
import type { ReplanContext } from '../../../src/domain/replan/prompt-context';
import { continueOnAssumptions, failReplan, finishReplan, recordReplanDecision, replanJump, startReplan } from '../../../src/domain/run/decisions';
import { setDecomposition, setGoal } from '../../../src/domain/run/plan';
import { initialRunState, type RunState } from '../../../src/domain/run/state';
import type { Goal, Phase, TaskSpec } from '../../../src/domain/types';
import { wantedReplan } from '../../support/decisions';

const goal: Goal = {
  main_objective: 'ship it',
  success_criteria: [],
  constraints: [],
  ambiguities: [],
  assumptions: ['Linux'],
  task_profile: 'MULTI_STEP_TASK',
};
const bare = { description: '', acceptanceCriteria: [], dependencies: [], scopePaths: [], profile: 'UNKNOWN' as const };
const spec = (id: string): TaskSpec => ({ ...bare, id, title: id });
const planned = (): RunState =>
  setDecomposition(setGoal(initialRunState({ runId: 'r', instruction: 'do', workspace: '/w' }), goal), [spec('a'), spec('b')]);

const decision = (over: Partial<ReplanDecision> = {}) => wantedReplan('retry', 0.9, 'a test fails', ['test x fails'], over);
const executed: ReplanContext = {
  phase: 'execution',
  executed: { taskId: 'a', title: 'task a', state: 'BLOCKED' },
  progress: { completed: 0, total: 2, errorCount: 1, consecutiveErrors: 1, remaining: [] },
};
const reflected: ReplanContext = {
  phase: 'reflection',
  goal,
  reflection: {
    evaluation_result: 'partial_success',
    achievement_rate: 50,
    issues_identified: [],
    additional_actions: [],
    revision_scope: 'minor',
    summary: '',
  },
  tasks: [],
};
const outcomeOf = (phase: Phase, d: ReplanDecision) =>
  evaluateReplanDecision({ phase, decision: d, counters: emptyCounters(), config: DEFAULT_CONFIG });

describe('X9 a decision enters the log', () => {
  it.each([
    ['a replan after execution keeps the plan before and names its task', 'execution', executed, decision(), true, 'a'],
    ['no replan keeps no plan', 'execution', executed, NO_REPLAN('fine'), false, 'a'],
    ['a replan after reflection names no task', 'reflection', reflected, decision({ replan_type: 'plan_revision' }), true, undefined],
  ] as const)('X9 %s', (_, phase, context, d, keepsPlan, taskId) => {
    const r = recordReplanDecision(planned(), { phase, decision: d, outcome: outcomeOf(phase, d), context, timestamp: '2026-01-01T00:00:00.000Z' });
    expect(r.state.log.records).toEqual([r.record]);
    expect(r.record.task_id).toBe(taskId);
    expect(r.record.plan_before).toEqual(
      keepsPlan ? { goal: 'ship it', tasks: [expect.objectContaining({ id: 'a' }), expect.objectContaining({ id: 'b' })] } : undefined,
    );
  });
});

describe('X3 the jump a replan makes', () => {
  const outcome = { targetPhase: 'execution' as const, type: 'retry' as const, keepsCompletedWork: true };

  it('X3 a retry after an action names its task; the reason is bounded', () => {
    const j = replanJump({ phase: 'execution', outcome, decision: decision({ reasoning: 'x'.repeat(400) }), context: executed, feedback: 'why' });
    expect(j).toEqual({
      target: 'execution',
      type: 'retry',
      keepsCompletedWork: true,
      feedback: 'why',
      reason: `${'x'.repeat(300)} …[truncated 100 chars]`,
      taskId: 'a',
    });
  });

  it.each([
    ['a plan revision brings its additional actions', 'plan_revision', ['add docs'], ['add docs']],
    ['a plan revision without additional actions brings none', 'plan_revision', [], undefined],
    ['another type never brings them', 'partial_replan', ['add docs'], undefined],
  ] as const)('X3 %s', (_, type, actions, expected) => {
    const j = replanJump({
      phase: 'reflection',
      outcome: { targetPhase: 'action_sequence', type, keepsCompletedWork: true },
      decision: decision({ replan_type: type, additional_actions: [...actions] }),
      context: reflected,
      feedback: '',
    });
    expect(j.additionalActions).toEqual(expected);
    expect(j.taskId).toBeUndefined();
  });
});

describe('X9 / X13 the replan under way ends', () => {
  const underWay = (startedMs: number): RunState => {
    const d = decision();
    const r = recordReplanDecision(planned(), {
      phase: 'execution',
      decision: d,
      outcome: outcomeOf('execution', d),
      context: executed,
      timestamp: 't',
    });
    return startReplan(r.state, {
      replanId: r.record.replan_id,
      startedMs,
      decidedIn: 'execution',
      target: 'execution',
      decision: d,
      context: executed,
    });
  };

  it('X9 its phase finished: success, with its duration and the plan after', () => {
    const s = finishReplan(underWay(1000), 4000);
    expect(s.inProgress).toBeUndefined();
    expect(s.log.records[0]).toMatchObject({ result: 'success', duration_ms: 3000, plan_after: { goal: 'ship it' } });
  });

  it('X13 it failed: failure, and the plan after is the plan before with why', () => {
    const s = failReplan(underWay(1000), `planner returned no tasks ${'!'.repeat(600)}`, 1500);
    expect(s.inProgress).toBeUndefined();
    const rec = s.log.records[0]!;
    expect(rec).toMatchObject({ result: 'failure', duration_ms: 500 });
    expect(rec.plan_after).toEqual({
      ...rec.plan_before,
      note: expect.stringMatching(/^failed: planner returned no tasks !+ …\[truncated 126 chars\]$/),
    });
  });

  it.each([
    ['finished', (s: RunState) => finishReplan(s, 1)],
    ['failed', (s: RunState) => failReplan(s, 'x', 1)],
  ])('without a replan under way, %s changes nothing', (_, end) => {
    const s = planned();
    expect(end(s)).toBe(s);
  });
});

describe('X8 / X14 the run goes on with assumptions', () => {
  it('X14 the goal keeps them, and later prompts see the note', () => {
    const s = continueOnAssumptions(planned(), 'Assumed (no answer to q1): PostgreSQL', ['PostgreSQL']);
    expect(s.goal!.assumptions).toEqual(['Linux', 'PostgreSQL']);
    expect(s.notes).toEqual(['Assumed (no answer to q1): PostgreSQL']);
  });
});
