// Issue 10 (P7, P2 as docs/requirements.md words them): every choice of every Duck Pacemaker pattern, answered
// on a real TaskWorkflow, with its effect seen from outside: the task's outcome, the next worker
// request in the fake's log, the limit in the taskStatus query.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { parseConfig } from '../../src/domain/config';
import type { ConsultationEffect, InterventionKind } from '../../src/domain/pacemaker';
import type { TaskSpec } from '../../src/domain/types';
import {
  answerConsultationSignal,
  answerConsultationUpdate,
  taskStatusQuery,
  type PendingConsultation,
  type TaskStatus,
} from '../../src/workflows/messages';
import { DEFAULT_RUN_OPTIONS } from '../../src/workflows/options';
import { runWorkflowId } from '../../src/workflows/run';
import { TaskWorkflow, type TaskOutcome } from '../../src/workflows/task';
import { FAST, uniqueId, until, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { harnessForSuite } from '../support/suite-hooks';
import { TRIGGER } from '../support/pacemaker-triggers';
import { scriptScenario, taskIdOf } from '../support/scenario';

let h: Harness;
harnessForSuite((started) => (h = started));

const TEXT = 'Keep the parser in lib/strings.ts and reuse tokenize().';

interface Seen {
  outcome: TaskOutcome;
  consultation: PendingConsultation;
  /** taskStatus right after the answer was applied (consultation closed). */
  after: TaskStatus;
  /** Text of the first worker request after the answer ('' when there was none). */
  nextWorker: string;
  workerRequestsAfter: number;
}

/** Runs one TaskWorkflow until `kind` consults, answers `choice` (+ text), and returns what was seen. */
async function consultAndAnswer(kind: InterventionKind, choice: number | string, text?: string): Promise<Seen> {
  const t = TRIGGER[kind];
  const id = uniqueId('pm');
  let answered = false;
  scriptScenario(h.fake, {
    tasks: [{ id, title: 'make the parser work', profile: t.profile, files: { 'stall.txt': 'same thing again' } }],
    judge: () =>
      answered
        ? { success: true, reason: 'the parser works', missingRequirements: [], confidence: 0.9 }
        : { success: false, shouldContinue: true, reason: 'still not done', missingRequirements: ['a working parser'], confidence: t.confidence },
  });
  const task: TaskSpec = {
    id,
    title: 'make the parser work',
    description: 'make the parser work',
    acceptanceCriteria: ['the parser works'],
    dependencies: [],
    scopePaths: ['stall.txt'],
    profile: t.profile as TaskSpec['profile'],
  };
  const handle = await h.client.workflow.start(TaskWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: `task-${id}`,
    args: [
      {
        run: { runId: id, workspace: h.workspace(), instruction: 'make the parser work' },
        task,
        steps: ['write stall.txt'],
        options: { ...DEFAULT_RUN_OPTIONS, ...FAST, pacemaker: parseConfig({ pacemaker: t.pacemaker }).pacemaker },
      },
    ],
  });
  const asked = await until('the consultation', async () => (await handle.query(taskStatusQuery)).consultation);
  expect(asked.kind).toBe(kind);
  const workerBefore = h.fake.requestsFor('worker_step').filter((r) => taskIdOf(r) === id).length;
  answered = true;
  const ack = await handle.executeUpdate(answerConsultationUpdate, { args: [text === undefined ? { choice } : { choice, guidance: text }] });
  expect(ack.consultationId).toBe(asked.id);
  const after = await until('the answer applied', async () => {
    const s = await handle.query(taskStatusQuery);
    return s.consultation ? undefined : s;
  });
  const outcome = await handle.result();
  const next = h.fake
    .requestsFor('worker_step')
    .filter((r) => taskIdOf(r) === id)
    .slice(workerBefore);
  return { outcome, consultation: asked, after, nextWorker: next[0]?.text ?? '', workerRequestsAfter: next.length };
}

type Check = (s: Seen) => void;
const stops: Check = (s) => {
  expect(s.outcome).toMatchObject({ state: 'BLOCKED', reason: expect.stringContaining('stopped by the user') });
  expect(s.workerRequestsAfter).toBe(0);
};
const accepts: Check = (s) => {
  expect(s.outcome).toMatchObject({ state: 'DONE', reason: expect.stringContaining('the current result is accepted') });
  expect(s.workerRequestsAfter).toBe(0);
};
const guided: Check = (s) => {
  expect(s.outcome.state).toBe('DONE');
  expect(s.nextWorker).toContain(`USER GUIDANCE:\n${TEXT}`);
};
const consults: Check = (s) => {
  expect(s.outcome.state).toBe('DONE');
  expect(s.nextWorker).toMatch(/USER GUIDANCE:\nBefore going on, consult this .*\nKeep the parser in lib\/strings\.ts/);
};
const restarts: Check = (s) => {
  expect(s.outcome.state).toBe('DONE');
  expect(s.nextWorker).toContain('USER GUIDANCE:\nRESTART WITH A DIFFERENT APPROACH: drop your current approach');
};
const consolidates: Check = (s) => {
  expect(s.outcome.state).toBe('DONE');
  expect(s.nextWorker).toContain('USER GUIDANCE:\nCONSOLIDATE FIRST: before any new change, consolidate the progress so far');
};
const raises: Check = (s) => {
  expect(s.after.pacemaker!.maxLoops).toBeGreaterThanOrEqual(s.consultation.maxLoops + 5);
  expect(s.after.maxIterations).toBe(s.after.pacemaker!.maxLoops);
  expect(s.outcome.state).toBe('DONE');
  expect(s.nextWorker).not.toContain('USER GUIDANCE');
};
const redecomposes: Check = (s) => {
  expect(s.outcome).toMatchObject({ state: 'REPLAN', reason: expect.stringContaining('re-decompose the task into smaller steps') });
  expect(s.workerRequestsAfter).toBe(0);
};
const simplifies: Check = (s) => {
  expect(s.outcome).toMatchObject({ state: 'REPLAN', reason: expect.stringContaining('re-decompose the task with a simplified scope') });
  expect(s.workerRequestsAfter).toBe(0);
};

// kind, number, key, Japanese label (seed 002), effect, answer text?, what must be seen.
const CASES: [InterventionKind, number, string, string, ConsultationEffect, string | undefined, Check][] = [
  ['no_progress', 1, 'stop', '作業を中止する', 'stop', undefined, stops],
  ['no_progress', 2, 'guidance', '追加の指示や情報を提供する', 'guidance', TEXT, guided],
  ['no_progress', 3, 'continue', 'このまま作業を継続する（上限を +5 回）', 'continue_raised', undefined, raises],
  ['no_progress', 4, 'different_approach', '別のアプローチで再開する', 'restart', undefined, restarts],
  ['lost_confidence', 1, 'requirements', 'より詳細な要件や制約を教える', 'guidance', TEXT, guided],
  ['lost_confidence', 2, 'split', '問題を分割して段階的に進める', 'redecompose', undefined, redecomposes],
  ['lost_confidence', 3, 'consult', '別の専門家や資料を参照する', 'consult_reference', TEXT, consults],
  ['lost_confidence', 4, 'continue', '現在のアプローチを続ける（上限を +5 回）', 'continue_raised', undefined, raises],
  ['confused_thinking', 1, 'key_requirement', '最も重要な要件を1つ教える', 'guidance', TEXT, guided],
  ['confused_thinking', 2, 'reset', '作業を一旦リセットして再開する', 'restart', undefined, restarts],
  ['confused_thinking', 3, 'consolidate', '現在までの成果を整理する', 'consolidate', undefined, consolidates],
  ['confused_thinking', 4, 'other_angle', '別の角度からアプローチする', 'restart', undefined, restarts],
  ['too_many_attempts', 1, 'accept', '現在までの結果で満足する', 'accept', undefined, accepts],
  ['too_many_attempts', 2, 'analyse_cause', '問題の原因を一緒に分析する', 'guidance', TEXT, guided],
  ['too_many_attempts', 3, 'simplify', '要求を簡素化して再挑戦する', 'simplify', undefined, simplifies],
  ['too_many_attempts', 4, 'different_approach', '完全に別のアプローチを試す', 'restart', undefined, restarts],
];

describe('P7 every choice of every pattern (seed 002), effect observed from outside', () => {
  it.each(CASES)('P7 %s choice %i (%s, %s) → %s', async (kind, number, key, ja, effect, text, check) => {
    // Half the cases answer by number, half by key: both name the same choice.
    const seen = await consultAndAnswer(kind, number % 2 ? number : key, text);
    const offered = seen.consultation.choices[number - 1]!;
    expect(offered).toMatchObject({ number, key, ja, effect, needsText: text !== undefined });
    expect(seen.consultation.choices).toHaveLength(4);
    check(seen);
  });
});

describe('P7 answers are validated once, the same for the update and the signal', () => {
  it("P7 S2 a choice another pattern offers, a missing text, a malformed payload are refused (the update's own failure); the signal ignores them; a valid signal answer applies", async () => {
    const t = TRIGGER.lost_confidence;
    const id = uniqueId('pm');
    let answered = false;
    scriptScenario(h.fake, {
      tasks: [{ id, title: 'parse', profile: t.profile, files: { 'a.txt': 'x' } }],
      judge: () =>
        answered
          ? { success: true, reason: 'ok', missingRequirements: [], confidence: 0.9 }
          : { success: false, shouldContinue: true, reason: 'not yet', missingRequirements: ['x'], confidence: 0.1 },
    });
    const handle = await h.client.workflow.start(TaskWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: `task-${id}`,
      args: [
        {
          run: { runId: id, workspace: h.workspace(), instruction: 'parse' },
          task: { id, title: 'parse', description: '', acceptanceCriteria: ['ok'], dependencies: [], scopePaths: [], profile: 'FILE_OPERATION' },
          steps: [],
          options: { ...DEFAULT_RUN_OPTIONS, ...FAST, pacemaker: parseConfig({ pacemaker: t.pacemaker }).pacemaker },
        },
      ],
    });
    const c = await until('the consultation', async () => (await handle.query(taskStatusQuery)).consultation);
    // P2 end to end: the judge's confidence 0.1 is the task's mood.
    expect((await handle.query(taskStatusQuery)).pacemaker!.vitals.mood).toBeCloseTo(0.1);
    const rejected = async (answer: unknown) => {
      const err = await handle.executeUpdate(answerConsultationUpdate, { args: [answer as never] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      // S2 refused with the update's own failure (like the run's updates), not a plain Error.
      expect((err as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'Refused', nonRetryable: true });
      return String((err as WorkflowUpdateFailedError).cause?.message);
    };
    expect(await rejected({ choice: 'stop' })).toContain('unknown choice "stop": answer one of 1|requirements, 2|split, 3|consult, 4|continue');
    expect(await rejected({ choice: 3 })).toContain('choice 3 (consult) needs the text');
    expect(await rejected(null)).toContain('invalid answer');
    expect(await rejected({ choice: ['1'] })).toContain('invalid answer: choice');
    for (const bad of [{ choice: 'stop' }, { choice: 1 }, null, 'garbage']) await handle.signal(answerConsultationSignal, bad as never);
    expect((await handle.query(taskStatusQuery)).consultation?.id).toBe(c.id);

    answered = true;
    await handle.signal(answerConsultationSignal, { choice: 'requirements', guidance: TEXT });
    expect((await handle.result()).state).toBe('DONE');
    expect(h.fake.requestsFor('worker_step').some((r) => taskIdOf(r) === id && r.text.includes(`USER GUIDANCE:\n${TEXT}`))).toBe(true);
  });
});

describe('P8 P4 the pacemaker lines in the task status', () => {
  it('P8 per loop: "progress stall detected" and "vitals change" with before → after; the start line first', async () => {
    const s = await consultAndAnswer('no_progress', 'stop');
    const lines = s.after.pacemakerLog ?? [];
    expect(lines[0]).toMatch(/^\[DUCK_PACEMAKER\] start .*profile=FILE_OPERATION limit=\d+/);
    expect(lines.some((l) => /\[DUCK_PACEMAKER\] loop 2\/\d+ .*progress stall detected \(no progress for 1 loop\)/.test(l))).toBe(true);
    expect(lines.some((l) => /\[DUCK_PACEMAKER\] .*vitals change.*mood \d\.\d+→\d\.\d+/.test(l))).toBe(true);
    expect(lines.some((l) => /\[DUCK_PACEMAKER\] intervention .*no_progress/.test(l))).toBe(true);
  });

  it('P4 a profile the planner does not know becomes UNKNOWN and gets base 8 end to end (never another profile)', async () => {
    const runId = uniqueId('p4');
    scriptScenario(h.fake, { tasks: [{ id: 'odd', title: 'an odd task', profile: 'INTERPRETIVE_DANCE', files: { 'odd.txt': 'x' } }] });
    const { handle } = await startRun(h, { runId, instruction: 'do the odd task', workspace: h.workspace(), options: FAST }, 'p4');
    expect((await handle.result()).status).toBe('DONE');
    const ts = await h.client.workflow.getHandle(`${runWorkflowId(runId)}.task-odd`).query(taskStatusQuery);
    expect(ts.pacemakerLog?.[0]).toMatch(/profile=UNKNOWN limit=\d+ \(base 8\b/);
  });
});
