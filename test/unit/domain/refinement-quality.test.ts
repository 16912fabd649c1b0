import { expectToContainAll } from '../../support/expectations';
import {
  COVERAGE_ISSUE_PREFIX,
  DEFAULT_REFINEMENT_CONFIG,
  QUALITY_CRITERIA,
  QUALITY_TIER_WEIGHTS,
  QualityJudgeResultSchema,
  isQualityOk,
  judgeFailureResult,
  makeRefinementDecision,
  renderQualityCriteria,
} from '../../../src/domain/refinement';

describe('QualityJudgeResult (R1)', () => {
  it('R1 parses a full judge reply', () => {
    expect(QualityJudgeResultSchema.parse({ isAcceptable: true, issues: ['a'], suggestions: ['b'], overallScore: 82 })).toEqual({
      isAcceptable: true,
      issues: ['a'],
      suggestions: ['b'],
      overallScore: 82,
    });
  });

  it('R1 issues and suggestions default to [], a null or absent score is "no score"', () => {
    const r = QualityJudgeResultSchema.parse({ isAcceptable: false, overallScore: null });
    expect(r).toEqual({ isAcceptable: false, issues: [], suggestions: [] });
    expect('overallScore' in r).toBe(false);
    expect(QualityJudgeResultSchema.parse({ isAcceptable: true })).toEqual({ isAcceptable: true, issues: [], suggestions: [] });
  });

  it('R1 rejects a reply without isAcceptable or with a score outside 0..100', () => {
    expect(QualityJudgeResultSchema.safeParse({ issues: [] }).success).toBe(false);
    expect(QualityJudgeResultSchema.safeParse({ isAcceptable: 'yes' }).success).toBe(false);
    expect(QualityJudgeResultSchema.safeParse({ isAcceptable: true, overallScore: 101 }).success).toBe(false);
    expect(QualityJudgeResultSchema.safeParse({ isAcceptable: true, overallScore: -1 }).success).toBe(false);
  });
});

describe('isQualityOk (R6)', () => {
  it('R6 OK means isAcceptable is true', () => {
    expect(isQualityOk({ isAcceptable: true })).toBe(true);
    expect(isQualityOk({ isAcceptable: false })).toBe(false);
  });

  it.each([60, 61, 100])('R6 score %i ≥ qualityThreshold 60 does not turn isAcceptable:false into OK', (score) => {
    expect(isQualityOk({ isAcceptable: false, overallScore: score } as never)).toBe(false);
  });

  it('R6 a low score does not turn isAcceptable:true into not OK', () => {
    expect(isQualityOk({ isAcceptable: true, overallScore: 10 } as never)).toBe(true);
  });
});

describe('judge failure (C3)', () => {
  it('C3 fails closed by default: the plan is rejected', () => {
    const r = judgeFailureResult('LLM returned invalid JSON', DEFAULT_REFINEMENT_CONFIG);
    expect(r.isAcceptable).toBe(false);
    expect(r.issues[0]).toMatch(/Quality judge failed: LLM returned invalid JSON/);
    const d = makeRefinementDecision({ attempt: 1, result: r, suggestionReplansUsed: 0, config: DEFAULT_REFINEMENT_CONFIG });
    expect(d.action).toBe('reject');
  });

  it('C3 failOpen: true restores the old pass-through', () => {
    const config = { ...DEFAULT_REFINEMENT_CONFIG, failOpen: true };
    const r = judgeFailureResult('timeout', config);
    expect(r.isAcceptable).toBe(true);
    expect(makeRefinementDecision({ attempt: 1, result: r, suggestionReplansUsed: 0, config }).action).toBe('accept');
  });
});

describe('QUALITY_CRITERIA (R7)', () => {
  it('R7 tiers and weights', () => {
    expect(QUALITY_TIER_WEIGHTS).toEqual({ CRITICAL: 0.7, IMPORTANT: 0.2, NICE_TO_HAVE: 0.1 });
    const byTier = (tier: string) => QUALITY_CRITERIA.filter((c) => c.tier === tier).map((c) => c.id);
    expect(byTier('CRITICAL')).toEqual(['completeness', 'clarity', 'acceptance_criteria', 'dependency_validity', 'coverage']);
    expect(byTier('IMPORTANT')).toEqual(['context_sufficiency', 'granularity', 'max_task_duration']);
    expect(byTier('NICE_TO_HAVE')).toEqual(['independence', 'best_practices']);
  });

  it('R7 rendered prompt text has tiers with weights, Coverage with seed 003 wording, and the duration', () => {
    const text = renderQualityCriteria({ maxTaskDuration: 6 });
    expectToContainAll(
      text,
      [
        'CRITICAL (70%):',
        'IMPORTANT (20%):',
        'NICE TO HAVE (10%):',
        '5. **Coverage**: Do all tasks together fully satisfy the original instruction?',
        'All explicit requirements must be addressed by at least one task',
        'within 6 hours',
      ],
      ['{maxTaskDuration}'],
    );
    expect(renderQualityCriteria()).toContain('within 4 hours');
  });

  it('C4 the coverage criterion asks for [Coverage]-tagged issues', () => {
    expect(COVERAGE_ISSUE_PREFIX).toBe('[Coverage]');
    expect(renderQualityCriteria()).toContain('"[Coverage]"');
  });
});
