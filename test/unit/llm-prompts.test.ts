// The words of the replanning layer and the planning phases (src/llm/prompts: replan-feedback,
// escalation, questions, refinement), pinned byte for byte: the scripted model and the workflow
// tests match on them.
import type { ReplanDecision } from '../../src/domain/replan/decision';
import type { DecisionRecord } from '../../src/domain/replan/decision-log';
import type { Question } from '../../src/domain/replan/questions';
import type { QualityJudgeResult, RefinementDecision } from '../../src/domain/refinement';
import { alternativesPrompt } from '../../src/llm/prompts/escalation';
import {
  answerNotes,
  clarificationAnswers,
  confirmationQuestion,
  escalationAnswerNote,
  escalationAssumedNote,
  unansweredMessage,
  unansweredNote,
  userAnsweredFeedback,
} from '../../src/llm/prompts/questions';
import { graphRepairFeedback, joinFeedback, refinementFeedback } from '../../src/llm/prompts/refinement';
import { loopWarning, replanFeedback, replanPromptExtras } from '../../src/llm/prompts/replan-feedback';
import { wantedReplan } from '../support/decisions';

const decision = (over: Partial<ReplanDecision> = {}) => wantedReplan('partial_replan', 0.9, 'the tests fail', [], over);
const record = (n: number, over: Partial<DecisionRecord> = {}): DecisionRecord => ({
  replan_id: `replan-${n}`,
  phase: 'execution',
  llm_decision: {},
  confidence: 0.9,
  executed: true,
  timestamp: 't',
  result: 'success',
  outcome: 'replan',
  replan_type: 'retry',
  ...over,
});
const question = (id: string, text: string, answer?: string): Question => ({
  id,
  kind: 'clarification',
  phase: 'goal_understanding',
  replanId: 'replan-1',
  text,
  assumptions: [],
  timeoutMinutes: 30,
  askedAt: 't',
  status: answer === undefined ? 'timed_out' : 'answered',
  ...(answer === undefined ? {} : { answer }),
});

describe('X3 what a replan tells the phase it reruns', () => {
  it('X3 the reasoning, the issues of every kind and the recommendations, then the extra', () => {
    const d = decision({
      issues_found: ['a'],
      issues_identified: ['b'],
      missing_steps: ['c'],
      additional_actions: ['d'],
      recommended_actions: ['e'],
    });
    expect(replanFeedback('reflection', 'plan_revision', d, 'THE USER ANSWERED:\nQ: x\nA: y')).toBe(
      'REPLAN (plan_revision) decided after the reflection phase: the tests fail\nIssues:\n- a\n- b\n- c\n- d\nRecommended:\n- e\nTHE USER ANSWERED:\nQ: x\nA: y',
    );
  });

  it('X3 empty parts are left out; long ones are bounded (20 items of 300 characters, 1500 of reasoning)', () => {
    expect(replanFeedback('execution', 'retry', decision())).toBe('REPLAN (retry) decided after the execution phase: the tests fail');
    const text = replanFeedback(
      'execution',
      'retry',
      decision({ reasoning: 'r'.repeat(1600), issues_found: Array.from({ length: 25 }, () => 'i'.repeat(310)) }),
    );
    expect(text.split('\n')).toHaveLength(22);
    expect(text).toContain(`${'r'.repeat(1500)} …[truncated 100 chars]`);
    expect(text).toContain(`- ${'i'.repeat(300)} …[truncated 10 chars]`);
  });
});

describe('X6 / X9 / X14 what a replan-decision prompt carries from the run', () => {
  it('X6 X9 X14 nothing yet: nothing', () => {
    expect(replanPromptExtras({ records: [], notes: [], looping: [] })).toEqual({});
  });

  it('X9 the last 6 decisions, X14 the last 10 notes, X6 the looping triggers', () => {
    const records = Array.from({ length: 8 }, (_, i) => record(i + 1));
    records[7] = record(8, { replan_type: undefined, outcome: 'override', override_reason: 'loop_detected', result: 'skipped' });
    const notes = Array.from({ length: 12 }, (_, i) => `note ${i + 1}`);
    const extras = replanPromptExtras({ records, notes, looping: [{ key: 'execution|retry|x', count: 2 }] });
    expect(extras.history).toEqual([
      'replan-3 after execution: retry → replan, result success',
      'replan-4 after execution: retry → replan, result success',
      'replan-5 after execution: retry → replan, result success',
      'replan-6 after execution: retry → replan, result success',
      'replan-7 after execution: retry → replan, result success',
      'replan-8 after execution: no replan → override (loop_detected), result skipped',
    ]);
    expect(extras.userAnswers).toEqual(notes.slice(2));
    expect(extras.loopWarning).toBe(loopWarning([{ key: 'execution|retry|x', count: 2 }]));
  });

  it('X6 the loop warning names each trigger with its count', () => {
    expect(loopWarning([])).toBe('');
    expect(
      loopWarning([
        { key: 'execution|retry|tool missing', count: 1 },
        { key: 'reflection|plan_revision|', count: 3 },
      ]),
    ).toBe(
      [
        'IMPORTANT — these replans were already tried and will be refused as a loop:',
        '- execution / retry: "tool missing" (replanned 1 time)',
        '- reflection / plan_revision (replanned 3 times)',
        'Do not propose the same replan again. Try a different approach: another replan type or level,',
        'different actions or tools, or continue with the current plan and state your assumptions.',
      ].join('\n'),
    );
  });
});

describe('X8 / X13 the LLM is asked for alternatives', () => {
  it.each([
    [
      'a limit refused it',
      'phase_limit',
      ['docker not installed'],
      [
        'The replan you proposed in the execution phase cannot be carried out: the replan limit for this kind of replan is reached.',
        'Details: the partial_replan limit is reached (2/2)',
        'The issues you found:\n- docker not installed',
      ],
    ],
    [
      'it failed, with no issues',
      'replan_failed',
      [],
      [
        'The replan you proposed in the execution phase cannot be carried out: the replan was started but failed.',
        'Details: the partial_replan limit is reached (2/2)',
      ],
    ],
  ] as const)('X8 %s', (_, trigger, issues, head) => {
    const prompt = alternativesPrompt({
      phase: 'execution',
      trigger,
      detail: 'the partial_replan limit is reached (2/2)',
      decision: decision({ issues_found: [...issues] }),
    });
    expect(prompt).toBe(
      [
        ...head,
        'Consider alternatives that do not need this replan: a different, smaller change (another replan type',
        'or level), different actions or tools, or continuing with the current plan under explicit assumptions.',
        'Answer with a replan decision in the same JSON format. If there is no alternative, set',
        '"replan_needed": false and list the assumptions you would continue with in "assumptions_to_make".',
      ].join('\n'),
    );
  });
});

describe('X7 / X8 / X14 the words around the questions', () => {
  const questions = [question('q1', 'Which database?', 'PostgreSQL'), question('q2', 'Which port?')];

  it('X7 a confirmation asks for yes or no', () => {
    expect(confirmationQuestion('The AI proposes a retry.')).toBe('The AI proposes a retry. (answer yes or no)');
  });

  it('X14 answers: the rerun phase sees each question with its answer or the assumptions; notes are one line each', () => {
    const answers = clarificationAnswers(questions, ['port 5432', 'local']);
    expect(answers).toEqual(['Q: Which database?\nA: PostgreSQL', 'Q: Which port?\nA: (no answer; assume port 5432; local)']);
    expect(answerNotes(answers)).toEqual(['Q: Which database? A: PostgreSQL', 'Q: Which port? A: (no answer; assume port 5432; local)']);
    expect(userAnsweredFeedback(answers)).toBe(
      'THE USER ANSWERED:\nQ: Which database?\nA: PostgreSQL\nQ: Which port?\nA: (no answer; assume port 5432; local)',
    );
  });

  it('X14 X8 no answer: the notes and the message say what the run assumes', () => {
    expect(unansweredNote(['q1', 'q2'], ['a', 'b'])).toBe('Assumed (no answer to q1, q2): a; b');
    expect(unansweredMessage(30, ['a', 'b'])).toBe('No answer within 30 min; continuing on these assumptions: a; b');
    expect(escalationAnswerNote('skip docker')).toBe('User instruction after a replan could not run: skip docker');
    expect(escalationAssumedNote(['a', 'b'])).toBe('Assumed (no answer): a; b');
  });
});

describe('R1 what the planner is told when its plan goes back', () => {
  it('an invalid task graph: its problems are named', () => {
    expect(graphRepairFeedback(['dependency cycle: x -> y -> x', 'unknown dependency z'])).toBe(
      'Your previous task graph was invalid: dependency cycle: x -> y -> x; unknown dependency z. Return a valid graph.',
    );
  });

  it('feedback parts are joined by a blank line, empty ones left out', () => {
    expect(joinFeedback(undefined, 'a', '', 'b')).toBe('a\n\nb');
    expect(joinFeedback(undefined, '')).toBe('');
  });

  const keep =
    'Keep the ids of tasks that stay the same, keep the task count close to the previous plan, and keep every dependency pointing at a task of the plan.';
  const cases: [string, RefinementDecision, QualityJudgeResult, string | undefined, string[]][] = [
    [
      'R1 a plan not good enough: the phase feedback, the score, the issues',
      { action: 'replan', kind: 'quality', rule: 4, reason: '', issues: ['no tests'] },
      { isAcceptable: false, issues: ['ignored'], suggestions: ['add docs'], overallScore: 40 },
      'REPLAN: x',
      [
        'REPLAN: x',
        'The plan quality judge found your plan not good enough (score 40/100). Revise the plan to fix these issues.',
        'QUALITY ISSUES:\n- no tests',
        'SUGGESTIONS:\n- add docs',
        keep,
      ],
    ],
    [
      'R2.5 an accepted plan with suggestions, no score',
      { action: 'replan', kind: 'suggestions', rule: 5, reason: '', suggestions: ['split task b'] },
      { isAcceptable: true, issues: [], suggestions: ['ignored'] },
      undefined,
      ['The plan quality judge accepted your plan but suggested improvements. Revise the plan to apply them.', 'SUGGESTIONS:\n- split task b', keep],
    ],
  ];
  it.each(cases)('%s', (_, decision, result, phaseFeedback, parts) => {
    expect(refinementFeedback(phaseFeedback, decision, result)).toBe(parts.join('\n\n'));
  });
});
