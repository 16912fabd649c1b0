import { parseConfig } from '../../../src/domain/config';
import {
  DEFAULT_PACEMAKER_CONFIG,
  PacemakerConfigSchema,
  applyConsultationAnswer,
  applyConsultationTimeout,
  choicesFor,
  detectIntervention,
  evaluatePacemaker,
  initialPacemakerState,
  recordIteration,
  resolveConsultationChoice,
  takePendingGuidance,
  validateConsultationAnswer,
  type InterventionKind,
  type PacemakerState,
  type ResolvedConsultationAnswer,
} from '../../../src/domain/pacemaker';

const config = DEFAULT_PACEMAKER_CONFIG;
const healthy = { mood: 0.8, focus: 0.9, stamina: 0.7 };
function state(over: Partial<PacemakerState> = {}): PacemakerState {
  return { ...initialPacemakerState(14, healthy), iteration: 5, ...over };
}

describe('detectIntervention (P7 triggers)', () => {
  it('P7 a healthy task is left alone', () => {
    expect(detectIntervention(state(), config)).toBeUndefined();
    expect(evaluatePacemaker(state(), config)).toEqual({ action: 'continue' });
  });

  it('P7 no progress / repeating work after 3 iterations without progress', () => {
    expect(detectIntervention(state({ noProgressIterations: 2 }), config)).toBeUndefined();
    const iv = detectIntervention(state({ iteration: 8, noProgressIterations: 3 }), config)!;
    expect(iv.kind).toBe('no_progress');
    expect(iv.message.ja).toBe(
      'AIがタスクの進捗がなく作業を繰り返しています（8回目）。\n同じような分析や情報収集を何度も行っており、新しい発見がない状況です。',
    );
    expect(iv.message.en).toMatch(/no progress .* \(iteration 8\)/);
    expect(iv.trigger).toBe('no progress for 3 iterations (threshold 3)');
  });

  it('P7 lost confidence when mood < 0.5', () => {
    expect(detectIntervention(state({ vitals: { ...healthy, mood: 0.5 } }), config)).toBeUndefined();
    const iv = detectIntervention(state({ vitals: { ...healthy, mood: 0.49 } }), config)!;
    expect(iv.kind).toBe('lost_confidence');
    expect(iv.message.ja).toBe('AIが現在の作業プランに自信を失っています。\n複雑な問題に対して適切な解決策を見つけられずにいる状況です。');
  });

  it('P7 confused thinking when focus < 0.5 (seed example: focus 0.80 → 0.45)', () => {
    expect(detectIntervention(state({ vitals: { ...healthy, focus: 0.5 } }), config)).toBeUndefined();
    const iv = detectIntervention(state({ vitals: { ...healthy, focus: 0.45 } }), config)!;
    expect(iv.kind).toBe('confused_thinking');
    expect(iv.message.ja).toBe('AIの思考が一貫性を失い、混乱している状況です。\n複数の解決策を同時に検討して判断がつかない状態になっています。');
  });

  it('P7 too many attempts when the loop limit is reached', () => {
    expect(detectIntervention(state({ iteration: 13 }), config)).toBeUndefined();
    const iv = detectIntervention(state({ iteration: 14 }), config)!;
    expect(iv.kind).toBe('too_many_attempts');
    expect(iv.message.ja).toBe(
      'AIが同じタスクで多くの試行を重ねており、効率が低下しています。\nこれ以上続けても良い結果が得られない可能性があります。',
    );
    expect(iv.trigger).toBe('loop limit reached: 14/14 loops used');
  });

  it('P7 priority: limit, then no progress, then confused, then lost confidence', () => {
    const all = { noProgressIterations: 5, vitals: { mood: 0.1, focus: 0.1, stamina: 0 } };
    expect(detectIntervention(state({ ...all, iteration: 14 }), config)!.kind).toBe('too_many_attempts');
    expect(detectIntervention(state(all), config)!.kind).toBe('no_progress');
    expect(detectIntervention(state({ ...all, noProgressIterations: 0 }), config)!.kind).toBe('confused_thinking');
    expect(detectIntervention(state({ vitals: { mood: 0.1, focus: 0.9, stamina: 1 } }), config)!.kind).toBe('lost_confidence');
  });

  it('P7 soft triggers wait for min_iteration and keep quiet during the cooldown; the limit does not', () => {
    const low = { vitals: { ...healthy, mood: 0.1 } };
    expect(detectIntervention(state({ ...low, iteration: 1 }), config)).toBeUndefined();
    expect(detectIntervention(state({ ...low, iteration: 2 }), config)!.kind).toBe('lost_confidence');
    expect(detectIntervention(state({ ...low, iteration: 6, lastInterventionIteration: 5 }), config)).toBeUndefined();
    expect(detectIntervention(state({ ...low, iteration: 7, lastInterventionIteration: 5 }), config)!.kind).toBe('lost_confidence');
    expect(detectIntervention(state({ ...low, iteration: 14, lastInterventionIteration: 13 }), config)!.kind).toBe('too_many_attempts');
  });

  it('P7 thresholds come from the config', () => {
    const strict = PacemakerConfigSchema.parse({ interventions: { no_progress_iterations: 1, low_mood_threshold: 0.9 } });
    expect(detectIntervention(state({ noProgressIterations: 1 }), strict)!.kind).toBe('no_progress');
    expect(detectIntervention(state(), strict)!.kind).toBe('lost_confidence');
  });

  it('P7 disabled pacemaker: no consultations, stop at the limit', () => {
    const off = PacemakerConfigSchema.parse({ enabled: false });
    expect(detectIntervention(state({ iteration: 14, noProgressIterations: 9 }), off)).toBeUndefined();
    expect(evaluatePacemaker(state({ iteration: 14 }), off)).toMatchObject({ action: 'stop' });
    expect(evaluatePacemaker(state({ iteration: 3 }), off)).toEqual({ action: 'continue' });
  });

  it('P7 evaluatePacemaker asks to consult when an intervention triggers', () => {
    const step = evaluatePacemaker(state({ iteration: 14 }), config);
    expect(step.action).toBe('consult');
  });

  it('P7 recordIteration counts loops and the no-progress streak', () => {
    let s = initialPacemakerState(10, healthy);
    s = recordIteration(s, { progressed: false, vitals: healthy });
    s = recordIteration(s, { progressed: false, vitals: { ...healthy, focus: 0.4 } });
    expect(s).toMatchObject({ iteration: 2, noProgressIterations: 2, vitals: { focus: 0.4 } });
    s = recordIteration(s, { progressed: true, vitals: healthy });
    expect(s).toMatchObject({ iteration: 3, noProgressIterations: 0 });
  });
});

describe('consultation choices (P7)', () => {
  it.each<[InterventionKind, [string, string, string][]]>([
    [
      'no_progress',
      [
        ['stop', 'stop', '作業を中止する'],
        ['guidance', 'guidance', '追加の指示や情報を提供する'],
        ['continue', 'continue_raised', 'このまま作業を継続する（上限を +5 回）'],
        ['different_approach', 'restart', '別のアプローチで再開する'],
      ],
    ],
    [
      'lost_confidence',
      [
        ['requirements', 'guidance', 'より詳細な要件や制約を教える'],
        ['split', 'redecompose', '問題を分割して段階的に進める'],
        ['consult', 'consult_reference', '別の専門家や資料を参照する'],
        ['continue', 'continue_raised', '現在のアプローチを続ける（上限を +5 回）'],
      ],
    ],
    [
      'confused_thinking',
      [
        ['key_requirement', 'guidance', '最も重要な要件を1つ教える'],
        ['reset', 'restart', '作業を一旦リセットして再開する'],
        ['consolidate', 'consolidate', '現在までの成果を整理する'],
        ['other_angle', 'restart', '別の角度からアプローチする'],
      ],
    ],
    [
      'too_many_attempts',
      [
        ['accept', 'accept', '現在までの結果で満足する'],
        ['analyse_cause', 'guidance', '問題の原因を一緒に分析する'],
        ['simplify', 'simplify', '要求を簡素化して再挑戦する'],
        ['different_approach', 'restart', '完全に別のアプローチを試す'],
      ],
    ],
  ])("P7 %s offers seed 002's own four choices of that pattern, in order", (kind, expected) => {
    const choices = choicesFor(kind);
    expect(choices.map((c) => [c.key, c.effect, c.label.ja])).toEqual(expected);
    expect(choices.map((c) => c.number)).toEqual([1, 2, 3, 4]);
    for (const c of choices) expect(c.label.en).toMatch(/^[A-Z][a-z]/);
    expect(choices.filter((c) => c.needsText).map((c) => c.effect)).toEqual(
      choices.map((c) => c.effect).filter((e) => e === 'guidance' || e === 'consult_reference'),
    );
  });

  it("P7 a choice is named by number, key or effect, only among the pattern's own four", () => {
    expect(resolveConsultationChoice('lost_confidence', 3)?.key).toBe('consult');
    expect(resolveConsultationChoice('lost_confidence', ' 2 ')?.effect).toBe('redecompose');
    expect(resolveConsultationChoice('lost_confidence', 'Split')?.number).toBe(2);
    expect(resolveConsultationChoice('too_many_attempts', 'simplify')?.number).toBe(3);
    expect(resolveConsultationChoice('confused_thinking', 'restart')?.key).toBe('reset');
    expect(resolveConsultationChoice('confused_thinking', 'other_angle')?.number).toBe(4);
    // Not offered by that pattern.
    expect(resolveConsultationChoice('lost_confidence', 'stop')).toBeUndefined();
    expect(resolveConsultationChoice('too_many_attempts', 'continue')).toBeUndefined();
    expect(resolveConsultationChoice('no_progress', 5)).toBeUndefined();
    expect(resolveConsultationChoice('no_progress', 1.5)).toBeUndefined();
    expect(resolveConsultationChoice('no_progress', null)).toBeUndefined();
  });
});

describe('validateConsultationAnswer (P7, the one validation)', () => {
  const pending = { id: 't-c1', kind: 'lost_confidence' as const };
  const err = (payload: unknown) => {
    const r = validateConsultationAnswer(pending, payload);
    return r.ok ? 'accepted' : r.error;
  };

  it('P7 a valid answer resolves the choice and trims the text', () => {
    expect(validateConsultationAnswer(pending, { choice: 1, guidance: '  use zod  ' })).toEqual({
      ok: true,
      answer: { kind: 'lost_confidence', choice: expect.objectContaining({ number: 1, key: 'requirements', effect: 'guidance' }), text: 'use zod' },
    });
    expect(validateConsultationAnswer(pending, { consultationId: 't-c1', choice: 'split' })).toMatchObject({
      ok: true,
      answer: { choice: { number: 2 } },
    });
  });

  it.each<[string, unknown, string]>([
    ['null', null, 'invalid answer'],
    ['a list', [1], 'invalid answer'],
    ['choice missing', {}, 'invalid answer: choice'],
    ['choice as an object', { choice: { n: 1 } }, 'invalid answer: choice'],
    ['guidance not text', { choice: 1, guidance: 5 }, 'invalid answer: guidance'],
    ['guidance too long', { choice: 1, guidance: 'x'.repeat(8001) }, 'invalid answer: guidance'],
    [
      'a choice the pattern does not offer',
      { choice: 'stop' },
      'unknown choice "stop": answer one of 1|requirements, 2|split, 3|consult, 4|continue',
    ],
    ['number 0', { choice: 0 }, 'unknown choice "0"'],
    ['guidance without text', { choice: 1 }, 'choice 1 (requirements) needs the text'],
    ['guidance with blank text', { choice: 'requirements', guidance: '   ' }, 'needs the text'],
    ['consult without naming what', { choice: 3 }, 'choice 3 (consult) needs the text'],
    ['another consultation', { consultationId: 't-c9', choice: 4 }, 'consultation "t-c9" is not pending (the pending one is "t-c1")'],
  ])('P7 rejects %s', (_n, payload, message) => {
    expect(err(payload)).toContain(message);
  });

  it('P7 rejects any answer when nothing is pending', () => {
    expect(validateConsultationAnswer(undefined, { choice: 4 })).toEqual({ ok: false, error: 'no consultation is waiting for an answer' });
  });
});

describe('applyConsultationAnswer (P7 effects)', () => {
  const asked = state({ iteration: 8, noProgressIterations: 3 });
  const answer = (kind: InterventionKind, choice: number, text?: string): ResolvedConsultationAnswer => {
    const r = validateConsultationAnswer({ id: 'x', kind }, text === undefined ? { choice } : { choice, guidance: text });
    if (!r.ok) throw new Error(r.error);
    return r.answer;
  };

  it('P7 stop: the task stops', () => {
    const r = applyConsultationAnswer(asked, answer('no_progress', 1), config);
    expect(r.outcome).toEqual({ effect: 'stop', reason: 'user chose to stop at loop 8/14 (no_progress)' });
    expect(r.state.interventions).toEqual([{ kind: 'no_progress', iteration: 8, maxLoops: 14, effect: 'stop' }]);
  });

  it('P7 accept: the current result is accepted', () => {
    const r = applyConsultationAnswer(state({ iteration: 14 }), answer('too_many_attempts', 1), config);
    expect(r.outcome).toEqual({
      effect: 'accept',
      reason: 'user chose 1 "Settle for the results so far": the current result is accepted at loop 14/14 (too_many_attempts)',
    });
  });

  it('P7 guidance: the text is carried into the next worker request, once', () => {
    const r = applyConsultationAnswer(asked, answer('no_progress', 2, ' Use the existing validator in src/lib. '), config);
    expect(r.outcome).toEqual({ effect: 'guidance', guidance: 'Use the existing validator in src/lib.', maxLoops: 14 });
    expect(r.state).toMatchObject({
      pendingGuidance: 'Use the existing validator in src/lib.',
      noProgressIterations: 0,
      lastInterventionIteration: 8,
    });
    const taken = takePendingGuidance(r.state);
    expect(taken.guidance).toBe('Use the existing validator in src/lib.');
    expect(takePendingGuidance(taken.state).guidance).toBeUndefined();
  });

  it('P7 guidance at the limit also raises the limit so the guided loop can run', () => {
    const r = applyConsultationAnswer(state({ iteration: 14 }), answer('too_many_attempts', 2, 'the cause is X'), config);
    expect(r.outcome).toMatchObject({ effect: 'guidance', guidance: 'the cause is X', maxLoops: 19 });
  });

  it('P7 consult_reference: the worker is told what to consult', () => {
    const r = applyConsultationAnswer(asked, answer('lost_confidence', 3, 'RFC 8259'), config);
    expect(r.outcome).toMatchObject({ effect: 'consult_reference', maxLoops: 14 });
    expect(r.state.pendingGuidance).toMatch(/^Before going on, consult this .*\nRFC 8259$/s);
  });

  it('P7 consolidate: the worker consolidates what is done, then goes on', () => {
    const r = applyConsultationAnswer(asked, answer('confused_thinking', 3), config);
    expect(r.outcome).toMatchObject({ effect: 'consolidate', maxLoops: 14 });
    expect(r.state.pendingGuidance).toMatch(/^CONSOLIDATE FIRST: .*summarise what is already done/);
  });

  it.each<[InterventionKind, number]>([
    ['no_progress', 4],
    ['confused_thinking', 2],
    ['confused_thinking', 4],
    ['too_many_attempts', 4],
  ])('P7 %s choice %i restarts with a different approach: the worker is told to drop the current one', (kind, n) => {
    const at = kind === 'too_many_attempts' ? state({ iteration: 14 }) : asked;
    const r = applyConsultationAnswer(at, answer(kind, n, 'try a streaming parser'), config);
    expect(r.outcome).toMatchObject({ effect: 'restart', maxLoops: kind === 'too_many_attempts' ? 19 : 14 });
    expect(r.state.pendingGuidance).toMatch(/^RESTART WITH A DIFFERENT APPROACH: drop your current approach.*\ntry a streaming parser$/s);
    expect(r.state.noProgressIterations).toBe(0);
  });

  it('P7 continue_raised: the limit goes up by raise_limit_by (5), or the configured step', () => {
    const r = applyConsultationAnswer(state({ iteration: 14 }), answer('no_progress', 3), config);
    expect(r.outcome).toEqual({ effect: 'continue_raised', maxLoops: 19, raisedBy: 5 });
    expect(r.state).toMatchObject({ maxLoops: 19, noProgressIterations: 0 });
    expect(detectIntervention(r.state, config)).toBeUndefined();
    const c = PacemakerConfigSchema.parse({ raise_limit_by: 3 });
    expect(applyConsultationAnswer(asked, answer('lost_confidence', 4), c).outcome).toMatchObject({ maxLoops: 17, raisedBy: 3 });
  });

  it('P7 split re-decomposes the task; simplify re-decomposes it with a simplified scope', () => {
    expect(applyConsultationAnswer(asked, answer('lost_confidence', 2, 'API first'), config).outcome).toEqual({
      effect: 'redecompose',
      reason:
        'user chose 2 "Split the problem and proceed step by step" at loop 8/14 (lost_confidence): re-decompose the task into smaller steps: API first',
    });
    const s = applyConsultationAnswer(state({ iteration: 14 }), answer('too_many_attempts', 3), config).outcome;
    expect(s).toMatchObject({
      effect: 'simplify',
      reason: expect.stringContaining('simplify the request and retry — re-decompose the task with a simplified scope'),
    });
  });

  it('P7 the state is not mutated', () => {
    const before = JSON.stringify(asked);
    applyConsultationAnswer(asked, answer('no_progress', 3), config);
    applyConsultationAnswer(asked, answer('confused_thinking', 2), config);
    expect(JSON.stringify(asked)).toBe(before);
  });
});

describe('consultation timeout (P7)', () => {
  it('P7 default on_consultation_timeout is stop after 30 minutes', () => {
    expect(config.on_consultation_timeout).toBe('stop');
    expect(config.consultation_timeout_minutes).toBe(30);
    const r = applyConsultationTimeout(state({ iteration: 8 }), 'no_progress', config);
    expect(r.outcome.effect).toBe('stop');
    expect(r.state.interventions[0]).toMatchObject({ effect: 'stop', timedOut: true });
  });

  it('P7 raise_limit continues with a raised limit', () => {
    const c = PacemakerConfigSchema.parse({ on_consultation_timeout: 'raise_limit' });
    expect(applyConsultationTimeout(state({ iteration: 14 }), 'too_many_attempts', c).outcome).toEqual({
      effect: 'continue_raised',
      maxLoops: 19,
      raisedBy: 5,
    });
  });

  it('P7 continue keeps the limit, and stops when the limit is reached', () => {
    const c = PacemakerConfigSchema.parse({ on_consultation_timeout: 'continue' });
    expect(applyConsultationTimeout(state({ iteration: 8 }), 'lost_confidence', c).outcome).toEqual({ effect: 'continue', maxLoops: 14 });
    expect(applyConsultationTimeout(state({ iteration: 14 }), 'too_many_attempts', c).outcome.effect).toBe('stop');
  });
});

describe('PacemakerConfig (P5/P7)', () => {
  it('P5 defaults', () => {
    expect(config).toMatchObject({ enabled: true, default_max_loops: 15, raise_limit_by: 5 });
    expect(config.interventions).toEqual({
      no_progress_iterations: 3,
      low_mood_threshold: 0.5,
      low_focus_threshold: 0.5,
      cooldown_iterations: 2,
      min_iteration: 2,
    });
  });

  it('P5 an absent section gives the defaults', () => {
    expect(parseConfig({}).pacemaker).toEqual(config);
    expect(parseConfig({ pacemaker: { default_max_loops: 12 } }).pacemaker.default_max_loops).toBe(12);
  });

  it('P5 unknown keys are rejected', () => {
    expect(() => PacemakerConfigSchema.parse({ max_loop: 3 })).toThrow();
    expect(() => PacemakerConfigSchema.parse({ interventions: { foo: 1 } })).toThrow();
    expect(() => PacemakerConfigSchema.parse({ on_consultation_timeout: 'ask_again' })).toThrow();
  });
});
