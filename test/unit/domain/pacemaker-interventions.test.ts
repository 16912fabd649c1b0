import { parseConfig } from '../../../src/domain/config';
import {
  CONSULTATION_CHOICES,
  ConsultationAnswerSchema,
  DEFAULT_PACEMAKER_CONFIG,
  PacemakerConfigSchema,
  applyConsultationAnswer,
  applyConsultationTimeout,
  choicesFor,
  detectIntervention,
  evaluatePacemaker,
  initialPacemakerState,
  parseConsultationChoice,
  recordIteration,
  renderConsultation,
  takePendingGuidance,
  type PacemakerState,
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
  it('P7 exactly 4 choices mapped to stop, guidance, continue_raised, reset_replan (seed pattern 1 wording)', () => {
    expect(CONSULTATION_CHOICES.map((c) => [c.number, c.effect, c.label.ja])).toEqual([
      [1, 'stop', '作業を中止する'],
      [2, 'guidance', '追加の指示や情報を提供する'],
      [3, 'continue_raised', 'このまま作業を継続する'],
      [4, 'reset_replan', '別のアプローチで再開する'],
    ]);
  });

  it('P7 every trigger offers the same 4 effects in the same order, worded per seed pattern', () => {
    for (const kind of ['no_progress', 'lost_confidence', 'confused_thinking', 'too_many_attempts'] as const) {
      const choices = choicesFor(kind);
      expect(choices.map((c) => c.effect)).toEqual(['stop', 'guidance', 'continue_raised', 'reset_replan']);
      expect(choices[2]!.label.ja).toMatch(/（上限を \+5 回）$/);
      expect(choices[2]!.label.en).toMatch(/\(limit \+5 loops\)$/);
    }
    expect(choicesFor('lost_confidence')[1]!.label.ja).toBe('より詳細な要件や制約を教える');
    expect(choicesFor('confused_thinking')[3]!.label.ja).toBe('作業を一旦リセットして再開する');
    expect(choicesFor('too_many_attempts')[0]!.label.ja).toBe('現在までの結果で満足する');
    expect(choicesFor('too_many_attempts')[1]!.label.ja).toBe('問題の原因を一緒に分析する');
  });

  it('P7 the consultation text follows the seed layout, in Japanese and English', () => {
    const iv = detectIntervention(state({ iteration: 8, noProgressIterations: 3 }), config)!;
    expect(renderConsultation(iv, 'ja')).toBe(
      [
        '🦆 Duck Pacemaker からの相談',
        '',
        'AIがタスクの進捗がなく作業を繰り返しています（8回目）。',
        '同じような分析や情報収集を何度も行っており、新しい発見がない状況です。',
        '',
        'どのように進めますか？',
        '1. 作業を中止する',
        '2. 追加の指示や情報を提供する',
        '3. このまま作業を継続する（上限を +5 回）',
        '4. 別のアプローチで再開する',
        '',
        '選択してください (1-4):',
      ].join('\n'),
    );
    const both = renderConsultation(iv);
    expect(both).toContain('How would you like to proceed?');
    expect(both).toContain('3. Continue the work as it is (limit +5 loops)');
    expect(both).toContain('Choose (1-4):');
  });

  it('P7 answers are accepted by number or effect name; guidance needs text', () => {
    expect(parseConsultationChoice(3)).toBe('continue_raised');
    expect(parseConsultationChoice('4')).toBe('reset_replan');
    expect(parseConsultationChoice('stop')).toBe('stop');
    expect(parseConsultationChoice(5)).toBeUndefined();
    expect(parseConsultationChoice('maybe')).toBeUndefined();
    expect(ConsultationAnswerSchema.safeParse({ choice: 1 }).success).toBe(true);
    expect(ConsultationAnswerSchema.safeParse({ choice: 'guidance', guidance: 'use zod' }).success).toBe(true);
    expect(ConsultationAnswerSchema.safeParse({ choice: 2 }).success).toBe(false);
    expect(ConsultationAnswerSchema.safeParse({ choice: 2, guidance: '  ' }).success).toBe(false);
    expect(ConsultationAnswerSchema.safeParse({ choice: 0 }).success).toBe(false);
  });
});

describe('applyConsultationAnswer (P7 effects)', () => {
  const asked = state({ iteration: 8, noProgressIterations: 3 });

  it('P7 choice 1 stop: the task stops', () => {
    const r = applyConsultationAnswer(asked, { kind: 'no_progress', choice: 1 }, config);
    expect(r.outcome).toEqual({ effect: 'stop', reason: 'user chose to stop at loop 8/14 (no_progress)' });
    expect(r.state.interventions).toEqual([{ kind: 'no_progress', iteration: 8, maxLoops: 14, effect: 'stop' }]);
  });

  it('P7 choice 2 guidance: the text is carried into the next worker request', () => {
    const r = applyConsultationAnswer(
      asked,
      { kind: 'no_progress', choice: 'guidance', guidance: ' Use the existing validator in src/lib. ' },
      config,
    );
    expect(r.outcome).toEqual({ effect: 'guidance', guidance: 'Use the existing validator in src/lib.', maxLoops: 14 });
    expect(r.state).toMatchObject({
      pendingGuidance: 'Use the existing validator in src/lib.',
      noProgressIterations: 0,
      lastInterventionIteration: 8,
    });
    const taken = takePendingGuidance(r.state);
    expect(taken.guidance).toBe('Use the existing validator in src/lib.');
    expect(taken.state.pendingGuidance).toBeUndefined();
    expect(takePendingGuidance(taken.state).guidance).toBeUndefined();
  });

  it('P7 choice 2 guidance at the limit also raises the limit so the guided loop can run', () => {
    const r = applyConsultationAnswer(state({ iteration: 14 }), { kind: 'too_many_attempts', choice: 2, guidance: 'try X' }, config);
    expect(r.outcome).toMatchObject({ effect: 'guidance', maxLoops: 19 });
  });

  it('P7 choice 3 continue_raised: the limit goes up by raise_limit_by (5)', () => {
    const r = applyConsultationAnswer(state({ iteration: 14 }), { kind: 'too_many_attempts', choice: 3 }, config);
    expect(r.outcome).toEqual({ effect: 'continue_raised', maxLoops: 19, raisedBy: 5 });
    expect(r.state).toMatchObject({ maxLoops: 19, noProgressIterations: 0 });
    expect(detectIntervention(r.state, config)).toBeUndefined();
  });

  it('P7 continue_raised uses the configured step', () => {
    const c = PacemakerConfigSchema.parse({ raise_limit_by: 3 });
    expect(applyConsultationAnswer(asked, { kind: 'no_progress', choice: 3 }, c).outcome).toMatchObject({ maxLoops: 17, raisedBy: 3 });
  });

  it('P7 choice 4 reset_replan: the loop restarts for a replanned task', () => {
    const withGuidance = { ...asked, pendingGuidance: 'old' };
    const r = applyConsultationAnswer(withGuidance, { kind: 'confused_thinking', choice: 4, guidance: 'split API and tests' }, config);
    expect(r.outcome).toEqual({
      effect: 'reset_replan',
      reason: 'user chose to reset and replan at loop 8/14 (confused_thinking)',
      guidance: 'split API and tests',
    });
    expect(r.state).toMatchObject({ iteration: 0, noProgressIterations: 0, pendingGuidance: 'split API and tests' });
    expect(r.state.interventions).toHaveLength(1);
    expect(applyConsultationAnswer(withGuidance, { kind: 'confused_thinking', choice: 4 }, config).state.pendingGuidance).toBeUndefined();
  });

  it('P7 an unknown choice throws (validate with ConsultationAnswerSchema first)', () => {
    expect(() => applyConsultationAnswer(asked, { kind: 'no_progress', choice: 7 as never }, config)).toThrow(/unknown consultation choice/);
  });

  it('P7 the state is not mutated', () => {
    const before = JSON.stringify(asked);
    applyConsultationAnswer(asked, { kind: 'no_progress', choice: 3 }, config);
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
