// V1 / X11: the run's checklist built from its state (Web UI current details, memo, issue comment).
import { CHECKLIST_HISTORY_SUMMARY } from '../../../src/domain/checklist';
import {
  checklistMemoDue,
  CHECKLIST_MEMO_INTERVAL_MS,
  DETAILS_MAX_BYTES,
  MAX_PREVIOUS_PLANS,
  runChecklist,
  runDetails,
  runStaticMetadata,
} from '../../../src/domain/run/checklist';
import { clipUtf8, utf8Bytes } from '../../../src/domain/text';
import { applyJump, restorePrevious, setDecomposition, type Jump } from '../../../src/domain/run/plan';
import { initialRunState, type RunState } from '../../../src/domain/run/state';
import { TaskState, type TaskSpec } from '../../../src/domain/types';
import { addStepLine, taskDetails, TASK_DETAIL_STEPS } from '../../../src/domain/task-details';
import { expectToContainAll } from '../../support/expectations';

const spec = (id: string, title = `do ${id}`): TaskSpec => ({
  id,
  title,
  description: title,
  acceptanceCriteria: [],
  dependencies: [],
  scopePaths: [],
  profile: 'FILE_OPERATION',
});
const base = (): RunState => setDecomposition(initialRunState({ runId: 'r', instruction: 'x', workspace: '/ws' }), [spec('a'), spec('b'), spec('c')]);
const withStates = (s: RunState, states: Record<string, TaskState>): RunState => ({
  ...s,
  tasks: s.tasks.map((t) => (states[t.id] ? { ...t, state: states[t.id]! } : t)),
});
const jump = (type: Jump['type'], keepsCompletedWork: boolean, target: Jump['target']): Jump => ({
  type,
  keepsCompletedWork,
  target,
  feedback: 'why',
  reason: `the ${type} reason`,
});

describe('V1 X11 runChecklist', () => {
  it('X11 the first plan: "Execution Plan", every task unchecked, the progress line, no history', () => {
    const text = runChecklist(withStates(base(), { a: TaskState.DONE }));
    expectToContainAll(
      text,
      ['## 📋 Execution Plan\n', '- [x] **a**: do a', '- [ ] **b**: do b', 'Progress: 1/3 (33%) complete · Plan Revisions: 0'],
      ['<details>'],
    );
  });

  it('X11 §11.4.3 a partial replan keeps the completed checks; the plan before goes into <details> with its progress', () => {
    const before = withStates(base(), { a: TaskState.DONE, b: TaskState.BLOCKED });
    const after = applyJump(before, jump('partial_replan', true, 'action_sequence'), 30, '2026-11-25T03:00:00.000Z').state;
    const text = runChecklist(after);
    expectToContainAll(text, [
      '## 📋 Execution Plan (Revised #1)',
      '**Revision Reason**: the partial_replan reason (re-plan the remaining steps)',
      '**Previous Progress**: 1/3',
      '- [x] **a**: do a',
      '- [ ] **b**: do b',
      'Progress: 1/3 (33%) complete · Plan Revisions: 1',
      `<details>\n<summary>${CHECKLIST_HISTORY_SUMMARY}</summary>`,
      '### Original Plan',
      '— ⛔ blocked',
    ]);
  });

  it('X11 §11.4.3 a task re-decomposition starts a new checklist: while the new plan is made the last real plan stays, marked as under revision (never an empty 0/0 plan); then the new plan, the old one in <details>', () => {
    const before = withStates(base(), { a: TaskState.DONE });
    const jumped = applyJump(before, jump('task_redecomposition', false, 'task_decomposition'), 30).state;
    const waiting = runChecklist(jumped);
    expect(waiting.split('\n').slice(0, 3)).toEqual([
      '## 📋 Execution Plan',
      '',
      '> 🔄 **Under revision #1** (split the tasks again): the task_redecomposition reason. This plan stands until the new one is made.',
    ]);
    expect(waiting).toContain('- [x] **a**: do a');
    expect(waiting).toContain('Progress: 1/3 (33%) complete · Plan Revisions: 0');
    expect(waiting).not.toContain('0/0');
    expect(waiting).not.toContain('<details>');
    const fresh = runChecklist(setDecomposition(jumped, [spec('x'), spec('y')]));
    expect(fresh).toContain('## 📋 Execution Plan (Revised #1)');
    expect(fresh.split('<details>')[0]).toContain('- [ ] **x**: do x');
    expect(fresh.split('<details>')[0]).not.toContain('**a**');
    expect(fresh).not.toContain('Under revision');
    expect(fresh).toContain('Progress: 0/2 (0%) complete · Plan Revisions: 1');
    expect(fresh.split('<details>')[1]).toContain('- [x] **a**: do a');
    // A second re-decomposition: the revised plan stays under revision #2, the original in the history.
    const again = runChecklist(
      applyJump(setDecomposition(jumped, [spec('x'), spec('y')]), jump('task_redecomposition', false, 'task_decomposition'), 30).state,
    );
    expect(again.split('<details>')[0]).toContain('## 📋 Execution Plan (Revised #1)');
    expect(again.split('<details>')[0]).toContain('**Under revision #2**');
    expect(again.split('<details>')[0]).toContain('- [ ] **x**: do x');
    expect(again.split('<details>')[1]).toContain('### Original Plan');
  });

  it('X11 goal reconfirmation (goal_revision) also starts a new checklist; a failed replan (X13) restores the plan and ends the wait', () => {
    const jumped = applyJump(withStates(base(), { a: TaskState.DONE }), jump('goal_revision', false, 'goal_understanding'), 30).state;
    expect(runChecklist(jumped)).toContain('**Under revision #1** (rethink the goal)');
    const restored = runChecklist(restorePrevious(jumped));
    expect(restored).not.toContain('Under revision');
    expect(restored.split('<details>')[0]).toContain('- [x] **a**');
  });

  it('X11 a blocked, failed or cancelled task shows its mark and its one-line reason', () => {
    const s = base();
    const stopped: RunState = {
      ...s,
      tasks: s.tasks.map((t) =>
        t.id === 'a'
          ? { ...t, state: TaskState.BLOCKED, summary: 'task failed: the worker\ncrashed' }
          : t.id === 'b'
            ? { ...t, state: TaskState.BLOCKED, summary: 'blocked by a' }
            : { ...t, state: TaskState.CANCELLED, summary: 'the run was cancelled' },
      ),
    };
    const text = runChecklist(stopped);
    expectToContainAll(text, [
      '- [ ] **a**: do a — ❌ task failed: the worker crashed',
      '- [ ] **b**: do b — ⛔ blocked by a',
      '- [ ] **c**: do c — ✖ cancelled: the run was cancelled',
    ]);
    const judged = runChecklist({
      ...s,
      tasks: s.tasks.map((t) => (t.id === 'a' ? { ...t, state: TaskState.BLOCKED, summary: 'a.txt is wrong' } : t)),
    });
    expect(judged).toContain('- [ ] **a**: do a — ⛔ blocked: a.txt is wrong');
    const long = runChecklist({ ...s, tasks: s.tasks.map((t) => (t.id === 'a' ? { ...t, state: TaskState.BLOCKED, summary: 'x'.repeat(500) } : t)) });
    expect(long.split('\n').find((l) => l.includes('**a**'))!.length).toBeLessThan(260);
  });

  it('X11 a replan before any plan exists revises nothing', () => {
    const s = initialRunState({ runId: 'r', instruction: 'x', workspace: '/ws' });
    const jumped = applyJump(s, jump('clarification_request', false, 'goal_understanding'), 30).state;
    expect(runChecklist(jumped)).toContain('## 📋 Execution Plan\n');
    expect(runChecklist(jumped)).toContain('Plan Revisions: 0');
  });

  it('X11 §11.4.4 the history keeps the newest earlier plans only and says how many were dropped; the text stays within the UI limit', () => {
    let s = withStates(base(), { a: TaskState.DONE });
    for (let i = 0; i < MAX_PREVIOUS_PLANS + 3; i++) s = applyJump(s, jump('partial_replan', true, 'action_sequence'), 30).state;
    const text = runChecklist(s);
    expect(text).toContain(`Execution Plan (Revised #${MAX_PREVIOUS_PLANS + 3})`);
    expect(s.checklist!.previousPlans).toHaveLength(MAX_PREVIOUS_PLANS);
    expect(text).toContain('_3 earlier plan(s) not shown._');
    const huge = setDecomposition(
      initialRunState({ runId: 'r', instruction: 'x', workspace: '/ws' }),
      Array.from({ length: 250 }, (_, i) => spec(`t${i}`, 'ü'.repeat(500))),
    );
    expect(utf8Bytes(runChecklist(huge))).toBeLessThanOrEqual(DETAILS_MAX_BYTES);
    expect(utf8Bytes(runDetails(huge, 'RUNNING'))).toBeLessThanOrEqual(DETAILS_MAX_BYTES);
  });

  it("V1 V8 the details show status, the phase in the README's words, and the goal above the checklist", () => {
    const s = {
      ...base(),
      goal: { main_objective: 'A tested slugify', success_criteria: [], constraints: [], ambiguities: [], assumptions: [], task_profile: 'X' },
    };
    const d = runDetails(s as RunState, 'RUNNING');
    expect(d).toMatch(/^\*\*Status\*\*: RUNNING · phase Goal\n\n\*\*Goal\*\*: A tested slugify\n\n## 📋 Execution Plan/);
  });

  it('V1 static summary and details are clipped to the Web UI limits (200 bytes, 20 KB) without splitting a character', () => {
    const m = runStaticMetadata('日本語の指示'.repeat(5000), '/ws/.replanner/runs/r/instruction.md');
    expect(utf8Bytes(m.staticSummary)).toBeLessThanOrEqual(200);
    expect(m.staticSummary.startsWith('replanner run: 日本語')).toBe(true);
    expect(utf8Bytes(m.staticDetails)).toBeLessThanOrEqual(DETAILS_MAX_BYTES);
    expect(m.staticDetails).toContain('/ws/.replanner/runs/r/instruction.md');
    expect(clipUtf8('ab', 10)).toBe('ab');
    expect(clipUtf8('日本語日本語', 10)).toBe('日本…');
  });
});

describe('V1 task details', () => {
  it('V1 a task workflow shows its worker steps with their tool calls, the newest ones only', () => {
    let lines = addStepLine([], 1, 1, { toolCalls: 1, toolErrors: 0, actions: ['write_file(a.txt)'], logPath: 'x' });
    lines = addStepLine(lines, 1, 2, { toolCalls: 1, toolErrors: 1, actions: ['run_command(node t.js)!'], logPath: 'x' });
    lines = addStepLine(lines, 1, 3, { summary: 'wrote a.txt', toolCalls: 0, toolErrors: 0, actions: [], logPath: 'x' });
    const text = taskDetails({ taskId: 'a', title: 'write a', state: 'RUNNING', iteration: 1, maxIterations: 8, steps: lines, earlierSteps: 0 });
    expectToContainAll(text, [
      '## Task a: write a',
      '- iteration 1, step 1: `write_file(a.txt)`',
      '- iteration 1, step 2: `run_command(node t.js)!` (1 failed)',
      '- iteration 1, step 3: no tool call — answer: wrote a.txt',
      '_No file written or edited yet._',
    ]);
    let many = lines;
    for (let i = 4; i < 50; i++) many = addStepLine(many, 2, i, { toolCalls: 0, toolErrors: 0, actions: [], logPath: 'x' });
    expect(many).toHaveLength(TASK_DETAIL_STEPS);
  });

  it('V3 the task’s details list the files it changed with lines added and removed, and how many more are not listed', () => {
    const text = taskDetails({
      taskId: 'a',
      title: 'write a',
      state: 'RUNNING',
      iteration: 1,
      maxIterations: 8,
      steps: [],
      earlierSteps: 0,
      files: [
        { path: 'src/a.ts', added: 5, removed: 1, writes: 1, edits: 1 },
        { path: 'b`c.md', added: 0, removed: 2, writes: 0, edits: 2 },
      ],
      unlistedFiles: 3,
    });
    const section = text.slice(text.indexOf('### Files changed'), text.indexOf('### Worker steps'));
    expectToContainAll(section, ['- `src/a.ts` +5 −1 (1 write, 1 edit)', "- `b'c.md` +0 −2 (2 edits)", '_3 more file(s) not listed._']);
  });
});

describe('V1 checklistMemoDue', () => {
  it('V1 a checklist-only change rewrites the memo at most every 5 s, always at the end; an unchanged checklist never', () => {
    expect(checklistMemoDue({ changed: true, sinceLastMs: 1_000, final: false })).toBe(false);
    expect(checklistMemoDue({ changed: true, sinceLastMs: CHECKLIST_MEMO_INTERVAL_MS, final: false })).toBe(true);
    expect(checklistMemoDue({ changed: true, sinceLastMs: 0, final: true })).toBe(true);
    expect(checklistMemoDue({ changed: false, sinceLastMs: 60_000, final: true })).toBe(false);
  });
});
