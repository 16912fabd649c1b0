// The CLI's human views of status, decisions and questions (pure functions, no Temporal).
import { answerCommand, decisionLine, pendingQuestions, questionLines, renderDecisions, renderStatus } from '../../src/client/render';
import { describeChanges } from '../../src/client/render-events';
import type { DecisionRecord } from '../../src/domain/replan';
import { choicesFor } from '../../src/domain/pacemaker';
import { emptyCounters } from '../../src/domain/replan/limits';
import { clockTime } from '../../src/domain/words/pauses';
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
  text: 'The AI proposes to retry the task with low confidence (40%). (answer yes or no)',
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
  it('V8 shows the plan changes, the last decision in one line and each pending question with how to answer it', () => {
    const text = renderStatus({
      ...base,
      replans: { total: 2, byPhase: { goal_understanding: 1, execution: 1 } },
      lastDecision: record,
      questions: [q1, q2],
    });
    // An older run counted by phase only: its total as it is.
    expect(text).toContain('Plan changes: 2');
    expect(text).toMatch(
      /^Last decision: decision 1 · Goal · asked you a question · waiting for your answer · confidence 0\.90 — the output format is unclear$/m,
    );
    expect(text).toContain('Question q1 (clarification, Goal phase): Which format?');
    expect(text).toContain('goes on after 30 min without an answer, assuming: JSON');
    expect(text).toContain('npx replanner answer r1 q1 "<text>"');
    expect(text).toContain('Question q2 (confirmation, Execution phase)');
    expect(text).toContain('answer yes or no: npx replanner answer r1 q2 yes (or no)');
    expect(text).toContain('the run waits for the answer');
    // one line for the last decision
    expect(text.split('\n').filter((l) => l.startsWith('Last decision')).length).toBe(1);
  });

  it('V8 one name per kind of plan change: status counts them by kind, as decisions does; an execution decision names its task', () => {
    const text = renderStatus({
      ...base,
      replans: { total: 1, byType: { task_redecomposition: 1 }, byPhase: { task_decomposition: 1 } },
      lastDecision: noTarget({ ...record, phase: 'execution', task_id: 'test', outcome: 'none' }),
    });
    expect(text).toContain('Plan changes: 1 (split the tasks again 1)');
    expect(text).not.toContain('task_decomposition 1');
    expect(text).toMatch(/^Last decision: decision 1 · Execution \(task test\) · plan kept · /m);
    const decisions = renderDecisions('r1', {
      records: [{ ...record, phase: 'execution', task_id: 'test' }],
      dropped: 0,
      counters: { ...emptyCounters(), total: 1, byType: { ...emptyCounters().byType, task_redecomposition: 1 } },
      questions: [],
    });
    expect(decisions).toContain('decision 1 · Execution (task test) · ');
    expect(decisions).toContain('Plan changes: 1 (split the tasks again 1)');
  });

  it('V8 a run with no tasks yet says so, not "0/0 tasks done"', () => {
    expect(renderStatus({ ...base, tasks: [] }).split('\n')[0]).toContain(' · no tasks yet · ');
    expect(renderStatus({ ...base, tasks: [], status: 'CANCELLED', phase: 'finished' }).split('\n')[0]).toContain(' · no tasks · ');
  });

  it('V8 shows Plan changes: 0 when the run reports counters, nothing when it does not (older runs)', () => {
    expect(renderStatus({ ...base, replans: { total: 0, byPhase: {} } })).toContain('Plan changes: 0');
    const old = renderStatus(base);
    expect(old).not.toContain('Plan changes');
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
    const text = renderStatus({ ...base, status: 'CANCELLED', phase: 'finished', questions: [closed], lastDecision: record });
    expect(text).toContain('Question q1 (clarification, Goal phase): Which format? — closed: the run was cancelled');
    // The decision that asked no longer waits: the run that asked has ended.
    expect(text).toContain('Last decision: decision 1 · Goal · asked you a question · never answered: the run was cancelled');
    expect(text).not.toContain('waiting for your answer');
    expect(text).not.toContain('replanner answer');
    const log = renderDecisions('r1', { records: [], dropped: 0, counters: emptyCounters(), questions: [closed] });
    expect(log).toContain('q1 (clarification, Goal phase, closed;');
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

  it('V8 decisionLine says why a wanted change was refused and falls back to the LLM reasoning when there is no message', () => {
    const line = decisionLine({
      ...record,
      executed: false,
      result: 'skipped',
      outcome: 'override',
      replan_type: 'task_redecomposition',
      override_reason: 'phase_limit',
      message: 'limit of 2 reached',
    });
    expect(line).toBe(
      'decision 1 · Goal · plan kept (it wanted to split the tasks again, but that kind of change reached its limit) · confidence 0.90 — limit of 2 reached',
    );
    expect(decisionLine({ ...record, executed: false, result: 'skipped', outcome: 'none', replan_type: undefined, target_phase: undefined })).toBe(
      'decision 1 · Goal · plan kept · confidence 0.90 — the output format is unclear',
    );
  });
});

describe('describeChanges: questions and decisions while watching', () => {
  it('announces a new question with its answer command once, then its answer', () => {
    const asked = { ...base, questions: [q1], lastDecision: record };
    const first = describeChanges(base, asked);
    expect(first).toContain('  question q1 (clarification): Which format? — answer: npx replanner answer r1 q1 "<text>"');
    expect(first.some((l) => l.startsWith('  decision 1 · Goal · asked you a question'))).toBe(true);
    expect(describeChanges(asked, asked)).toEqual([]);
    const answered = { ...asked, questions: [{ ...q1, status: 'answered' as const, answer: 'CSV' }] };
    expect(describeChanges(asked, answered)).toEqual(['  question q1 answered: CSV']);
    expect(describeChanges(asked, { ...asked, questions: [] })).toEqual(['  question q1 is no longer waiting']);
    expect(describeChanges(asked, { ...asked, questions: [{ ...q1, status: 'timed_out' as const }] })).toEqual([
      '  question q1 timed out; the run goes on with its assumptions',
    ]);
  });

  it('V4 watching an ended run (no worker: status reads only) never says its question waits for an answer', () => {
    const closed: Question = { ...q1, status: 'closed', closedWhy: 'the run was terminated' };
    const ended = {
      ...base,
      status: 'TERMINATED' as const,
      phase: 'finished' as const,
      questions: [closed],
      recentDecisions: [record],
      lastDecision: record,
    };
    const lines = describeChanges(undefined, ended).join('\n');
    expect(lines).toContain('decision 1 · Goal · asked you a question · never answered: the run was terminated');
    expect(lines).not.toContain('waiting for your answer');
    expect(lines).not.toContain('replanner answer');
  });

  it('reports a decision that completes', () => {
    const a = { ...base, lastDecision: record };
    expect(describeChanges(a, { ...a, lastDecision: { ...record, result: 'success' } })).toEqual([
      '  decision 1 · Goal · asked you a question · answered · confidence 0.90 — the output format is unclear',
    ]);
  });

  it('X9 reports every decision made between two polls, not only the last one', () => {
    const r2 = { ...record, replan_id: 'replan-2', phase: 'task_decomposition' as const };
    const r3 = { ...record, replan_id: 'replan-3', phase: 'action_sequence' as const };
    const a = { ...base, recentDecisions: [record], lastDecision: record };
    const lines = describeChanges(a, { ...a, recentDecisions: [{ ...record, result: 'success' as const }, r2, r3], lastDecision: r3 });
    expect(lines).toEqual([`  ${decisionLine({ ...record, result: 'success' })}`, `  ${decisionLine(r2)}`, `  ${decisionLine(r3)}`]);
  });
});

describe('renderDecisions (X9)', () => {
  it('V8 one block per decision, the plan changes made (an answered question is none), questions with status and answer', () => {
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
    expect(text).toContain('decision 1 · Goal · asked you a question · answered');
    expect(text).toContain('  confidence 0.90 · took 1234 ms');
    expect(text).toContain('  message: asked the user');
    expect(text).toContain('  reasoning: the output format is unclear');
    expect(text).toContain('decision 2 · Execution · plan kept (it wanted to retry the task, but the model was too unsure)');
    expect(text).toContain('  confidence 0.20\n');
    expect(text).toContain('  at 2024-01-01T00:00:00.000Z');
    expect(text).toContain('Plan changes: 0\n');
    expect(text).not.toMatch(/\breplan(-\d+|s)?\b/i);
    expect(text).toContain('q1 (clarification, Goal phase, answered; asked 2024-01-01T00:00:00.000Z by decision 1): Which format?');
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
    const blocks = text.split(/\n(?=decision )/).slice(1);
    expect(blocks.map((b) => [/^decision \d+ · Execution \(task (\w+)\)/.exec(b)?.[1], /\n {2}at (\S+)/.exec(b)?.[1]])).toEqual([
      ['a', '2024-01-01T00:00:05.000Z'],
      ['b', '2024-01-01T00:00:42.000Z'],
    ]);
  });

  it('says so when nothing was decided yet', () => {
    const text = renderDecisions('r1', { records: [], dropped: 0, counters: emptyCounters(), questions: [] });
    expect(text).toContain('Decisions of run r1: 0');
    expect(text).toContain('(no decision about the plan yet)');
    expect(text).toContain('Plan changes: 0');
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

  it('V9 status shows the consultation as seed 002 lays it out: title, situation, numbered choices, how to answer', () => {
    const text = renderStatus(consulting);
    expect(text).toContain(
      [
        '🦆 Duck Pacemaker: task s asks how to go on',
        '',
        'lost',
        '',
        'How should it go on?',
        '1. Give more detailed requirements or constraints (with your text)',
        '2. Split the problem and proceed step by step',
        '3. Consult another expert or reference material (with your text)',
        '4. Continue with the current approach (up to 5 more attempts)',
        '',
        'Choose (1-4): npx replanner consult r1 s <number> ["text"]',
      ].join('\n'),
    );
    expect(text).not.toMatch(/lost_confidence|\|requirements/);
  });

  it("V9 a Japanese instruction gets seed 002's own Japanese words", () => {
    const ja: RunStatus = {
      ...consulting,
      instruction: 'APIの短いガイドを書いてください',
      consultations: consulting.consultations!.map((c) => ({ ...c, messageJa: 'AIが現在の作業プランに自信を失っています。' })),
    };
    expect(renderStatus(ja)).toContain(
      [
        '🦆 Duck Pacemaker からの相談（タスク s）',
        '',
        'AIが現在の作業プランに自信を失っています。',
        '',
        'どのように進めますか？',
        '1. より詳細な要件や制約を教える（説明を添えて）',
        '2. 問題を分割して段階的に進める',
        '3. 別の専門家や資料を参照する（説明を添えて）',
        '4. 現在のアプローチを続ける（上限を +5 回）',
        '',
        '選択してください (1-4): npx replanner consult r1 s <number> ["text"]',
      ].join('\n'),
    );
  });

  it('V9 watch announces a new consultation once, laid out the same way', () => {
    const lines = describeChanges(base, consulting);
    expect(lines).toEqual(
      expect.arrayContaining([
        '  🦆 Duck Pacemaker: task s asks how to go on',
        '    lost',
        '    How should it go on?',
        '    1. Give more detailed requirements or constraints (with your text)',
        '    4. Continue with the current approach (up to 5 more attempts)',
        '    Choose (1-4): npx replanner consult r1 s <number> ["text"]',
      ]),
    );
    expect(describeChanges(consulting, consulting).filter((l) => l.includes('Duck'))).toEqual([]);
  });
});

describe('O1 PAUSED in status and watch', () => {
  const paused: RunStatus = {
    ...base,
    status: 'PAUSED',
    pause: { kind: 'user', by: 'user', reason: 'waiting for review', since: '2024-01-01T00:00:00.000Z' },
  };
  const at = (iso: string) => clockTime(iso, 'local');
  it('O1 status shows PAUSED with who, since when, the reason and how to resume', () => {
    const text = renderStatus(paused);
    expect(text).toContain('Run r1: PAUSED');
    expect(text).toContain(`PAUSED: paused by you since ${at('2024-01-01T00:00:00.000Z')} (waiting for review) — to go on: npx replanner resume r1`);
    expect(renderStatus(base)).not.toContain('PAUSED');
  });
  it('O1 watch says when the run pauses and resumes, once', () => {
    expect(describeChanges(base, paused)).toEqual([
      'status: PAUSED',
      `  PAUSED: paused by you since ${at('2024-01-01T00:00:00.000Z')} (waiting for review) — to go on: npx replanner resume r1`,
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
  const at = (iso: string) => clockTime(iso, 'local');

  it('O2 V8 status shows each pause in words: the outage goes on by itself, a rejection names the fix then resume', () => {
    expect(renderStatus(withPauses(outage))).toContain(
      `PAUSED: the model is not answering since ${at(outage.since)} (connection refused); it is tried again by itself, at most a minute apart — to try now: npx replanner resume r1`,
    );
    expect(renderStatus(withPauses(rejected))).toContain(
      `PAUSED: the model refuses the run's requests since ${at(rejected.since)}: set the right key — fix it, then: npx replanner resume r1`,
    );
    const both = renderStatus(withPauses(user, outage));
    expect(both).toContain(`PAUSED: paused by you since ${at(user.since)} — to go on: npx replanner resume r1`);
    expect(both).toContain('PAUSED: the model is not answering');
    expect(both).not.toMatch(/llm_outage|LLM unavailable/);
  });

  it('O2 watch names a pause added during another, once, and says nothing when the outage ends but the user pause stays', () => {
    expect(describeChanges(withPauses(outage), withPauses(user, outage))).toEqual([
      `  PAUSED: paused by you since ${at(user.since)} — to go on: npx replanner resume r1`,
    ]);
    expect(describeChanges(withPauses(user, outage), withPauses(user))).toEqual([]);
  });
});
