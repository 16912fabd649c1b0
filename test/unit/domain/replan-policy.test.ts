import { DEFAULT_CONFIG, parseConfig } from '../../../src/domain/config';
import type { Phase } from '../../../src/domain/types';
import type { ReplanDecision, ReplanType } from '../../../src/domain/replan/decision';
import { emptyCounters, limitFor, recordReplan, type ReplanCounters } from '../../../src/domain/replan/limits';
import { evaluateReplanDecision, type PolicyOutcome } from '../../../src/domain/replan/policy';
import { loopingTriggers, resolveReplan } from '../../../src/domain/replan/resolve';
import { loopWarning } from '../../../src/llm/prompts/replan-feedback';
import { wantedReplan } from '../../support/decisions';

/** X6: the loop-detection key of a decision (resolveReplan). */
const keyOf = (phase: Phase, d: ReplanDecision): string => resolveReplan(phase, d).triggerKey;

const dec = (over: Partial<ReplanDecision> = {}) => wantedReplan('partial_replan', 0.9, 'the tool is missing', ['Tool "docker" not found'], over);

function evaluate(
  over: Partial<ReplanDecision> = {},
  opts: { phase?: Phase; counters?: ReplanCounters; config?: unknown; userConfirmed?: boolean } = {},
): PolicyOutcome {
  return evaluateReplanDecision({
    phase: opts.phase ?? 'execution',
    decision: dec(over),
    counters: opts.counters ?? emptyCounters(),
    config: opts.config === undefined ? DEFAULT_CONFIG : parseConfig(opts.config),
    userConfirmed: opts.userConfirmed,
  });
}

/** Counters after `n` executed replans of `type`, each with a distinct trigger. */
function used(type: ReplanType, n: number, base = emptyCounters()): ReplanCounters {
  let c = base;
  for (let i = 0; i < n; i++) c = recordReplan(c, type, `execution|${type}|distinct ${String.fromCharCode(97 + i)}`, 'execution');
  return c;
}

describe('X7 confidence bands (defaults: min 0.5, confirm 0.3, confirmation on)', () => {
  it.each<[number, PolicyOutcome['action'], string | undefined]>([
    [1.0, 'replan', 'immediate'],
    [0.8, 'replan', 'immediate'],
    [0.79, 'replan', 'warning'],
    [0.6, 'replan', 'warning'],
    [0.5, 'replan', 'warning'],
    [0.49, 'confirm', undefined],
    [0.3, 'confirm', undefined],
    [0.29, 'ignore', undefined],
    [0.0, 'ignore', undefined],
  ])('X7 confidence %p → %s (%s)', (confidence, action, band) => {
    const o = evaluate({ confidence });
    expect(o.action).toBe(action);
    if (o.action === 'replan') expect(o.band).toBe(band);
  });

  it('X7 confidence 0.6 replans with a warning', () => {
    const o = evaluate({ confidence: 0.6 });
    expect(o).toMatchObject({ action: 'replan', band: 'warning', warning: expect.stringContaining('60%') });
  });

  it('X7 confidence exactly 0.8 replans at once, without a warning', () => {
    const o = evaluate({ confidence: 0.8 });
    expect(o).toMatchObject({ action: 'replan', band: 'immediate' });
    expect(o).not.toHaveProperty('warning');
  });

  it('X7 confidence 0.4 asks the user to confirm, naming the proposal', () => {
    const o = evaluate({ confidence: 0.4 });
    expect(o).toMatchObject({ action: 'confirm', type: 'partial_replan', message: expect.stringContaining('40%') });
  });

  it('X7 below 0.3 the decision is ignored, the plan kept and the user notified', () => {
    const o = evaluate({ confidence: 0.1 });
    expect(o).toMatchObject({ action: 'ignore', reason: 'very_low_confidence', notifyUser: true });
  });

  it('X6 0.3–0.5 with require_user_confirmation_on_low_confidence off → overridden as low_confidence', () => {
    const o = evaluate({ confidence: 0.4 }, { config: { replanning: { llm_decision: { require_user_confirmation_on_low_confidence: false } } } });
    expect(o).toMatchObject({ action: 'override', reason: 'low_confidence', escalate: false });
  });

  it('X7 after the user confirms, a 0.4 decision replans (band user_confirmed)', () => {
    expect(evaluate({ confidence: 0.4 }, { userConfirmed: true })).toMatchObject({ action: 'replan', band: 'user_confirmed' });
  });

  it('X6 min_confidence_threshold is configurable: 0.7 makes 0.6 a confirmation', () => {
    expect(evaluate({ confidence: 0.6 }, { config: { replanning: { llm_decision: { min_confidence_threshold: 0.7 } } } }).action).toBe('confirm');
  });
});

describe('X6 / X5 limits', () => {
  it.each<[ReplanType, number]>([
    ['clarification_request', 2],
    ['task_redecomposition', 3],
    ['action_regeneration', 3],
    ['retry', 3],
    ['partial_replan', 2],
    ['plan_revision', 2],
  ])('X5 default limit of %s is %p', (type, n) => {
    expect(limitFor(type, DEFAULT_CONFIG)).toBe(n);
  });

  it('X5 goal revisions have no limit of their own (seed 004 §9.1: the global limit only)', () => {
    expect(limitFor('goal_revision', DEFAULT_CONFIG)).toBeNull();
    expect(evaluate({ replan_type: 'goal_revision' }, { phase: 'goal_understanding', counters: used('goal_revision', 5) }).action).toBe('replan');
  });

  it('X5 total replans default to 10', () => {
    expect(DEFAULT_CONFIG.replanning.global.max_total_replans).toBe(10);
  });

  it('X6 one below the type limit still replans', () => {
    expect(evaluate({}, { counters: used('partial_replan', 1) }).action).toBe('replan');
  });

  it('X6 type limit exactly reached (2/2 partial replans) → override phase_limit, escalated', () => {
    const o = evaluate({}, { counters: used('partial_replan', 2) });
    expect(o).toMatchObject({
      action: 'override',
      reason: 'phase_limit',
      escalate: true,
      limit: { key: 'replanning.execution.max_partial_replans', used: 2, max: 2 },
    });
  });

  it('X6 global limit exactly reached (10/10) → override global_limit', () => {
    const counters = used(
      'retry',
      2,
      used('action_regeneration', 2, used('task_redecomposition', 2, used('goal_revision', 2, used('plan_revision', 2)))),
    );
    expect(counters.total).toBe(10);
    expect(evaluate({}, { counters })).toMatchObject({ action: 'override', reason: 'global_limit', limit: { used: 10, max: 10 } });
  });

  it('X6 global limit one below (9/10) still replans', () => {
    const counters = used(
      'retry',
      1,
      used('action_regeneration', 2, used('task_redecomposition', 2, used('goal_revision', 2, used('plan_revision', 2)))),
    );
    expect(evaluate({}, { counters }).action).toBe('replan');
  });

  it('X12 MAX_TOTAL_REPLANS 0 refuses the first replan', () => {
    expect(evaluate({}, { config: { replanning: { global: { max_total_replans: 0 } } } })).toMatchObject({ reason: 'global_limit' });
  });

  it('X6 limits are checked before confidence (seed §9.2 order): a 0.4 decision at the limit is overridden, not confirmed', () => {
    expect(evaluate({ confidence: 0.4 }, { counters: used('partial_replan', 2) })).toMatchObject({ action: 'override', reason: 'phase_limit' });
  });

  it('X8 a limit override of a decision below 0.3 is not escalated (it would be ignored anyway)', () => {
    expect(evaluate({ confidence: 0.2 }, { counters: used('partial_replan', 2) })).toMatchObject({
      action: 'override',
      reason: 'phase_limit',
      escalate: false,
    });
  });

  it('X12 replanning.enabled false → override disabled, not escalated', () => {
    expect(evaluate({}, { config: { replanning: { enabled: false } } })).toMatchObject({ action: 'override', reason: 'disabled', escalate: false });
  });

  it('X5 a full replan is charged to the type of the level it runs at', () => {
    const o = evaluate({ replan_type: 'full_replan', replan_level: 3 }, { counters: used('action_regeneration', 3) });
    expect(o).toMatchObject({ action: 'override', reason: 'phase_limit', countedAs: 'action_regeneration' });
  });
});

describe('X6 loop detection', () => {
  it('X6 same trigger twice → next replan refused as loop', () => {
    const d = dec();
    const key = keyOf('execution', d);
    let counters = emptyCounters();
    for (let i = 0; i < 2; i++) {
      const o = evaluateReplanDecision({ phase: 'execution', decision: d, counters, config: DEFAULT_CONFIG });
      expect(o.action).toBe('replan');
      if (o.action === 'replan') counters = recordReplan(counters, o.countedAs, o.triggerKey, 'execution');
    }
    // a third attempt would exceed max_partial_replans too; raise it so the loop check is what bites
    const config = parseConfig({ replanning: { execution: { max_partial_replans: 5 } } });
    const o = evaluateReplanDecision({ phase: 'execution', decision: d, counters, config });
    expect(o).toMatchObject({ action: 'override', reason: 'loop_detected', escalate: true });
    if (o.action === 'override') expect(o.message).toMatch(/different approach/);
    expect(counters.byTrigger[key]).toBe(2);
  });

  it('X6 the same trigger once → still replans', () => {
    const counters = recordReplan(emptyCounters(), 'partial_replan', keyOf('execution', dec()));
    expect(evaluate({}, { counters }).action).toBe('replan');
  });

  it('X6 a different trigger is not a loop', () => {
    const counters = recordReplan(recordReplan(emptyCounters(), 'retry', 'execution|retry|x'), 'retry', 'execution|retry|x');
    expect(evaluate({ replan_type: 'retry', issues_found: ['network timeout'] }, { counters }).action).toBe('replan');
  });

  it('X6 rephrasings of the same issue (case, punctuation, numbers) are the same trigger', () => {
    const a = keyOf('execution', dec({ issues_found: ['Error at line 12: tool missing.'] }));
    const b = keyOf('execution', dec({ issues_found: ['error at line 13 — Tool missing'] }));
    expect(a).toBe(b);
  });

  it('X6 the trigger key includes phase and type', () => {
    expect(keyOf('execution', dec())).not.toBe(keyOf('execution', dec({ replan_type: 'retry' })));
    expect(keyOf('execution', dec())).not.toBe(keyOf('reflection', dec()));
  });

  it('X6 infinite_loop_detection false → no loop override', () => {
    const key = keyOf('execution', dec());
    const counters = recordReplan(recordReplan(emptyCounters(), 'retry', key), 'retry', key);
    const o = evaluate({}, { counters, config: { replanning: { global: { infinite_loop_detection: false } } } });
    expect(o.action).toBe('replan');
  });

  it('X6 a low-confidence loop is refused, not sent to the user for confirmation', () => {
    const key = keyOf('execution', dec());
    const counters = recordReplan(recordReplan(emptyCounters(), 'retry', key), 'retry', key);
    expect(evaluate({ confidence: 0.4 }, { counters })).toMatchObject({ action: 'override', reason: 'loop_detected' });
  });

  it('X6 the loop warning names looping triggers and asks for a different approach', () => {
    const key = keyOf('execution', dec());
    const once = recordReplan(emptyCounters(), 'partial_replan', key);
    expect(loopingTriggers(once, DEFAULT_CONFIG)).toEqual([]);
    expect(loopWarning(loopingTriggers(once, DEFAULT_CONFIG))).toBe('');
    const twice = recordReplan(once, 'partial_replan', key);
    expect(loopingTriggers(twice, DEFAULT_CONFIG)).toEqual([{ key, count: 2 }]);
    const text = loopWarning(loopingTriggers(twice, DEFAULT_CONFIG));
    expect(text).toContain('execution / partial_replan');
    expect(text).toContain('tool docker not found');
    expect(text).toMatch(/different approach/);
  });
});

describe('X14 clarification', () => {
  const ask = {
    replan_type: 'clarification_request' as const,
    clarification_needed: true,
    clarification_questions: ['Which database?'],
    assumptions_to_make: ['PostgreSQL'],
  };

  it('X14 a clarification request goes to the user with the assumptions and the auto-assume timeout', () => {
    expect(evaluate(ask, { phase: 'goal_understanding' })).toMatchObject({
      action: 'clarify',
      questions: ['Which database?'],
      assumptions: ['PostgreSQL'],
      autoAssume: true,
      timeoutMinutes: 30,
      targetPhase: 'goal_understanding',
    });
  });

  it('X14 clarification_needed with questions is a clarification even when replan_needed is false', () => {
    const o = evaluate({ ...ask, replan_needed: false, replan_type: null }, { phase: 'goal_understanding' });
    expect(o.action).toBe('clarify');
  });

  it('X14 clarification_needed without any question is no clarification', () => {
    const o = evaluate({ replan_needed: false, replan_type: null, clarification_needed: true }, { phase: 'goal_understanding' });
    expect(o.action).toBe('none');
  });

  it('X5 clarification requests are limited (2 by default)', () => {
    const o = evaluate(ask, { phase: 'goal_understanding', counters: used('clarification_request', 2) });
    expect(o).toMatchObject({ action: 'override', reason: 'phase_limit', limit: { max: 2 } });
  });

  it('X14 a 0.4 clarification asks the user directly (the question is the confirmation)', () => {
    expect(evaluate({ ...ask, confidence: 0.4 }, { phase: 'goal_understanding' })).toMatchObject({
      action: 'clarify',
      warning: expect.any(String),
    });
  });

  it('X14 a clarification below 0.3 is ignored', () => {
    expect(evaluate({ ...ask, confidence: 0.2 }, { phase: 'goal_understanding' }).action).toBe('ignore');
  });

  it('X14 auto-assume settings come from replanning.goal_understanding', () => {
    const o = evaluate(ask, {
      phase: 'goal_understanding',
      config: { replanning: { goal_understanding: { auto_assume_on_no_response: false, auto_assume_timeout_minutes: 5 } } },
    });
    expect(o).toMatchObject({ autoAssume: false, timeoutMinutes: 5 });
  });

  it('X14 a clarification type without questions gets one built from the issues', () => {
    const o = evaluate({ replan_type: 'clarification_request', issues_found: ['Which API version?'] }, { phase: 'goal_understanding' });
    expect(o).toMatchObject({ action: 'clarify', questions: [expect.stringContaining('Which API version?')] });
  });
});

describe('X1/X3 resolving type, level and target phase', () => {
  it('X1 replan_needed false → none', () => {
    expect(evaluate({ replan_needed: false }).action).toBe('none');
  });

  it.each<[string, Phase, Partial<ReplanDecision>, ReplanType, number, Phase]>([
    [
      'type fixes level and target (seed example)',
      'execution',
      { replan_type: 'partial_replan', replan_level: 2, target_phase: 'task_decomposition' },
      'partial_replan',
      2,
      'action_sequence',
    ],
    ['no type, level 4', 'execution', { replan_type: null, replan_level: 4 }, 'task_redecomposition', 4, 'task_decomposition'],
    ['no type, target goal', 'reflection', { replan_type: null, target_phase: 'goal_understanding' }, 'goal_revision', 5, 'goal_understanding'],
    ['no type at all → phase default (goal)', 'goal_understanding', { replan_type: null }, 'goal_revision', 5, 'goal_understanding'],
    ['no type at all → phase default (decomposition)', 'task_decomposition', { replan_type: null }, 'task_redecomposition', 4, 'task_decomposition'],
    ['no type at all → phase default (action)', 'action_sequence', { replan_type: null }, 'action_regeneration', 3, 'action_sequence'],
    ['no type at all → phase default (execution)', 'execution', { replan_type: null }, 'partial_replan', 2, 'action_sequence'],
    ['no type at all → phase default (reflection)', 'reflection', { replan_type: null }, 'plan_revision', 2, 'action_sequence'],
    ['retry', 'execution', { replan_type: 'retry' }, 'retry', 1, 'execution'],
    ['full replan default', 'execution', { replan_type: 'full_replan' }, 'full_replan', 4, 'task_decomposition'],
    ['full replan with level 5', 'execution', { replan_type: 'full_replan', replan_level: 5 }, 'full_replan', 5, 'goal_understanding'],
    ['full replan is at least level 3', 'execution', { replan_type: 'full_replan', replan_level: 1 }, 'full_replan', 3, 'action_sequence'],
    ['plan revision, major scope', 'reflection', { replan_type: 'plan_revision', revision_scope: 'major' }, 'plan_revision', 4, 'task_decomposition'],
    [
      'plan revision, moderate scope',
      'reflection',
      { replan_type: 'plan_revision', revision_scope: 'moderate' },
      'plan_revision',
      3,
      'action_sequence',
    ],
    [
      'forward jump clamped to the phase default',
      'goal_understanding',
      { replan_type: 'action_regeneration' },
      'goal_revision',
      5,
      'goal_understanding',
    ],
  ])('X3 %s', (_n, phase, over, type, level, target) => {
    const r = resolveReplan(phase, dec(over));
    expect(r).toMatchObject({ type, level, targetPhase: target });
  });

  it('X11 task redecomposition starts a new checklist, partial replan keeps completed checks', () => {
    expect(resolveReplan('execution', dec({ replan_type: 'task_redecomposition' })).keepsCompletedWork).toBe(false);
    expect(resolveReplan('execution', dec({ replan_type: 'partial_replan' })).keepsCompletedWork).toBe(true);
  });
});

describe('X5/X9 counters', () => {
  it('X5 recordReplan is immutable and counts total, type, phase and trigger', () => {
    const c0 = emptyCounters();
    const c1 = recordReplan(c0, 'retry', 'k', 'execution');
    expect(c0.total).toBe(0);
    expect(c1).toMatchObject({ total: 1, byType: { retry: 1, partial_replan: 0 }, byPhase: { execution: 1 }, byTrigger: { k: 1 } });
  });

  it('X9 counters survive a JSON round trip (workflow state / continueAsNew)', () => {
    const c = recordReplan(emptyCounters(), 'retry', 'execution|retry|x', 'execution');
    expect(JSON.parse(JSON.stringify(c))).toEqual(c);
  });
});
