// V8 / V9: the words people read: the phases as the README names them, decisions that keep the plan
// not called replans, pauses and the model's trouble without internal names, the run's language and
// a task's consultation as seed 002 lays it out (src/domain/words/, src/domain/language.ts,
// src/domain/pacemaker/display.ts).
import { runLanguage } from '../../../src/domain/language';
import { choicesFor, consultationMessage } from '../../../src/domain/pacemaker';
import { consultationLines, consultationMarkdown, type ConsultationShown } from '../../../src/domain/pacemaker/display';
import { emptyCounters, planChangesMade } from '../../../src/domain/replan/limits';
import { PHASES } from '../../../src/domain/types';
import {
  decisionName,
  decisionSays,
  planChangesText,
  replanTypeName,
  REPLAN_TYPE_NAMES,
  type DecisionFacts,
} from '../../../src/domain/words/decisions';
import { clockTime, llmCallText, outageCause, pauseText, plainFailure, purposeCounts, resumeText } from '../../../src/domain/words/pauses';
import { phaseName, withPhaseNames } from '../../../src/domain/words/phases';
import { REPLAN_TYPES } from '../../../src/domain/replan/decision';

describe('V8 the phases in the README’s words', () => {
  it('V8 Goal, Tasks, Steps, Execution, Reflection, in run order; the end and unknown names as they are', () => {
    expect(PHASES.map(phaseName)).toEqual(['Goal', 'Tasks', 'Steps', 'Execution', 'Reflection']);
    expect(phaseName('finished')).toBe('finished');
    expect(phaseName(undefined)).toBe('');
  });

  it('V8 free text loses the machine names, and keeps "execution" and "reflection" as the plain words they are', () => {
    expect(withPhaseNames('task_decomposition: the plan was rejected; back to goal_understanding, then action_sequence')).toBe(
      'Tasks: the plan was rejected; back to Goal, then Steps',
    );
    expect(withPhaseNames('the execution of a reflection')).toBe('the execution of a reflection');
  });
});

describe('V8 the demo counts the requests it replayed in words, not machine names', () => {
  it('V8 purposes in words with their counts, in the order first asked', () => {
    const line = purposeCounts(['goal_understanding', 'replan_decision', 'worker_step', 'replan_decision', 'quality_judge']);
    expect(line).toBe('working out the goal 1, deciding whether the plan holds 2, the worker 1, reviewing the plan 1');
    expect(line).not.toMatch(/_/);
  });
});

describe('V8 a decision that keeps the plan is not a replan', () => {
  const base = { executed: false, result: 'skipped' };
  it('V8 each kind of plan change has words, every one of them', () => {
    for (const t of REPLAN_TYPES) expect(REPLAN_TYPE_NAMES[t]).toMatch(/^[a-z][a-z -]+$/);
    expect(replanTypeName('partial_replan')).toBe('re-plan the remaining steps');
    expect(replanTypeName('something_new')).toBe('something new');
  });

  it('V8 what came of a decision, in words', () => {
    expect(decisionName('replan-7')).toBe('decision 7');
    const kept = { executed: false, result: 'skipped' };
    const done = { executed: true, result: 'success' };
    const cases: [DecisionFacts, string][] = [
      [{ ...kept, outcome: 'none' }, 'plan kept'],
      [
        { ...kept, outcome: 'ignore', replanType: 'retry', overrideReason: 'very_low_confidence' },
        'plan kept (it wanted to retry the task, but the model was too unsure)',
      ],
      [
        { ...kept, outcome: 'override', replanType: 'retry', overrideReason: 'global_limit' },
        'plan kept (it wanted to retry the task, but the run has used all its plan changes)',
      ],
      [
        { ...done, outcome: 'replan', replanType: 'task_redecomposition', targetPhase: 'task_decomposition' },
        'plan changed: split the tasks again (back to Tasks) · done',
      ],
      [
        { executed: true, result: 'failure', outcome: 'replan', replanType: 'retry' },
        'plan changed: retry the task · failed (the plan before it was restored)',
      ],
      [
        { executed: true, result: 'pending', outcome: 'clarify', replanType: 'clarification_request' },
        'asked you a question · waiting for your answer',
      ],
      [
        { ...done, outcome: 'clarify', overrideReason: 'no_response_assumed' },
        'asked you a question · nobody answered: it went on with its assumptions',
      ],
      [
        { executed: false, result: 'pending', outcome: 'confirm', replanType: 'goal_revision' },
        'asks you to confirm: rethink the goal · waiting for your yes or no',
      ],
      [
        { ...kept, outcome: 'confirm', replanType: 'goal_revision', overrideReason: 'user_declined' },
        'plan kept (it wanted to rethink the goal, but you said no)',
      ],
      [{ ...done, outcome: 'confirm', replanType: 'goal_revision' }, 'plan changed: rethink the goal · done'],
    ];
    expect(cases.map(([d]) => decisionSays(d))).toEqual(cases.map(([, words]) => words));
    for (const d of [{ outcome: 'none' }, { outcome: 'ignore' }, { outcome: 'override' }])
      expect(decisionSays({ ...base, ...d })).not.toMatch(/replan/);
  });

  it('V8 plan changes count only the changes carried out: a question to the user is none', () => {
    const c = emptyCounters();
    expect(planChangesMade({ ...c, total: 3, byType: { ...c.byType, clarification_request: 1, retry: 2 } })).toBe(2);
    expect(planChangesText({ total: 3, byType: { clarification_request: 1, retry: 2 } })).toBe('2 (retry the task 2)');
    expect(planChangesText({ total: 1, byType: { clarification_request: 1 } })).toBe('0');
    // Older runs counted by phase only: their total as it is.
    expect(planChangesText({ total: 2 })).toBe('2');
  });
});

describe('V8 pauses and the model’s trouble, without internal names, one line per change', () => {
  const since = '2026-03-01T12:03:00.000Z';
  it('V8 the outage in a few words, since when and how it ends', () => {
    const reason = `LLM unavailable since ${since}: LLM unavailable: quality_judge request to http://127.0.0.1:8484/v1 could not connect or timed out: Connection error. (connect ECONNREFUSED 127.0.0.1:8484); retrying by itself with backoff (5 s doubling, at most every 60 s)`;
    expect(pauseText({ kind: 'llm_outage', reason, since }, 'r1')).toBe(
      'the model is not answering since 2026-03-01 12:03:00 UTC (connection refused); it is tried again by itself, at most a minute apart — to try now: npx replanner resume r1',
    );
    expect(resumeText('llm_outage')).toBe('the model answers again: the run goes on');
    expect(outageCause('LLM unavailable: judge request to http://x failed with HTTP 503: overloaded')).toBe('HTTP 503');
    expect(outageCause('getaddrinfo ENOTFOUND model.example')).toBe('its address is not found');
    expect(outageCause('socket hang up')).toBe('the connection was cut');
  });

  it('V8 a failure says what happened in words: no activity name, no heartbeat, no purpose name, no machine phase', () => {
    const heartbeat = plainFailure(
      'task_decomposition: the plan was rejected by the quality judge: Quality judge failed: activity Heartbeat timeout (fail-closed: plan rejected)',
    );
    expect(heartbeat).toBe(
      'Tasks: the plan was rejected by the quality judge: Quality judge failed: the call stopped reporting progress (its worker may have stopped, or be too busy) (fail-closed: plan rejected)',
    );
    expect(plainFailure('LLM access rejected: worker_step request to http://h/v1 was rejected with HTTP 401. bad key')).toBe(
      'the request to http://h/v1 (the worker) was rejected with HTTP 401. bad key',
    );
    expect(plainFailure('task_decomposition request to http://h:1/v1: the reply stalled after 20 tokens (no token for 6 s)')).toBe(
      'the request to http://h:1/v1 (planning the tasks): the reply stalled after 20 tokens (no token for 6 s)',
    );
    const retry = llmCallText({
      purpose: 'judgePlanQuality',
      attempt: 3,
      lastFailure:
        'LLM unavailable: quality_judge request to http://127.0.0.1:28484/v1 could not connect or timed out: Connection error. (connect ECONNREFUSED 127.0.0.1:28484)',
    });
    expect(retry).toBe('reviewing the plan: waiting to try again (try 3; the last one: the model is not answering (connection refused))');
    expect(llmCallText({ purpose: 'workerStep', attempt: 2, lastFailure: 'activity Heartbeat timeout' })).toBe(
      'the worker: waiting to try again (try 2; the last one: the call stopped reporting progress (its worker may have stopped, or be too busy))',
    );
    expect(llmCallText({ purpose: 'task_decomposition', doing: 'writing, 140 tokens', attempt: 1 })).toBe('planning the tasks: writing, 140 tokens');
    for (const line of [heartbeat, retry]) expect(line).not.toMatch(/heartbeat|judgePlanQuality|workerStep|quality_judge|LLM unavailable/i);
  });

  it('V8 every kind of pause in words, and what ends it', () => {
    const kinds = ['user', 'llm_outage', 'llm_rejected', 'llm_unsupported', 'llm_slow', 'budget', 'host_offline'];
    for (const kind of kinds) {
      const text = pauseText({ kind, reason: 'why', since }, 'r1');
      expect(text).not.toMatch(/llm_|host_offline|\bLLM\b/);
      expect(resumeText(kind)).not.toMatch(/llm_|host_offline|\bLLM\b/);
    }
    expect(clockTime('not a time')).toBe('not a time');
    expect(clockTime(since, 'local')).toMatch(/^\d\d:\d\d:\d\d$/);
  });
});

describe('V9 the run’s language is its instruction’s', () => {
  it.each([
    ['write a short guide to our API', 'en'],
    ['APIの短いガイドを書いてください', 'ja'],
    ['src/parser.ts の parse 関数を直して、test/parser.test.ts を通してください', 'ja'],
    ['add a 「保存」 button to the settings page and a test for it', 'en'],
    ['修复解析器中的错误', 'en'], // kanji with no kana: Chinese, not Japanese
    ['', 'en'],
  ])('V9 %j is %s', (instruction, language) => {
    expect(runLanguage(instruction)).toBe(language);
  });
});

describe('V9 a task’s consultation as seed 002 lays it out', () => {
  const seed = consultationMessage('no_progress', 8);
  const c: ConsultationShown = {
    taskId: 't2',
    message: seed.en,
    messageJa: seed.ja,
    choices: choicesFor('no_progress').map((x) => ({ number: x.number, label: x.label.en, ja: x.label.ja, needsText: x.needsText })),
  };

  it('V9 Japanese: the seed’s title, situation, question, four numbered choices and prompt', () => {
    expect(consultationLines(c, 'ja', 'replanner consult r1 t2 <number> ["text"]')).toEqual([
      '🦆 Duck Pacemaker からの相談（タスク t2）',
      '',
      'AIがタスクの進捗がなく作業を繰り返しています（8回目）。',
      '同じような分析や情報収集を何度も行っており、新しい発見がない状況です。',
      '',
      'どのように進めますか？',
      '1. 作業を中止する',
      '2. 追加の指示や情報を提供する（説明を添えて）',
      '3. このまま作業を継続する（上限を +5 回）',
      '4. 別のアプローチで再開する',
      '',
      '選択してください (1-4): replanner consult r1 t2 <number> ["text"]',
    ]);
  });

  it('V9 English: the same layout in its English words; the Japanese situation falls back to English when a run did not keep it', () => {
    const lines = consultationLines(c, 'en', 'replanner consult r1 t2 <number> ["text"]');
    expect(lines[0]).toBe('🦆 Duck Pacemaker: task t2 asks how to go on');
    expect(lines).toContain('How should it go on?');
    expect(lines).toContain('3. Continue the work as it is (up to 5 more attempts)');
    expect(lines.at(-1)).toBe('Choose (1-4): replanner consult r1 t2 <number> ["text"]');
    const { messageJa: _ja, ...older } = c;
    expect(consultationLines(older, 'ja', 'x')[2]).toBe(seed.en.split('\n')[0]);
  });

  it('V9 in Markdown for the issue: the situation quoted, the choices a numbered list', () => {
    const md = consultationMarkdown(c, 'ja', 'reply `/consult t2 <number>`');
    expect(md.split('\n')).toEqual([
      '**🦆 Duck Pacemaker からの相談（タスク t2）**',
      '',
      '> AIがタスクの進捗がなく作業を繰り返しています（8回目）。',
      '> 同じような分析や情報収集を何度も行っており、新しい発見がない状況です。',
      '',
      'どのように進めますか？',
      '',
      '1. 作業を中止する',
      '2. 追加の指示や情報を提供する（説明を添えて）',
      '3. このまま作業を継続する（上限を +5 回）',
      '4. 別のアプローチで再開する',
      '',
      '選択してください (1-4): reply `/consult t2 <number>`',
    ]);
  });
});
