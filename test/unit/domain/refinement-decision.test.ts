import {
  DEFAULT_REFINEMENT_CONFIG,
  makeRefinementDecision,
  type QualityJudgeResult,
  type RefinementConfig,
  type RefinementDecisionInput,
} from '../../../src/domain/refinement';

const config: RefinementConfig = { ...DEFAULT_REFINEMENT_CONFIG };

function judged(isAcceptable: boolean, overallScore?: number, extra: Partial<QualityJudgeResult> = {}): QualityJudgeResult {
  const r: QualityJudgeResult = {
    isAcceptable,
    issues: isAcceptable ? [] : ['[Coverage] validation of the signup API is missing'],
    suggestions: [],
    ...extra,
  };
  if (overallScore !== undefined) r.overallScore = overallScore;
  return r;
}

function decide(partial: Partial<RefinementDecisionInput> & Pick<RefinementDecisionInput, 'result'>) {
  return makeRefinementDecision({ attempt: 1, suggestionReplansUsed: 0, config, ...partial });
}

describe('makeRefinementDecision (R2 priority order, first match wins)', () => {
  // attempt = 1-based number of the judged plan; attempt − 1 re-plans are done.
  // maxRefinementAttempts = maximum number of re-plans (seed 001: 再計画最大回数), default 2.
  const rows: {
    name: string;
    input: Partial<RefinementDecisionInput> & Pick<RefinementDecisionInput, 'result'>;
    action: 'accept' | 'replan' | 'reject';
    rule: number;
    kind?: 'quality' | 'suggestions';
  }[] = [
    {
      name: 'R2.1 max attempts reached and quality OK → accept',
      input: { attempt: 3, result: judged(true, 70), previousScore: 50 },
      action: 'accept',
      rule: 1,
    },
    {
      name: 'R2.1 max attempts reached and quality not OK → reject',
      input: { attempt: 3, result: judged(false, 70), previousScore: 50 },
      action: 'reject',
      rule: 1,
    },
    {
      name: 'R2.1 max attempts wins over a missing score and stagnation',
      input: { attempt: 3, result: judged(false), previousScore: 50 },
      action: 'reject',
      rule: 1,
    },
    {
      name: 'R2.1 maxRefinementAttempts 0: the first plan is final (OK → accept)',
      input: { attempt: 1, result: judged(true, 80), config: { ...config, maxRefinementAttempts: 0 } },
      action: 'accept',
      rule: 1,
    },
    {
      name: 'R2.1 maxRefinementAttempts 0: the first plan is final (not OK → reject)',
      input: { attempt: 1, result: judged(false, 40), config: { ...config, maxRefinementAttempts: 0 } },
      action: 'reject',
      rule: 1,
    },
    {
      name: 'R2.1 boundary: attempt 2 of max 2 re-plans still may re-plan',
      input: { attempt: 2, result: judged(false, 60), previousScore: 40 },
      action: 'replan',
      rule: 4,
      kind: 'quality',
    },
    {
      name: 'R2.2 score missing on the first attempt and quality OK → accept',
      input: { attempt: 1, result: judged(true) },
      action: 'accept',
      rule: 2,
    },
    {
      name: 'R2.2 score missing on the first attempt and quality not OK → reject',
      input: { attempt: 1, result: judged(false) },
      action: 'reject',
      rule: 2,
    },
    {
      name: 'R2.2 score missing on a later attempt and quality not OK → reject',
      input: { attempt: 2, result: judged(false), previousScore: 40 },
      action: 'reject',
      rule: 2,
    },
    {
      name: 'R2.2 score missing wins over suggestions (OK → accept)',
      input: {
        attempt: 1,
        result: judged(true, undefined, { suggestions: ['add a rollback task'] }),
        config: { ...config, refineSuggestionsOnSuccess: true },
      },
      action: 'accept',
      rule: 2,
    },
    {
      name: 'R2.3 stagnation and quality OK → accept',
      input: { attempt: 2, result: judged(true, 72), previousScore: 70 },
      action: 'accept',
      rule: 3,
    },
    {
      name: 'R2.3 stagnation and quality not OK → keep replanning while attempts remain',
      input: { attempt: 2, result: judged(false, 52), previousScore: 50 },
      action: 'replan',
      rule: 3,
      kind: 'quality',
    },
    {
      name: 'R2.3 a score drop is stagnation (not OK → replan)',
      input: { attempt: 2, result: judged(false, 40), previousScore: 50 },
      action: 'replan',
      rule: 3,
      kind: 'quality',
    },
    {
      name: 'R2.3 stagnation and OK wins over suggestions',
      input: {
        attempt: 2,
        result: judged(true, 71, { suggestions: ['x'] }),
        previousScore: 70,
        config: { ...config, refineSuggestionsOnSuccess: true },
      },
      action: 'accept',
      rule: 3,
    },
    {
      name: 'R2.3 no previous score (first attempt): stagnation is not checked',
      input: { attempt: 1, result: judged(false, 10) },
      action: 'replan',
      rule: 4,
      kind: 'quality',
    },
    { name: 'R2.4 quality not OK → replan', input: { attempt: 1, result: judged(false, 45) }, action: 'replan', rule: 4, kind: 'quality' },
    {
      name: 'R2.4 enough improvement but still not OK → replan',
      input: { attempt: 2, result: judged(false, 55), previousScore: 45 },
      action: 'replan',
      rule: 4,
      kind: 'quality',
    },
    {
      name: 'R2.5 OK + suggestions + refineSuggestionsOnSuccess + suggestion re-plans left → replan',
      input: {
        attempt: 1,
        result: judged(true, 80, { suggestions: ['add a rollback task'] }),
        config: { ...config, refineSuggestionsOnSuccess: true },
      },
      action: 'replan',
      rule: 5,
      kind: 'suggestions',
    },
    {
      name: 'R2.5 suggestions ignored when refineSuggestionsOnSuccess is off (default) → accept',
      input: { attempt: 1, result: judged(true, 80, { suggestions: ['add a rollback task'] }) },
      action: 'accept',
      rule: 6,
    },
    {
      name: 'R2.5 suggestions ignored when suggestion re-plans are used up → accept',
      input: {
        attempt: 2,
        result: judged(true, 90, { suggestions: ['more'] }),
        previousScore: 80,
        suggestionReplansUsed: 1,
        config: { ...config, refineSuggestionsOnSuccess: true },
      },
      action: 'accept',
      rule: 6,
    },
    {
      name: 'R2.5 no suggestions → accept',
      input: { attempt: 1, result: judged(true, 80), config: { ...config, refineSuggestionsOnSuccess: true } },
      action: 'accept',
      rule: 6,
    },
    { name: 'R2.6 quality OK → accept', input: { attempt: 1, result: judged(true, 85) }, action: 'accept', rule: 6 },
    {
      name: 'R2.6 quality OK after a real improvement → accept',
      input: { attempt: 2, result: judged(true, 80), previousScore: 60 },
      action: 'accept',
      rule: 6,
    },
  ];

  it.each(rows)('$name', ({ input, action, rule, kind }) => {
    const d = decide(input);
    expect(d.action).toBe(action);
    expect(d.rule).toBe(rule);
    expect(d.kind).toBe(kind);
    // People read the reason (status, the failure): no spec codes in it; the row is `rule`.
    expect(d.reason).not.toMatch(/\bR[0-9]/);
    expect(d.reason).toMatch(new RegExp(`→ ${action}$`));
  });

  it('R1 accept records the suggestions', () => {
    const d = decide({ result: judged(true, 85, { suggestions: ['add a rollback task'] }) });
    expect(d).toMatchObject({ action: 'accept', suggestions: ['add a rollback task'] });
  });

  it('R1 a quality replan carries issues and suggestions as feedback', () => {
    const d = decide({ result: judged(false, 40, { issues: ['task 2 is vague'], suggestions: ['split task 2'] }) });
    expect(d).toMatchObject({ action: 'replan', kind: 'quality', issues: ['task 2 is vague'], suggestions: ['split task 2'] });
  });

  it('R1 a suggestions replan carries only the suggestions', () => {
    const d = decide({
      result: judged(true, 80, { issues: ['minor'], suggestions: ['add docs'] }),
      config: { ...config, refineSuggestionsOnSuccess: true },
    });
    expect(d.suggestions).toEqual(['add docs']);
    expect(d.issues).toBeUndefined();
  });

  it('R1 reject says why (the issues)', () => {
    const d = decide({ attempt: 3, result: judged(false, 30, { issues: ['[Coverage] tests missing'] }) });
    expect(d).toMatchObject({ action: 'reject', issues: ['[Coverage] tests missing'] });
    expect(d.reason).toMatch(/maximum refinement attempts reached \(2\/2 re-plans done\)/);
  });

  it('R2.3 marks the decision as stagnant when R4 was evaluated', () => {
    expect(decide({ attempt: 2, result: judged(false, 52), previousScore: 50 }).stagnant).toBe(true);
    expect(decide({ attempt: 2, result: judged(false, 60), previousScore: 50 }).stagnant).toBe(false);
    expect(decide({ attempt: 1, result: judged(false, 60) }).stagnant).toBeUndefined();
  });

  it('R6 a score at or above qualityThreshold never accepts isAcceptable:false', () => {
    expect(decide({ result: judged(false, 95) }).action).toBe('replan');
    expect(decide({ attempt: 3, result: judged(false, 100) }).action).toBe('reject');
    expect(decide({ attempt: 2, result: judged(false, 99), previousScore: 98 }).action).toBe('replan');
  });

  it('R2 attempt below 1 or not finite is read as the first attempt', () => {
    expect(decide({ attempt: 0, result: judged(false, 40) }).rule).toBe(4);
    expect(decide({ attempt: Number.NaN, result: judged(false, 40) }).rule).toBe(4);
  });

  it('R2 with defaults a never-acceptable plan gets exactly 2 re-plans, then is rejected', () => {
    const scores = [40, 50, 58, 70];
    const actions: string[] = [];
    let previousScore: number | undefined;
    for (let attempt = 1; attempt <= scores.length; attempt++) {
      const d = decide({ attempt, result: judged(false, scores[attempt - 1]), previousScore });
      actions.push(d.action);
      if (d.action !== 'replan') break;
      previousScore = scores[attempt - 1];
    }
    expect(actions).toEqual(['replan', 'replan', 'reject']);
  });
});
