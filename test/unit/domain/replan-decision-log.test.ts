import { DEFAULT_CONFIG } from '../../../src/domain/config';
import { NO_REPLAN, type ReplanDecision } from '../../../src/domain/replan/decision';
import {
  appendDecision,
  completeDecision,
  emptyDecisionLog,
  latestDecision,
  MAX_RECORDS_WITH_PLANS,
  MAX_SNAPSHOT_TASKS,
  planLine,
  planSnapshot,
} from '../../../src/domain/replan/decision-log';
import { TaskState, type TaskRecord } from '../../../src/domain/types';
import { emptyCounters } from '../../../src/domain/replan/limits';
import { evaluateReplanDecision, type PolicyOutcome } from '../../../src/domain/replan/policy';
import { wantedReplan } from '../../support/decisions';

const T = '2025-01-01T00:00:00.000Z';
const decision = wantedReplan('action_regeneration', 0.85, 'tool missing', ['no docker']);
const task = (id: string, state: TaskState, title = `title ${id}`, dependencies: string[] = []): TaskRecord => ({
  id,
  title,
  description: '',
  acceptanceCriteria: [],
  dependencies,
  scopePaths: [],
  profile: 'FILE_OPERATION',
  state,
});
const BEFORE = planSnapshot('ship it', [task('a', TaskState.DONE), task('b', TaskState.BLOCKED, 'b', ['a'])]);
const AFTER = planSnapshot('ship it', [task('a', TaskState.DONE), task('b', TaskState.READY, 'b', ['a']), task('add-1', TaskState.READY)]);
const outcomeOf = (d: ReplanDecision): PolicyOutcome =>
  evaluateReplanDecision({ phase: 'action_sequence', decision: d, counters: emptyCounters(), config: DEFAULT_CONFIG });

describe('X9 decision records', () => {
  it('X9 an executed decision is recorded with every field and result pending', () => {
    const { log, record } = appendDecision(emptyDecisionLog(), {
      phase: 'action_sequence',
      decision,
      outcome: outcomeOf(decision),
      timestamp: T,
      planBefore: BEFORE,
    });
    expect(record).toMatchObject({
      replan_id: 'replan-1',
      phase: 'action_sequence',
      confidence: 0.85,
      executed: true,
      timestamp: T,
      result: 'pending',
      plan_before: {
        goal: 'ship it',
        tasks: [
          { id: 'a', title: 'title a', state: 'DONE' },
          { id: 'b', title: 'b', state: 'BLOCKED', dependencies: ['a'] },
        ],
      },
      outcome: 'replan',
      replan_type: 'action_regeneration',
      target_phase: 'action_sequence',
    });
    expect(record.llm_decision).toMatchObject({ replan_type: 'action_regeneration', issues_found: ['no docker'] });
    expect(log.nextSeq).toBe(2);
  });

  it('X9 completing a record sets result, duration and the plan after', () => {
    const { log } = appendDecision(emptyDecisionLog(), { phase: 'action_sequence', decision, outcome: outcomeOf(decision), timestamp: T });
    const done = completeDecision(log, 'replan-1', { result: 'success', durationMs: 1234.4, planAfter: AFTER });
    expect(done.records[0]).toMatchObject({ result: 'success', duration_ms: 1234, plan_after: AFTER });
    expect(done.records[0]!.plan_after!.tasks.map((t) => `${t.id}:${t.state}`)).toEqual(['a:DONE', 'b:READY', 'add-1:READY']);
    expect(log.records[0]!.result).toBe('pending'); // immutable
    expect(done.records.filter((r) => r.result === 'pending')).toEqual([]);
  });

  it('X9 an overridden decision is recorded as not executed, skipped, with the override reason', () => {
    const d = { ...decision, confidence: 0.1 };
    const { record } = appendDecision(emptyDecisionLog(), { phase: 'action_sequence', decision: d, outcome: outcomeOf(d), timestamp: T });
    expect(record).toMatchObject({ executed: false, result: 'skipped', override_reason: 'very_low_confidence' });
    expect(record.message).toContain('Plan kept');
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
      planBefore: planSnapshot('g'.repeat(10_000), [task('a', TaskState.READY, 't'.repeat(10_000))], 'n'.repeat(10_000)),
    });
    expect(JSON.stringify(record).length).toBeLessThan(16_000);
    expect(record.plan_before!.goal!.length).toBeLessThan(600);
    expect(record.plan_before!.tasks[0]!.title).toContain('[truncated');
    expect(record.plan_before!.note!.length).toBeLessThan(2_100);
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

  it('X9 a snapshot keeps every task with its state, up to a bound, and says how many more there were', () => {
    const many = Array.from({ length: MAX_SNAPSHOT_TASKS + 5 }, (_, i) => task(`t${i}`, TaskState.READY));
    const s = planSnapshot(undefined, many);
    expect(s.tasks).toHaveLength(MAX_SNAPSHOT_TASKS);
    expect(s.more).toBe(5);
    expect(planLine(BEFORE)).toBe('goal: ship it | tasks: a[DONE], b[BLOCKED]');
    expect(planLine({ tasks: [], note: 'failed: x' })).toBe('failed: x');
  });

  it('X9 only the newest records keep their plans (the log stays small)', () => {
    let log = emptyDecisionLog();
    for (let i = 0; i < MAX_RECORDS_WITH_PLANS + 3; i++) {
      log = appendDecision(log, { phase: 'execution', decision, outcome: outcomeOf(decision), timestamp: T, planBefore: BEFORE }).log;
    }
    expect(log.records.filter((r) => r.plan_before)).toHaveLength(MAX_RECORDS_WITH_PLANS);
    expect(log.records.slice(0, 3).every((r) => r.plan_before === undefined)).toBe(true);
    expect(log.records.at(-1)!.plan_before).toEqual(BEFORE);
  });

  it('X9 the log survives a JSON round trip (workflow state)', () => {
    const { log } = appendDecision(emptyDecisionLog(), { phase: 'execution', decision, outcome: outcomeOf(decision), timestamp: T });
    expect(JSON.parse(JSON.stringify(log))).toEqual(log);
  });
});

describe('X9 issue 21: an execution decision names its task', () => {
  it('X9 appendDecision keeps the task id the decision was about (execution), none elsewhere', () => {
    const none: PolicyOutcome = { action: 'none', reason: 'no replan' };
    const withTask = appendDecision(emptyDecisionLog(), {
      phase: 'execution',
      decision: NO_REPLAN('fine'),
      outcome: none,
      timestamp: 't',
      taskId: 'test',
    });
    expect(withTask.record.task_id).toBe('test');
    const without = appendDecision(emptyDecisionLog(), { phase: 'reflection', decision: NO_REPLAN('fine'), outcome: none, timestamp: 't' });
    expect(without.record).not.toHaveProperty('task_id');
  });
});
