// V8: what the CLI prints speaks the README's words. A run full of machine names (phases, decision
// outcomes, replan types, pause kinds, Temporal's failures) is rendered every way a person reads
// it — status, decisions, watch's events and changes, the Web UI's details, the comment —
// and none of those names comes out; a decision that keeps the plan is never called a replan.
import { decisionLine, renderDecisions, renderStatus } from '../../src/client/render';
import { describeChanges, runEventLines } from '../../src/client/render-events';
import { eventPrinter } from '../../src/client/watch';
import type { LlmCallInFlight } from '../../src/client/llm-calls';
import { runDetails } from '../../src/domain/run/checklist';
import type { DecisionRecord } from '../../src/domain/replan';
import { emptyCounters } from '../../src/domain/replan/limits';
import type { RunEventBody } from '../../src/domain/run/event-log';
import type { Question, RunStatus } from '../../src/workflows/messages';

/** Names only the code knows: none may reach a person. */
const INTERNAL =
  /\b(goal_understanding|task_decomposition|action_sequence|llm_outage|llm_rejected|llm_unsupported|llm_slow|host_offline|no_progress|lost_confidence|clarification_request|partial_replan|task_redecomposition|action_regeneration|goal_revision|very_low_confidence|phase_limit|global_limit|judgePlanQuality|workerStep|worker_step|quality_judge|rung)\b|heartbeat|replan-\d|no replan|LLM unavailable/i;

const rec = (over: Partial<DecisionRecord>): DecisionRecord => ({
  replan_id: 'replan-1',
  phase: 'goal_understanding',
  llm_decision: { reasoning: 'why' },
  confidence: 0.9,
  executed: false,
  timestamp: '2026-01-01T00:00:00.000Z',
  result: 'skipped',
  outcome: 'none',
  ...over,
});

const records: DecisionRecord[] = [
  rec({
    replan_id: 'replan-1',
    outcome: 'clarify',
    executed: true,
    result: 'success',
    replan_type: 'clarification_request',
    target_phase: 'goal_understanding',
  }),
  rec({ replan_id: 'replan-2', phase: 'task_decomposition' }),
  rec({
    replan_id: 'replan-3',
    phase: 'action_sequence',
    outcome: 'ignore',
    replan_type: 'action_regeneration',
    override_reason: 'very_low_confidence',
  }),
  rec({
    replan_id: 'replan-4',
    phase: 'execution',
    task_id: 'a',
    outcome: 'replan',
    executed: true,
    result: 'success',
    replan_type: 'task_redecomposition',
    target_phase: 'task_decomposition',
  }),
  rec({ replan_id: 'replan-5', phase: 'reflection', outcome: 'override', replan_type: 'partial_replan', override_reason: 'global_limit' }),
];

const question: Question = {
  id: 'q1',
  kind: 'clarification',
  phase: 'goal_understanding',
  replanId: 'replan-1',
  text: 'Which format?',
  assumptions: [],
  timeoutMinutes: 30,
  askedAt: '2026-01-01T00:00:00.000Z',
  status: 'pending',
};

const counters = { ...emptyCounters(), total: 2, byType: { ...emptyCounters().byType, clarification_request: 1, task_redecomposition: 1 } };

const status: RunStatus = {
  runId: 'r1',
  instruction: 'write a report',
  workspace: '/w',
  phase: 'task_decomposition',
  status: 'PAUSED',
  tasks: [],
  phaseRuns: { goal_understanding: 2, task_decomposition: 1 },
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, calls: 1 },
  blocked: [],
  error: 'task_decomposition: the plan was rejected by the quality judge: Quality judge failed: activity Heartbeat timeout',
  replans: { total: counters.total, byType: { clarification_request: 1, task_redecomposition: 1 }, byPhase: { goal_understanding: 1, execution: 1 } },
  lastDecision: records[1]!,
  recentDecisions: records,
  questions: [question],
  pauses: [
    {
      kind: 'llm_outage',
      by: 'llm',
      reason:
        'LLM unavailable since 2026-01-01T00:00:00.000Z: LLM unavailable: quality_judge request to http://h/v1 could not connect or timed out: (connect ECONNREFUSED)',
      since: '2026-01-01T00:00:00.000Z',
    },
    {
      kind: 'llm_rejected',
      by: 'llm',
      reason: 'LLM access rejected: worker_step request to http://h/v1 was rejected with HTTP 401',
      since: '2026-01-01T00:00:00.000Z',
    },
  ],
};

const events: RunEventBody[] = [
  { kind: 'phase', phase: 'goal_understanding', n: 2 },
  ...records.map((r): RunEventBody => ({
    kind: 'decision',
    replanId: r.replan_id,
    phase: r.phase,
    ...(r.task_id ? { taskId: r.task_id } : {}),
    outcome: r.outcome!,
    ...(r.replan_type ? { replanType: r.replan_type } : {}),
    ...(r.target_phase ? { targetPhase: r.target_phase } : {}),
    ...(r.override_reason ? { overrideReason: r.override_reason } : {}),
    confidence: r.confidence,
    executed: r.executed,
    result: r.result,
    noop: r.outcome === 'none',
  })),
  {
    kind: 'decision',
    phase: 'execution',
    taskId: 'a',
    outcome: 'replan wanted',
    replanType: 'partial_replan',
    confidence: 0.7,
    executed: false,
    result: 'pending',
    noop: false,
  },
  {
    kind: 'decision_result',
    replanId: 'replan-4',
    taskId: 'a',
    outcome: 'replan',
    replanType: 'task_redecomposition',
    executed: true,
    result: 'success',
    noop: false,
  },
  { kind: 'question', questionId: 'q1', questionKind: 'clarification', phase: 'goal_understanding', text: 'Which format?', assumptions: [] },
  {
    kind: 'consultation',
    consultationId: 'a-c1',
    taskId: 'a',
    consultationKind: 'no_progress',
    message: 'stuck',
    language: 'en',
    choices: [{ number: 1, label: 'Stop the work', needsText: false }],
  },
  { kind: 'consultation', consultationId: 'a-c2', taskId: 'a', consultationKind: 'lost_confidence', message: 'older event' },
  { kind: 'consultation_closed', consultationId: 'a-c1', taskId: 'a' },
  ...status.pauses!.map((p): RunEventBody => ({
    kind: 'pause',
    pauseKind: p.kind,
    by: p.by,
    ...(p.reason ? { reason: p.reason } : {}),
    since: p.since,
  })),
  { kind: 'resume', pauseKind: 'llm_outage' },
  { kind: 'resume', pauseKind: 'host_offline' },
  { kind: 'run_end', status: 'FAILED', error: status.error! },
];

describe('V8 human output speaks the README’s words', () => {
  it('V8 status, decisions, watch (events and changes) and the Web UI details carry no internal name', () => {
    const texts = [
      renderStatus(status),
      renderDecisions('r1', { records, dropped: 0, counters, questions: [question] }),
      ...events.flatMap((e, i) => runEventLines({ ...e, seq: i + 1, time: '2026-01-01T00:00:00.000Z' }, 'r1', true)),
      ...describeChanges(undefined, status),
      runDetails({ tasks: [], phase: 'task_decomposition' }, 'RUNNING'),
    ];
    const found = texts.flatMap((t) => t.split('\n')).filter((l) => INTERNAL.test(l));
    expect(found).toEqual([]);
    expect(renderStatus(status)).toContain('phase Tasks');
  });

  it('V8 a decision that keeps the plan is not called a replan; only plan changes carried out are counted', () => {
    const kept = records.filter((r) => !r.executed).map((r) => decisionLine(r));
    for (const line of kept) {
      expect(line).toMatch(/^decision \d · \S+.* · plan kept/);
      expect(line).not.toMatch(/\breplan/i);
    }
    // One question asked and one change made: one plan change.
    expect(renderStatus(status)).toContain('Plan changes: 1 (split the tasks again 1)');
    expect(renderDecisions('r1', { records, dropped: 0, counters, questions: [] })).toContain('Plan changes: 1 (split the tasks again 1)');
  });

  it("V8 watch tells a model that does not answer by the run's pause, once, not at each retry of each call", () => {
    const lines: string[] = [];
    const p = eventPrinter((l) => lines.push(l), { runId: 'r1' });
    const failing = (attempt: number): LlmCallInFlight => ({
      workflowId: 'run-r1.task-a',
      activityType: 'workerStep',
      attempt,
      lastFailure: 'LLM unavailable: worker_step request to http://h/v1 could not connect or timed out: (connect ECONNREFUSED)',
      outage: true,
      line: 'the worker: waiting to try again',
    });
    for (let attempt = 2; attempt <= 6; attempt++) p.onLlmCalls([failing(attempt)]);
    expect(lines).toEqual([]);
    // A call that stalls is no outage: it is told, in words.
    p.onLlmCalls([
      {
        workflowId: 'run-r1',
        activityType: 'decomposeTasks',
        attempt: 2,
        lastFailure: 'the reply stalled',
        line: 'planning the tasks: waiting to try again (try 2; the last one: the reply stalled)',
      },
    ]);
    expect(lines).toEqual(['  … planning the tasks: waiting to try again (try 2; the last one: the reply stalled)']);
  });
});
