import { DEFAULT_CONFIG } from '../../../src/domain/config';
import { NO_REPLAN, type ReplanDecision } from '../../../src/domain/replan/decision';
import { appendDecision, completeDecision, emptyDecisionLog, latestDecision, pendingDecisions } from '../../../src/domain/replan/decision-log';
import { emptyCounters } from '../../../src/domain/replan/limits';
import { evaluateReplanDecision, type PolicyOutcome } from '../../../src/domain/replan/policy';

const T = '2025-01-01T00:00:00.000Z';
const decision: ReplanDecision = {
  ...NO_REPLAN(''),
  replan_needed: true,
  confidence: 0.85,
  reasoning: 'tool missing',
  replan_type: 'action_regeneration',
  issues_found: ['no docker'],
};
const outcomeOf = (d: ReplanDecision): PolicyOutcome =>
  evaluateReplanDecision({ phase: 'action_sequence', decision: d, counters: emptyCounters(), config: DEFAULT_CONFIG });

describe('X9 decision records', () => {
  it('X9 an executed decision is recorded with every field and result pending', () => {
    const { log, record } = appendDecision(emptyDecisionLog(), {
      phase: 'action_sequence',
      decision,
      outcome: outcomeOf(decision),
      timestamp: T,
      planBefore: '3 actions',
    });
    expect(record).toMatchObject({
      replan_id: 'replan-1',
      phase: 'action_sequence',
      confidence: 0.85,
      executed: true,
      timestamp: T,
      result: 'pending',
      plan_before: '3 actions',
      outcome: 'replan',
      replan_type: 'action_regeneration',
      target_phase: 'action_sequence',
    });
    expect(record.llm_decision).toMatchObject({ replan_type: 'action_regeneration', issues_found: ['no docker'] });
    expect(log.nextSeq).toBe(2);
  });

  it('X9 completing a record sets result, duration and the plan after', () => {
    const { log } = appendDecision(emptyDecisionLog(), { phase: 'action_sequence', decision, outcome: outcomeOf(decision), timestamp: T });
    const done = completeDecision(log, 'replan-1', { result: 'success', durationMs: 1234.4, planAfter: '4 actions' });
    expect(done.records[0]).toMatchObject({ result: 'success', duration_ms: 1234, plan_after: '4 actions' });
    expect(log.records[0]!.result).toBe('pending'); // immutable
    expect(pendingDecisions(done)).toEqual([]);
  });

  it('X9 an overridden decision is recorded as not executed, skipped, with the override reason', () => {
    const d = { ...decision, confidence: 0.1 };
    const { record } = appendDecision(emptyDecisionLog(), { phase: 'action_sequence', decision: d, outcome: outcomeOf(d), timestamp: T });
    expect(record).toMatchObject({ executed: false, result: 'skipped', override_reason: 'very_low_confidence' });
    expect(record.message).toContain('ignored');
  });

  it('X9 a "no replan" decision is recorded as skipped without override reason', () => {
    const d = NO_REPLAN('fine');
    const { record } = appendDecision(emptyDecisionLog(), { phase: 'reflection', decision: d, outcome: outcomeOf(d), timestamp: T });
    expect(record).toMatchObject({ executed: false, result: 'skipped', outcome: 'none' });
    expect(record.override_reason).toBeUndefined();
  });

  it('X9 a user decline is recorded on a pending confirmation', () => {
    const d = { ...decision, confidence: 0.4 };
    const { log, record } = appendDecision(emptyDecisionLog(), { phase: 'action_sequence', decision: d, outcome: outcomeOf(d), timestamp: T });
    expect(record).toMatchObject({ outcome: 'confirm', result: 'pending', executed: false });
    const after = completeDecision(log, record.replan_id, { result: 'skipped', overrideReason: 'user_declined' });
    expect(latestDecision(after)).toMatchObject({ result: 'skipped', override_reason: 'user_declined' });
  });

  it('X9 records stay compact: long strings cut to ~2 KB, long lists to 20 items', () => {
    const huge: ReplanDecision = {
      ...decision,
      reasoning: 'x'.repeat(50_000),
      issues_found: Array.from({ length: 100 }, (_, i) => `issue ${i} ${'y'.repeat(3000)}`),
    };
    const { record } = appendDecision(emptyDecisionLog(), {
      phase: 'action_sequence',
      decision: huge,
      outcome: outcomeOf(huge),
      timestamp: T,
      planBefore: 'p'.repeat(10_000),
    });
    expect(JSON.stringify(record).length).toBeLessThan(16_000);
    expect(record.plan_before!.length).toBeLessThan(2_100);
    expect(record.plan_before).toContain('[truncated');
    const issues = record.llm_decision.issues_found as string[];
    expect(issues.length).toBe(21);
    expect(issues[20]).toBe('… 80 more');
  });

  it('X9 the log keeps the newest records and counts the dropped ones; ids keep increasing', () => {
    let log = emptyDecisionLog();
    for (let i = 0; i < 5; i++) {
      log = appendDecision(log, { phase: 'execution', decision, outcome: outcomeOf(decision), timestamp: T }, 3).log;
    }
    expect(log.records.map((r) => r.replan_id)).toEqual(['replan-3', 'replan-4', 'replan-5']);
    expect(log.dropped).toBe(2);
  });

  it('X9 the log survives a JSON round trip (workflow state)', () => {
    const { log } = appendDecision(emptyDecisionLog(), { phase: 'execution', decision, outcome: outcomeOf(decision), timestamp: T });
    expect(JSON.parse(JSON.stringify(log))).toEqual(log);
  });
});
