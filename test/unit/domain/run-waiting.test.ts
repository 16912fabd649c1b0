// V1 / X14 / P7 / O1: what a run waits for from a person and how to give it (src/domain/run/waiting.ts):
// the ReplannerStatus it shows (displayStatus), the head of its current details, the one line of
// `list`, and the exact lines and JSON the three ways take.
import { applyLlmTrouble, displayStatus, pauseRun } from '../../../src/domain/run/pause';
import { askQuestions, answerQuestion, applyConsultation } from '../../../src/domain/run/questions';
import { completeRun } from '../../../src/domain/run/phases';
import { initialRunState, type PendingConsultation, type RunState } from '../../../src/domain/run/state';
import { statusView } from '../../../src/domain/run/views';
import { ANSWER_SIGNAL, pausedItems, taskWorkflowIdOf, waitingItems, waitingLine, waitingMarkdown } from '../../../src/domain/run/waiting';
import { TaskState, type TaskRecord } from '../../../src/domain/types';
import { answerSignal, parsePayload, RunAnswerSchema } from '../../../src/workflows/messages';
import { taskWorkflowId } from '../../../src/workflows/execution';
import { taskSpec } from '../../support/tasks';
import { clockTime } from '../../../src/domain/words/pauses';

const AT = '2026-03-01T10:00:00.000Z';
const run = (): RunState => initialRunState({ runId: 'r1', instruction: 'do it', workspace: '/ws' });

function asked(s: RunState, kind: 'clarification' | 'confirmation', text: string, timeoutMinutes: number | null = 30): RunState {
  return askQuestions(s, { kind, phase: 'goal_understanding', replanId: 'rp-1', texts: [text], assumptions: ['JSON'], timeoutMinutes, askedAt: AT })
    .state;
}

const task = (id: string, state: TaskState): TaskRecord => ({ ...taskSpec(id, { profile: 'standard' as TaskRecord['profile'] }), state });

function consulting(): RunState {
  const s: RunState = { ...run(), phase: 'execution', phaseRuns: { execution: 2 }, tasks: [task('t2', TaskState.RUNNING)] };
  const c: PendingConsultation = {
    id: 't2-c1',
    taskId: 't2',
    kind: 'no_progress',
    iteration: 6,
    maxLoops: 8,
    message: 'The worker repeats itself.',
    trigger: 'no_progress',
    choices: [
      { number: 1, key: 'stop', effect: 'stop', label: 'Stop the work', ja: '作業を中止する', needsText: false },
      { number: 2, key: 'guidance', effect: 'guidance', label: 'Provide additional instructions', ja: '追加の指示', needsText: true },
    ],
    timeoutMinutes: 15,
  };
  const r = applyConsultation(s, { taskId: 't2', consultationId: 't2-c1', consultation: c });
  if (!r.ok) throw new Error(r.reason);
  return r.state;
}

describe('V1 the ReplannerStatus a run shows', () => {
  it.each([
    ['running, nothing pending', 'RUNNING', run()],
    ['a question pending', 'WAITING', asked(run(), 'clarification', 'Which format?')],
    ['a consultation pending', 'WAITING', consulting()],
    ['paused by the user', 'PAUSED', (pauseRun(run(), { at: AT }) as { state: RunState }).state],
    [
      'paused and a question pending: the answer comes first',
      'WAITING',
      (pauseRun(asked(run(), 'clarification', 'q?'), { at: AT }) as { state: RunState }).state,
    ],
    ['the question answered', 'RUNNING', answerQuestion(asked(run(), 'clarification', 'q?'), { questionId: 'q1', answer: 'yes' }, AT)],
    ['ended DONE with a question left', 'DONE', completeRun(asked(run(), 'clarification', 'q?'))],
  ])('V1 %s: %s', (_what, shown, s) => {
    expect(displayStatus(s)).toBe(shown);
  });
});

describe('X14 P7 what waits and how to answer it', () => {
  it('X14 a question: its text, default, and the exact replanner, temporal and Web UI answers', () => {
    const [w] = waitingItems(asked(run(), 'clarification', 'Which output format?'));
    expect(w).toEqual({
      kind: 'question',
      id: 'q1',
      title: 'question q1 (clarification)',
      text: 'Which output format?',
      choices: [],
      otherwise: `If nobody answers within 30 min of ${AT}, the run goes on, assuming: JSON.`,
      ways: {
        cli: 'npx replanner answer r1 q1 "<your answer>"',
        temporal: `npx replanner temporal workflow update execute --workflow-id run-r1 --name answerClarification --input '{"questionId":"q1","answer":"<your answer>"}'`,
        signal: { name: 'answer', input: '{"questionId":"q1","answer":"<your answer>"}' },
      },
    });
    // The Web UI's input is exactly what the run's `answer` signal takes.
    expect(parsePayload(RunAnswerSchema, JSON.parse(w!.ways.signal.input!))).toEqual({
      ok: true,
      value: { questionId: 'q1', answer: '<your answer>' },
    });
    expect(answerSignal.name).toBe(ANSWER_SIGNAL);
  });

  it('X7 a confirmation takes yes or no, and the lines say yes; one with no timeout waits', () => {
    const [w] = waitingItems(asked(run(), 'confirmation', "Replan the goal (it's risky)?", null));
    expect(w!.choices).toEqual(['yes', 'no']);
    expect(w!.otherwise).toBe('The run waits until it is answered.');
    expect(w!.ways.cli).toBe('npx replanner answer r1 q1 "yes"');
    expect(w!.ways.signal.input).toBe('{"questionId":"q1","answer":"yes"}');
  });

  it('X14 a single quote in the JSON is escaped for the shell line', () => {
    const s = asked(run(), 'clarification', 'q?');
    const [w] = waitingItems({ ...s, runId: "it's" });
    expect(w!.ways.temporal).toContain(`--workflow-id run-it's`);
    expect(w!.ways.temporal.endsWith(`--input '{"questionId":"q1","answer":"<your answer>"}'`)).toBe(true);
  });

  it('P7 V9 a consultation: titled and numbered as seed 002 shows it, and the task workflow of this execution round', () => {
    const [w] = waitingItems(consulting());
    expect(w).toMatchObject({
      kind: 'consultation',
      id: 't2-c1',
      title: '🦆 Duck Pacemaker: task t2 asks how to go on',
      question: 'How should it go on?',
      choices: ['1. Stop the work', '2. Provide additional instructions (with your text)'],
      ways: {
        cli: 'npx replanner consult r1 t2 <choice> ["<text>"]',
        temporal: `npx replanner temporal workflow update execute --workflow-id run-r1.task-t2.2 --name answerConsultation --input '{"choice":1}'`,
        signal: { name: 'answer', input: '{"taskId":"t2","choice":1}' },
      },
    });
    expect(taskWorkflowIdOf('run-r1', 't2', 2)).toBe(taskWorkflowId('run-r1', 't2', 2));
    expect(parsePayload(RunAnswerSchema, JSON.parse(w!.ways.signal.input!)).ok).toBe(true);
  });

  it("V9 the Web UI shows the consultation as seed 002 lays it out, in the run's language", () => {
    const ja: RunState = { ...consulting(), instruction: 'パーサーを直してください' };
    ja.consultations = ja.consultations.map((c) => ({ ...c, messageJa: '進捗がありません。' }));
    const md = waitingMarkdown(ja).split('\n');
    expect(md.slice(0, 9)).toEqual([
      '**Waiting for your answer**: 🦆 Duck Pacemaker からの相談（タスク t2）',
      '',
      '> 進捗がありません。',
      '',
      'どのように進めますか？',
      '',
      '1. 作業を中止する',
      '2. 追加の指示（説明を添えて）',
      '',
    ]);
    expect(md).toContain('- `npx replanner consult r1 t2 <choice> ["<text>"]`');
  });

  it('S2 the answer signal takes exactly a question answer or a consultation answer', () => {
    for (const bad of [
      null,
      {},
      { questionId: 'q1' },
      { questionId: 'q1', answer: 'a', extra: 1 },
      { taskId: 't2' },
      { taskId: 't2', choice: {} },
      'q1',
    ]) {
      expect(parsePayload(RunAnswerSchema, bad).ok).toBe(false);
    }
    expect(parsePayload(RunAnswerSchema, { taskId: 't2', choice: 'guidance', guidance: 'use lib/x' }).ok).toBe(true);
  });

  it('V1 nothing waits on a finished run', () => {
    expect(waitingItems(completeRun(asked(run(), 'clarification', 'q?')))).toEqual([]);
    expect(waitingMarkdown(completeRun(asked(run(), 'clarification', 'q?')))).toBe('');
  });
});

describe('O1 a paused run: its reason and how to resume', () => {
  it('O1 the user pause: resume three ways', () => {
    const s = (pauseRun(run(), { reason: 'lunch', at: AT }) as { state: RunState }).state;
    expect(pausedItems(s)).toEqual([
      {
        title: `paused by you since ${clockTime(AT)} (lunch)`,
        ways: {
          cli: 'npx replanner resume r1',
          temporal: 'npx replanner temporal workflow update execute --workflow-id run-r1 --name resume',
          signal: { name: 'resumeSignal' },
        },
      },
    ]);
    expect(waitingLine(s)).toBe(`paused by you since ${clockTime(AT)} (lunch) — npx replanner resume r1`);
    expect(statusView(s).waiting).toBe(waitingLine(s));
  });

  it('O2 V8 an LLM outage resumes by itself: no resume offered, and it is said in words', () => {
    const r = applyLlmTrouble(run(), { trouble: 'unavailable', error: 'ECONNREFUSED' }, AT);
    if (!r.ok) throw new Error(r.reason);
    const [p] = pausedItems(r.state);
    expect(p!.ways).toBeUndefined();
    expect(p!.title).toBe(
      `the model is not answering since ${clockTime(AT)} (connection refused); it is tried again by itself, at most a minute apart`,
    );
    expect(p!.ends).toBe('it goes on by itself when the model answers again');
    expect(waitingMarkdown(r.state)).toContain('It is not resumed by hand: it goes on by itself when the model answers again.');
    expect(waitingMarkdown(r.state)).not.toMatch(/LLM|llm_outage/);
  });
});

describe('V1 the head of the current details', () => {
  it('V1 leads with the question, its default and the three ways, then the pause', () => {
    const s = (pauseRun(asked(run(), 'clarification', 'Which output format?'), { at: AT }) as { state: RunState }).state;
    const md = waitingMarkdown(s);
    expect(md.split('\n')).toEqual([
      '**Waiting for your answer**: question q1 (clarification)',
      '',
      '> Which output format?',
      '',
      `If nobody answers within 30 min of ${AT}, the run goes on, assuming: JSON.`,
      '',
      'Answer it in one of three ways:',
      '- here in the Web UI: **More Actions → Send a Signal** (top right of this page), signal name `answer`, data `{"questionId":"q1","answer":"<your answer>"}`, encoding json/plain',
      '- `npx replanner answer r1 q1 "<your answer>"`',
      '- `npx replanner temporal workflow update execute --workflow-id run-r1 --name answerClarification --input \'{"questionId":"q1","answer":"<your answer>"}\'`',
      '',
      `**Paused**: paused by you since ${clockTime(AT)}`,
      '',
      'Resume it in one of three ways:',
      '- here in the Web UI: **More Actions → Send a Signal** (top right of this page), signal name `resumeSignal`, no data',
      '- `npx replanner resume r1`',
      '- `npx replanner temporal workflow update execute --workflow-id run-r1 --name resume`',
    ]);
    expect(waitingLine(s)).toBe('question q1 (clarification): Which output format? — npx replanner answer r1 q1 "<your answer>"');
  });
});
