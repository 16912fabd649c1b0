import { DEFAULT_CONFIG, parseConfig } from '../../../src/domain/config';
import { escalate, escalationOpening, escalationTrigger, type EscalationInput } from '../../../src/domain/replan/escalation';
import { emptyCounters, recordReplan } from '../../../src/domain/replan/limits';
import { evaluateReplanDecision } from '../../../src/domain/replan/policy';
import { resolveReplan } from '../../../src/domain/replan/resolve';
import { alternativesPrompt } from '../../../src/llm/prompts/escalation';
import { wantedReplan } from '../../support/decisions';

const decision = wantedReplan('partial_replan', 0.9, 'docker is missing', ['docker not installed']);

function input(over: Partial<EscalationInput> = {}): EscalationInput {
  return {
    stage: 'refused',
    trigger: 'phase_limit',
    phase: 'execution',
    decision,
    detail: 'the partial_replan limit is reached (2/2)',
    config: DEFAULT_CONFIG,
    ...over,
  };
}

describe('X8 escalation when a wanted replan cannot run', () => {
  it.each(['phase_limit', 'global_limit', 'loop_detected'] as const)(
    'X8 %s: first the LLM is told the limit was hit and asked for alternatives',
    (trigger) => {
      const step = escalate(input({ trigger }));
      expect(step.action).toBe('ask_llm_alternatives');
      const prompt = alternativesPrompt(input({ trigger }));
      expect(prompt).toContain('cannot be carried out');
      expect(prompt).toContain('the partial_replan limit is reached (2/2)');
      expect(prompt).toMatch(/alternative/i);
      expect(prompt).toContain('docker not installed');
    },
  );

  it('X8 no alternative → the user is notified and the run waits, with the assumptions it would use', () => {
    const step = escalate(input({ stage: 'no_alternative' }));
    expect(step).toMatchObject({ action: 'notify_user_and_wait', waitMinutes: 30, onNoResponse: 'continue_with_assumptions' });
    if (step.action === 'notify_user_and_wait') {
      expect(step.message).toContain('30 minutes');
      expect(step.assumptions[0]).toContain('current plan is kept');
    }
  });

  it('X8 the LLM is asked only once: a second refusal goes straight to the user', () => {
    expect(escalate(input({ alternativesAsked: true })).action).toBe('notify_user_and_wait');
  });

  it("X8 the LLM's own assumptions_to_make are used when it stated some", () => {
    const step = escalate(input({ stage: 'no_user_response', decision: { ...decision, assumptions_to_make: ['skip docker tests'] } }));
    expect(step).toMatchObject({ action: 'continue_with_assumptions', assumptions: ['skip docker tests'] });
  });

  it('X8 without auto_assume_on_no_response the run waits for the user without a timeout', () => {
    const config = parseConfig({ replanning: { goal_understanding: { auto_assume_on_no_response: false } } });
    const step = escalate(input({ stage: 'no_alternative', config }));
    expect(step).toMatchObject({ action: 'notify_user_and_wait', waitMinutes: null });
  });

  it('X13 on_replan_failure continue: no answer → continue with stated assumptions', () => {
    expect(escalate(input({ stage: 'no_user_response' })).action).toBe('continue_with_assumptions');
  });

  it('X13 on_replan_failure abort: no answer → abort with a message naming the cause', () => {
    const config = parseConfig({ replanning: { on_replan_failure: 'abort' } });
    const wait = escalate(input({ stage: 'no_alternative', config }));
    expect(wait).toMatchObject({ onNoResponse: 'abort' });
    if (wait.action === 'notify_user_and_wait') expect(wait.message).toContain('stopped');
    const step = escalate(input({ stage: 'no_user_response', config }));
    expect(step).toMatchObject({ action: 'abort', message: expect.stringContaining('on_replan_failure') });
  });

  it('X13 a replan that failed to execute is reported to the LLM, with the failure', () => {
    const failed = input({ stage: 'failed', trigger: 'replan_failed', detail: 'planner returned no tasks' });
    expect(escalate(failed).action).toBe('ask_llm_alternatives');
    const prompt = alternativesPrompt(failed);
    expect(prompt).toContain('failed');
    expect(prompt).toContain('planner returned no tasks');
  });

  it.each([
    // trigger, the decision is an alternative, already asked for this trigger → stage, alternatives asked
    ['phase_limit', false, false, 'refused', false],
    ['loop_detected', false, true, 'refused', true],
    ['global_limit', true, false, 'refused', true],
    ['replan_failed', false, false, 'failed', false],
    ['replan_failed', true, true, 'failed', true],
  ] as const)(
    'X8 / X13 an escalation of %s (alternative %s, asked before %s) opens at %s, alternatives asked: %s',
    (trigger, isAlternative, askedBefore, stage, asked) => {
      expect(escalationOpening({ trigger, isAlternative, askedBefore })).toEqual({ stage, alternativesAsked: asked });
    },
  );

  const counters = (n: number) =>
    Array.from({ length: n }, (_, i) => i).reduce((c, i) => recordReplan(c, 'partial_replan', `k${i}`), emptyCounters());
  const key = resolveReplan('execution', decision).triggerKey;
  const looping = recordReplan(recordReplan(emptyCounters(), 'retry', key), 'retry', key);
  it.each([
    ['a runnable replan', undefined, 0.9, emptyCounters(), {}],
    ['a limit reached', 'phase_limit', 0.9, counters(2), {}],
    ['a loop', 'loop_detected', 0.9, looping, {}],
    ['a limit reached by a very unsure decision (it would be ignored anyway)', undefined, 0.2, counters(2), {}],
    [
      'a low-confidence refusal with confirmation off',
      undefined,
      0.4,
      emptyCounters(),
      { llm_decision: { require_user_confirmation_on_low_confidence: false } },
    ],
    ['replanning disabled', undefined, 0.9, emptyCounters(), { enabled: false }],
  ] as const)('X8 %s: escalation trigger %s', (_, trigger, confidence, used, replanning) => {
    const config = parseConfig({ replanning });
    const o = evaluateReplanDecision({ phase: 'execution', decision: { ...decision, confidence }, counters: used, config });
    expect(escalationTrigger(o)).toBe(trigger);
  });
});
