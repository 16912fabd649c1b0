// The CLI's human views of status, decisions and questions (pure functions, no Temporal).
import { answerCommand, decisionLine, pendingQuestions, questionLines, renderDecisions, renderStatus } from '../../src/client/render';
import { describeChanges } from '../../src/client/render-events';
import type { DecisionRecord } from '../../src/domain/replan';
import { choicesFor } from '../../src/domain/pacemaker';
import { emptyCounters } from '../../src/domain/replan/limits';
import type { DecisionsView, Question, RunStatus } from '../../src/workflows/messages';

const base: RunStatus = {
  runId: 'r1',
  instruction: 'write a report',
  workspace: '/tmp/ws',
  phase: 'goal_understanding',
  status: 'RUNNING',
  tasks: [],
  phaseRuns: { goal_understanding: 1 },
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, calls: 2 },
  blocked: [],
};

const q1: Question = {
  id: 'q1',
  kind: 'clarification',
  phase: 'goal_understanding',
  replanId: 'replan-1',
  text: 'Which format?',
  assumptions: ['JSON'],
  timeoutMinutes: 30,
  askedAt: '2024-01-01T00:00:00.000Z',
  status: 'pending',
};
const q2: Question = {
  ...q1,
  id: 'q2',
  kind: 'confirmation',
  phase: 'execution',
  replanId: 'replan-2',
  text: 'Replan with confidence 0.40: retry the failing action?',
  assumptions: [],
  timeoutMinutes: null,
};

const record: DecisionRecord = {
  replan_id: 'replan-1',
  phase: 'goal_understanding',
  llm_decision: { replan_needed: true, confidence: 0.9, reasoning: 'the output format is unclear' },
  confidence: 0.9,
  executed: true,
  timestamp: '2024-01-01T00:00:00.000Z',
  result: 'pending',
  outcome: 'clarify',
  replan_type: 'clarification_request',
  target_phase: 'goal_understanding',
};

/** A record with no replan type or target (a "no replan" decision). */
function noTarget(r: DecisionRecord): DecisionRecord {
  const { replan_type: _t, target_phase: _p, ...rest } = r;
  return rest;
}

describe('renderStatus: replans, last decision, questions (X9, X14, X7)', () => {
  it('shows Replans: N, the last decision in one line and each pending question with how to answer it', () => {
    const text = renderStatus({
      ...base,
      replans: { total: 2, byPhase: { goal_understanding: 1, execution: 1 } },
      lastDecision: record,
      questions: [q1, q2],
    });
    expect(text).toContain('Replans: 2 (goal_understanding 1, execution 1)');
    expect(text).toMatch(
      /^Last decision: replan-1 · goal_understanding · clarify clarification_request → goal_understanding · confidence 0\.90 · executed · pending — the output format is unclear$/m,
    );
    expect(text).toContain('Question q1 (clarification, goal_understanding): Which format?');
    expect(text).toContain('goes on after 30 min without an answer, assuming: JSON');
    expect(text).toContain('npx replanner answer r1 q1 "<text>"');
    expect(text).toContain('Question q2 (confirmation, execution)');
    expect(text).toContain('answer yes or no: npx replanner answer r1 q2 yes (or no)');
    expect(text).toContain('the run waits for the answer');
    // one line for the last decision
    expect(text.split('\n').filter((l) => l.startsWith('Last decision')).length).toBe(1);
  });

  it('one name per replan type: status counts replans by type, as decisions does; an execution decision names its task', () => {
    const text = renderStatus({
      ...base,
      replans: { total: 1, byType: { task_redecomposition: 1 }, byPhase: { task_decomposition: 1 } },
      lastDecision: noTarget({ ...record, phase: 'execution', task_id: 'test', outcome: 'none' }),
    });
    expect(text).toContain('Replans: 1 (task_redecomposition 1)');
    expect(text).not.toContain('task_decomposition 1');
    expect(text).toMatch(/^Last decision: replan-1 · execution \(task test\) · none · /m);
    const decisions = renderDecisions('r1', {
      records: [{ ...record, phase: 'execution', task_id: 'test' }],
      dropped: 0,
      counters: { ...emptyCounters(), total: 1, byType: { ...emptyCounters().byType, task_redecomposition: 1 } },
      questions: [],
    });
    expect(decisions).toContain('replan-1 · execution (task test) · ');
    expect(decisions).toContain('Replans executed: 1 (task_redecomposition 1)');
  });

  it('shows Replans: 0 when the run reports counters, nothing when it does not (older runs)', () => {
    expect(renderStatus({ ...base, replans: { total: 0, byPhase: {} } })).toContain('Replans: 0');
    const old = renderStatus(base);
    expect(old).not.toContain('Replans');
    expect(old).not.toContain('Question');
  });

  it('lists only pending questions', () => {
    const answered: Question = { ...q1, status: 'answered', answer: 'CSV' };
    expect(pendingQuestions({ questions: [answered, q2] }).map((q) => q.id)).toEqual(['q2']);
    expect(renderStatus({ ...base, questions: [answered] })).not.toContain('Question q1');
  });
});

describe('answer hints', () => {
  it('V4 a question the run closed when it ended shows closed, with why, and no command to answer it (status and decisions)', () => {
    const closed: Question = { ...q1, status: 'closed', closedWhy: 'the run was cancelled' };
    const text = renderStatus({ ...base, status: 'CANCELLED', phase: 'finished', questions: [closed] });
    expect(text).toContain('Question q1 (clarification, goal_understanding): Which format? — closed: the run was cancelled');
    expect(text).not.toContain('replanner answer');
    const log = renderDecisions('r1', { records: [], dropped: 0, counters: emptyCounters(), questions: [closed] });
    expect(log).toContain('q1 (clarification, goal_understanding, closed;');
    expect(log).toContain('    closed: the run was cancelled');
    expect(log).not.toContain('replanner answer');
  });

  it('V4 a running task whose worker was lost says so under it', () => {
    const task = { id: 'a', title: 'write a', description: '', dependencies: [], state: 'RUNNING', workerLost: 'worker lost, retrying' };
    expect(renderStatus({ ...base, phase: 'execution', tasks: [task as never] })).toContain('  [~] a: write a\n      worker lost, retrying');
  });

  it('X7 a confirmation is answered yes or no; other questions with text', () => {
    expect(answerCommand('r1', q1)).toBe('npx replanner answer r1 q1 "<text>"');
    expect(answerCommand('r1', q2)).toBe('npx replanner answer r1 q2 yes (or no)');
    expect(questionLines('r1', { ...q1, kind: 'escalation' }).join('\n')).toContain('answer with an instruction for how to go on');
  });

  it('decisionLine names overrides and falls back to the LLM reasoning when there is no message', () => {
    const line = decisionLine({
      ...record,
      executed: false,
      result: 'skipped',
      outcome: 'override',
      override_reason: 'limit_reached',
      message: 'limit of 2 reached',
    });
    expect(line).toContain('override clarification_request');
    expect(line).toContain('not executed · skipped · override: limit_reached — limit of 2 reached');
    expect(decisionLine({ ...record, outcome: 'none', replan_type: undefined, target_phase: undefined })).toBe(
      'replan-1 · goal_understanding · none · confidence 0.90 · executed · pending — the output format is unclear',
    );
  });
});

describe('describeChanges: questions and decisions while watching', () => {
  it('announces a new question with its answer command once, then its answer', () => {
    const asked = { ...base, questions: [q1], lastDecision: record };
    const first = describeChanges(base, asked);
    expect(first).toContain('  question q1 (clarification): Which format? — answer: npx replanner answer r1 q1 "<text>"');
    expect(first.some((l) => l.startsWith('  decision replan-1'))).toBe(true);
    expect(describeChanges(asked, asked)).toEqual([]);
    const answered = { ...asked, questions: [{ ...q1, status: 'answered' as const, answer: 'CSV' }] };
    expect(describeChanges(asked, answered)).toEqual(['  question q1 answered: CSV']);
    expect(describeChanges(asked, { ...asked, questions: [] })).toEqual(['  question q1 is no longer waiting']);
    expect(describeChanges(asked, { ...asked, questions: [{ ...q1, status: 'timed_out' as const }] })).toEqual([
      '  question q1 timed out; the run goes on with its assumptions',
    ]);
  });

  it('reports a decision that completes', () => {
    const a = { ...base, lastDecision: record };
    expect(describeChanges(a, { ...a, lastDecision: { ...record, result: 'success' } })).toEqual(['  decision replan-1: success']);
  });

  it('X9 reports every decision made between two polls, not only the last one', () => {
    const r2 = { ...record, replan_id: 'replan-2', phase: 'task_decomposition' as const };
    const r3 = { ...record, replan_id: 'replan-3', phase: 'action_sequence' as const };
    const a = { ...base, recentDecisions: [record], lastDecision: record };
    const lines = describeChanges(a, { ...a, recentDecisions: [{ ...record, result: 'success' as const }, r2, r3], lastDecision: r3 });
    expect(lines).toEqual(['  decision replan-1: success', `  decision ${decisionLine(r2)}`, `  decision ${decisionLine(r3)}`]);
  });
});

describe('renderDecisions (X9)', () => {
  it('one block per record, counters with non-zero types, questions with status and answer', () => {
    const counters = emptyCounters();
    counters.total = 1;
    counters.byType.clarification_request = 1;
    const view: DecisionsView = {
      records: [
        { ...record, result: 'success', duration_ms: 1234, message: 'asked the user' },
        {
          ...record,
          replan_id: 'replan-2',
          phase: 'execution',
          outcome: 'ignore',
          executed: false,
          result: 'skipped',
          confidence: 0.2,
          override_reason: 'very_low_confidence',
          replan_type: 'retry',
          target_phase: 'execution',
        },
      ],
      dropped: 3,
      counters,
      questions: [
        { ...q1, status: 'answered', answer: 'CSV', answeredAt: '2024-01-01T00:01:00.000Z' },
        { ...q2, status: 'timed_out', assumptions: ['keep the plan'] },
        { ...q2, id: 'q3' },
      ],
    };
    const text = renderDecisions('r1', view);
    expect(text).toContain('Decisions of run r1: 2 (3 older record(s) dropped)');
    expect(text).toContain('replan-1 · goal_understanding · clarify clarification_request → goal_understanding');
    expect(text).toContain('  confidence 0.90 · executed yes · result success · 1234 ms');
    expect(text).toContain('  message: asked the user');
    expect(text).toContain('  reasoning: the output format is unclear');
    expect(text).toContain('replan-2 · execution · ignore retry → execution');
    expect(text).toContain('  confidence 0.20 · executed no · result skipped');
    expect(text).toContain('  override reason: very_low_confidence');
    expect(text).toContain('  at 2024-01-01T00:00:00.000Z');
    expect(text).toContain('Replans executed: 1 (clarification_request 1)');
    expect(text).not.toMatch(/goal_revision 0/);
    expect(text).toContain('q1 (clarification, goal_understanding, answered; asked 2024-01-01T00:00:00.000Z by replan-1): Which format?');
    expect(text).toContain('    answer: CSV (at 2024-01-01T00:01:00.000Z)');
    expect(text).toContain('    no answer in time; went on assuming: keep the plan');
    expect(text).toContain('    npx replanner answer r1 q3 yes (or no)');
  });

  it('each decision with its own time, under its own record (two task decisions of one execution phase)', () => {
    const at = (iso: string, id: string, task: string) => ({ ...record, replan_id: id, phase: 'execution' as const, task_id: task, timestamp: iso });
    const text = renderDecisions('r1', {
      records: [at('2024-01-01T00:00:05.000Z', 'replan-4', 'a'), at('2024-01-01T00:00:42.000Z', 'replan-5', 'b')],
      dropped: 0,
      counters: emptyCounters(),
      questions: [],
    });
    const blocks = text.split(/\n(?=replan-)/).slice(1);
    expect(blocks.map((b) => [/^replan-\d+ · execution \(task (\w+)\)/.exec(b)?.[1], /\n {2}at (\S+)/.exec(b)?.[1]])).toEqual([
      ['a', '2024-01-01T00:00:05.000Z'],
      ['b', '2024-01-01T00:00:42.000Z'],
    ]);
  });

  it('says so when nothing was decided yet', () => {
    const text = renderDecisions('r1', { records: [], dropped: 0, counters: emptyCounters(), questions: [] });
    expect(text).toContain('Decisions of run r1: 0');
    expect(text).toContain('(no replan decision recorded yet)');
    expect(text).toContain('Replans executed: 0');
  });
});

describe('consultations (P7)', () => {
  const choices = choicesFor('lost_confidence').map((c) => ({
    number: c.number,
    key: c.key,
    effect: c.effect,
    label: c.label.en,
    ja: c.label.ja,
    needsText: c.needsText,
  }));
  const consulting: RunStatus = {
    ...base,
    consultations: [
      {
        id: 's-c1',
        taskId: 's',
        kind: 'lost_confidence',
        iteration: 2,
        maxLoops: 8,
        message: 'lost',
        trigger: 'mood 0.10 < 0.5',
        choices,
        timeoutMinutes: 30,
      },
    ],
  };

  it("P7 status lists the pending consultation's own four choices (number|key, seed 002 Japanese — English) and how to answer", () => {
    const text = renderStatus(consulting);
    expect(text).toContain(
      [
        '  1|requirements. より詳細な要件や制約を教える — Give more detailed requirements or constraints (needs your text)',
        '  2|split. 問題を分割して段階的に進める — Split the problem and proceed step by step',
        '  3|consult. 別の専門家や資料を参照する — Consult another expert or reference material (needs your text)',
        '  4|continue. 現在のアプローチを続ける（上限を +5 回） — Continue with the current approach (limit +5 loops)',
        '  answer: npx replanner consult r1 s <1-4|key> ["text"]',
      ].join('\n'),
    );
  });

  it('P7 watch announces a new consultation once, with its choices', () => {
    const lines = describeChanges(base, consulting);
    expect(lines).toContain('  consultation s-c1 for task s (lost_confidence) — answer: npx replanner consult r1 s <1-4|key> ["text"]');
    expect(lines).toContain(
      '    1|requirements Give more detailed requirements or constraints (+text) · 2|split Split the problem and proceed step by step · 3|consult Consult another expert or reference material (+text) · 4|continue Continue with the current approach (limit +5 loops)',
    );
    expect(describeChanges(consulting, consulting).filter((l) => l.includes('consultation'))).toEqual([]);
  });
});

describe('O1 PAUSED in status and watch', () => {
  const paused: RunStatus = {
    ...base,
    status: 'PAUSED',
    pause: { kind: 'user', by: 'user', reason: 'waiting for review', since: '2024-01-01T00:00:00.000Z' },
  };
  it('O1 status shows PAUSED with who, since when, the reason and how to resume', () => {
    const text = renderStatus(paused);
    expect(text).toContain('Run r1: PAUSED');
    expect(text).toContain('PAUSED by user since 2024-01-01T00:00:00.000Z: waiting for review — resume: npx replanner resume r1');
    expect(renderStatus(base)).not.toContain('PAUSED');
  });
  it('O1 watch says when the run pauses and resumes, once', () => {
    expect(describeChanges(base, paused)).toEqual([
      'status: PAUSED',
      '  PAUSED by user since 2024-01-01T00:00:00.000Z: waiting for review — resume: npx replanner resume r1',
    ]);
    expect(describeChanges(paused, paused)).toEqual([]);
    expect(describeChanges(paused, base)).toEqual(['status: RUNNING']);
  });
});

describe('O2 LLM pauses in status and watch', () => {
  const user = { kind: 'user' as const, by: 'user' as const, since: '2024-01-01T00:01:00.000Z' };
  const outage = {
    kind: 'llm_outage' as const,
    by: 'llm' as const,
    reason: 'LLM unavailable since 2024-01-01T00:00:00.000Z: connect ECONNREFUSED',
    since: '2024-01-01T00:00:00.000Z',
  };
  const rejected = {
    kind: 'llm_rejected' as const,
    by: 'llm' as const,
    reason: 'LLM access rejected: set the right key',
    since: '2024-01-01T00:02:00.000Z',
  };
  const withPauses = (...pauses: NonNullable<RunStatus['pauses']>): RunStatus => ({ ...base, status: 'PAUSED', pause: pauses[0], pauses });

  it('O2 status shows each pause: the outage resumes by itself, a rejection names the fix then resume', () => {
    expect(renderStatus(withPauses(outage))).toContain(
      'PAUSED (llm_outage) since 2024-01-01T00:00:00.000Z: LLM unavailable since 2024-01-01T00:00:00.000Z: connect ECONNREFUSED — resumes by itself when the LLM answers',
    );
    expect(renderStatus(withPauses(rejected))).toContain(
      'PAUSED (llm_rejected) since 2024-01-01T00:02:00.000Z: LLM access rejected: set the right key — fix it, then: npx replanner resume r1',
    );
    const both = renderStatus(withPauses(user, outage));
    expect(both).toContain('PAUSED by user since 2024-01-01T00:01:00.000Z — resume: npx replanner resume r1');
    expect(both).toContain('PAUSED (llm_outage)');
  });

  it('O2 watch names a pause added during another, once, and says nothing when the outage ends but the user pause stays', () => {
    expect(describeChanges(withPauses(outage), withPauses(user, outage))).toEqual([
      '  PAUSED by user since 2024-01-01T00:01:00.000Z — resume: npx replanner resume r1',
    ]);
    expect(describeChanges(withPauses(user, outage), withPauses(user))).toEqual([]);
  });
});
