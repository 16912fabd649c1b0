import { PHASES, type Phase } from '../../../src/domain/types';
import {
  NO_REPLAN,
  PHASE_FOR_LEVEL,
  decisionSchemaFor,
  keepsCompletedWork,
  levelForReplanType,
  parseDecision,
  validateDecision,
  type ReplanDecision,
  type ReplanType,
} from '../../../src/domain/replan/decision';

const minimal = { replan_needed: true, confidence: 0.9, reasoning: 'r', replan_type: 'partial_replan' };

function parsedOk(phase: Phase, text: string): ReplanDecision {
  const r = parseDecision(phase, text);
  if (!r.ok) throw new Error(`expected ok, got: ${r.reason}`);
  return r.decision;
}

describe('X2 decision schema', () => {
  it('X2 the seed §2.4 example (wrapped in replan_decision) parses with every base field', () => {
    const seed = {
      replan_decision: {
        replan_needed: true,
        confidence: 0.85,
        reasoning: '判断の理由を説明',
        replan_type: 'partial_replan',
        target_phase: 'task_decomposition',
        replan_level: 2,
        issues_found: ['問題点1', '問題点2'],
        recommended_actions: ['推奨アクション1', '推奨アクション2'],
        clarification_needed: false,
        clarification_questions: [],
      },
    };
    const d = parsedOk('execution', JSON.stringify(seed));
    expect(d).toMatchObject({
      replan_needed: true,
      confidence: 0.85,
      replan_type: 'partial_replan',
      target_phase: 'task_decomposition',
      replan_level: 2,
      issues_found: ['問題点1', '問題点2'],
      clarification_needed: false,
    });
  });

  it('X2 a bare object (no wrapper) parses too', () => {
    expect(parsedOk('execution', JSON.stringify(minimal)).replan_type).toBe('partial_replan');
  });

  it('X2 missing lists default to [] and missing clarification_needed to false', () => {
    const d = parsedOk('goal_understanding', JSON.stringify({ replan_needed: false, confidence: 1 }));
    expect(d).toMatchObject({
      reasoning: '',
      replan_type: null,
      issues_found: [],
      recommended_actions: [],
      clarification_needed: false,
      clarification_questions: [],
      assumptions_to_make: [],
    });
  });

  it.each<[string, unknown]>([
    ['confidence above 1', { ...minimal, confidence: 1.2 }],
    ['confidence below 0', { ...minimal, confidence: -0.1 }],
    ['confidence as a string', { ...minimal, confidence: '0.9' }],
    ['confidence missing', { replan_needed: true, reasoning: 'r' }],
    ['replan_needed missing', { confidence: 0.9 }],
    ['replan_level 0', { ...minimal, replan_level: 0 }],
    ['replan_level 6', { ...minimal, replan_level: 6 }],
    ['replan_level 2.5', { ...minimal, replan_level: 2.5 }],
    ['unknown replan_type', { ...minimal, replan_type: 'rewrite_everything' }],
    ['unknown target_phase', { ...minimal, target_phase: 'deployment' }],
    ['issues_found not a list', { ...minimal, issues_found: 'one issue' }],
    ['an array instead of an object', [minimal]],
  ])('X2 strict on types and ranges: %s is rejected', (_name, value) => {
    const r = validateDecision('execution', value);
    expect(r.ok).toBe(false);
  });

  it('X2 the rejection reason names the field', () => {
    const r = validateDecision('execution', { ...minimal, confidence: 1.5 });
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('confidence') });
  });

  it.each<[string, unknown, ReplanType | null]>([
    ['"none" → null', 'none', null],
    ['null → null', null, null],
    ['case and spaces are normalised', 'Partial Replan', 'partial_replan'],
    ['hyphens are normalised', 'action-regeneration', 'action_regeneration'],
  ])('X2 replan_type leniency: %s', (_n, value, expected) => {
    const d = parsedOk('execution', JSON.stringify({ ...minimal, replan_type: value }));
    expect(d.replan_type).toBe(expected);
  });

  it('X2 list items that are objects become compact text', () => {
    const d = parsedOk('execution', JSON.stringify({ ...minimal, issues_found: [{ issue: 'x', severity: 'high' }, 3] }));
    expect(d.issues_found).toEqual(['{"issue":"x","severity":"high"}', '3']);
  });

  it('X2 unknown extra fields are dropped, not rejected', () => {
    const d = parsedOk('execution', JSON.stringify({ ...minimal, mood: 'great' }));
    expect(d).not.toHaveProperty('mood');
  });

  describe('X2 per-phase fields', () => {
    it('X2 goal_understanding: assumptions_to_make', () => {
      const d = parsedOk('goal_understanding', JSON.stringify({ ...minimal, assumptions_to_make: ['use JWT'] }));
      expect(d.assumptions_to_make).toEqual(['use JWT']);
    });

    it('X2 task_decomposition: missing_steps, recommended_granularity, scope_adjustment', () => {
      const d = parsedOk(
        'task_decomposition',
        JSON.stringify({ ...minimal, missing_steps: ['tests'], recommended_granularity: 'finer', scope_adjustment: 'drop UI' }),
      );
      expect(d).toMatchObject({ missing_steps: ['tests'], recommended_granularity: 'finer', scope_adjustment: 'drop UI' });
    });

    it('X2 action_sequence: unavailable_tools, alternative_tools, dependency_issues, plan_adjustments', () => {
      const d = parsedOk('action_sequence', JSON.stringify({ ...minimal, unavailable_tools: ['docker'] }));
      expect(d).toMatchObject({ unavailable_tools: ['docker'], alternative_tools: [], dependency_issues: [], plan_adjustments: [] });
    });

    it.each(['transient', 'persistent', 'fatal'])('X2 execution: error_classification %s is accepted', (ec) => {
      const d = parsedOk('execution', JSON.stringify({ ...minimal, error_classification: ec, recovery_strategy: 's' }));
      expect(d.error_classification).toBe(ec);
    });

    it('X2 execution: an unknown error_classification is rejected', () => {
      expect(validateDecision('execution', { ...minimal, error_classification: 'weird' }).ok).toBe(false);
    });

    it('X2 reflection: evaluation_result, achievement_rate 0..100, revision_scope', () => {
      const d = parsedOk(
        'reflection',
        JSON.stringify({
          ...minimal,
          replan_type: 'plan_revision',
          evaluation_result: 'partial_success',
          achievement_rate: 60,
          issues_identified: ['no tests'],
          additional_actions: ['add tests'],
          revision_scope: 'moderate',
        }),
      );
      expect(d).toMatchObject({ evaluation_result: 'partial_success', achievement_rate: 60, revision_scope: 'moderate' });
    });

    it.each([101, -1])('X2 reflection: achievement_rate %p is rejected', (rate) => {
      expect(validateDecision('reflection', { ...minimal, achievement_rate: rate }).ok).toBe(false);
    });

    it.each([0, 100])('X2 reflection: achievement_rate %p (boundary) is accepted', (rate) => {
      expect(validateDecision('reflection', { ...minimal, achievement_rate: rate }).ok).toBe(true);
    });

    it("X2 decisionSchemaFor(phase) keeps only that phase's extra fields", () => {
      const out = decisionSchemaFor('execution').parse({ ...minimal, assumptions_to_make: ['a'] });
      expect(out).not.toHaveProperty('assumptions_to_make');
      expect(out.affected_actions).toEqual([]);
    });
  });
});

describe('X13 parsing a raw reply', () => {
  const body = JSON.stringify(minimal, null, 2);

  it.each<[string, string]>([
    ['plain JSON', body],
    ['JSON with surrounding whitespace', `\n  ${body}\n`],
    ['JSON inside a ```json code block', `Here is my decision:\n\n\`\`\`json\n${body}\n\`\`\`\nThanks.`],
    ['JSON inside an unlabelled code block', `Decision:\n\`\`\`\n${body}\n\`\`\``],
    ['JSON in the second block when the first is not JSON', `\`\`\`text\nthinking...\n\`\`\`\n\`\`\`\n${body}\n\`\`\``],
    ['a ```json block preferred over an earlier other block', `\`\`\`js\nconst x = 1\n\`\`\`\n\`\`\`json\n${body}\n\`\`\``],
  ])('X13 %s is parsed', (_n, text) => {
    expect(parsedOk('execution', text).confidence).toBe(0.9);
  });

  it('X13 JSON inside a markdown code block is parsed (seed wrapper inside the block)', () => {
    const text = '```json\n{"replan_decision": {"replan_needed": false, "confidence": 0.7}}\n```';
    expect(parsedOk('reflection', text)).toMatchObject({ replan_needed: false, confidence: 0.7 });
  });

  it.each<[string, string]>([
    ['prose without JSON', 'I think we should replan because things failed.'],
    ['an empty reply', '   '],
    ['broken JSON', '{"replan_needed": true, "confidence": '],
    ['a code block with broken JSON', '```json\n{"replan_needed": tru}\n```'],
    ['JSON embedded in prose without a code block', 'My answer: {"replan_needed": true, "confidence": 0.9}'],
  ])('X13 %s is not ok (caller treats it as no replan)', (_n, text) => {
    const r = parseDecision('execution', text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason.length).toBeGreaterThan(0);
  });

  it('X13 a code block with valid JSON but an invalid decision reports the schema problem', () => {
    const r = parseDecision('execution', '```json\n{"replan_needed": true, "confidence": 3}\n```');
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('confidence') });
  });

  it('X13 NO_REPLAN(reason) is a valid "no replan" decision that keeps the reason', () => {
    const d = NO_REPLAN('unparseable reply');
    expect(d).toMatchObject({ replan_needed: false, reasoning: 'unparseable reply', replan_type: null });
    for (const p of PHASES) expect(validateDecision(p, d).ok).toBe(true);
  });
});

describe('X3 replan types, levels and target phases', () => {
  it.each<[ReplanType, number, Phase]>([
    ['retry', 1, 'execution'],
    ['partial_replan', 2, 'action_sequence'],
    ['action_regeneration', 3, 'action_sequence'],
    ['task_redecomposition', 4, 'task_decomposition'],
    ['goal_revision', 5, 'goal_understanding'],
    ['clarification_request', 5, 'goal_understanding'],
    ['full_replan', 4, 'task_decomposition'],
    ['plan_revision', 2, 'action_sequence'],
  ])('X3 %s → level %p, back to %s', (type, level, phase) => {
    expect(levelForReplanType(type)).toBe(level);
    expect(PHASE_FOR_LEVEL[levelForReplanType(type)]).toBe(phase);
  });

  it.each<[1 | 2 | 3 | 4 | 5, boolean]>([
    [1, true],
    [2, true],
    [3, true],
    [4, false],
    [5, false],
  ])('X11 level %p keeps completed checks: %p', (level, keeps) => {
    expect(keepsCompletedWork(level)).toBe(keeps);
  });
});
