import { carriesOverChecks, checklistProgress, progressLine, renderChecklist, type ChecklistTask } from '../../../src/domain/checklist';
import { TaskState } from '../../../src/domain/types';
import { expectToContainAll } from '../../support/expectations';

const t = (id: string, title: string, state: TaskState = TaskState.READY): ChecklistTask => ({ id, title, state });

describe('renderChecklist (X11)', () => {
  const original = renderChecklist({
    revision: 0,
    tasks: [
      t('task_1', 'Add zod schema', TaskState.DONE),
      t('task_2', 'Validate signup body', TaskState.DONE),
      t('task_3', 'Write tests'),
      t('task_4', 'Docs'),
    ],
    previousPlans: [],
    replanCount: 0,
  });

  it('X11 the original plan: title, checks, progress line', () => {
    expect(original).toBe(
      [
        '## 📋 Execution Plan',
        '',
        '### Tasks:',
        '- [x] **task_1**: Add zod schema',
        '- [x] **task_2**: Validate signup body',
        '- [ ] **task_3**: Write tests',
        '- [ ] **task_4**: Docs',
        '',
        'Progress: 2/4 (50%) complete · Plan Revisions: 0',
      ].join('\n'),
    );
  });

  const revised1 = renderChecklist({
    revision: 1,
    reason: 'Test runner unavailable, plan adjusted',
    tasks: [
      t('task_1', 'Add zod schema', TaskState.DONE),
      t('task_2', 'Validate signup body', TaskState.DONE),
      t('task_3', 'Write tests', TaskState.REPLACED_BY_REPLAN),
      t('task_3_revised', 'Write tests with node:test', TaskState.DONE),
      t('task_4_new', 'Wire tests into CI'),
      t('task_5', 'Docs', TaskState.BLOCKED),
    ],
    previousPlans: [original],
    replanCount: 2,
  });

  it('X11 a revised plan: "Execution Plan (Revised #n)", reason, previous progress, kept checks, progress line', () => {
    expect(revised1.split('\n').slice(0, 15)).toEqual([
      '## 📋 Execution Plan (Revised #1)',
      '',
      '**Revision Reason**: Test runner unavailable, plan adjusted',
      '',
      '**Previous Progress**: 2/4',
      '',
      '### New Plan:',
      '- [x] **task_1**: Add zod schema',
      '- [x] **task_2**: Validate signup body',
      '- [ ] ~~**task_3**: Write tests~~ — replaced in a plan change',
      '- [x] **task_3_revised**: Write tests with node:test',
      '- [ ] **task_4_new**: Wire tests into CI',
      '- [ ] **task_5**: Docs — ⛔ blocked',
      '',
      'Progress: 3/5 (60%) complete · Plan Revisions: 2',
    ]);
  });

  it('X11 earlier plans are kept in a <details> block', () => {
    expect(revised1).toContain('<details>\n<summary>📜 Previous Plan History</summary>');
    expect(revised1.trimEnd().endsWith('</details>')).toBe(true);
    const history = revised1.slice(revised1.indexOf('<details>'));
    expectToContainAll(history, [
      '### Original Plan',
      '#### Tasks:',
      '- [ ] **task_3**: Write tests',
      'Progress: 2/4 (50%) complete · Plan Revisions: 0',
    ]);
  });

  it('X11 history does not nest: a second revision lists both earlier plans once', () => {
    const revised2 = renderChecklist({
      revision: 2,
      reason: 'CI config moved',
      tasks: [t('a', 'A', TaskState.DONE), t('b', 'B')],
      previousPlans: [original, revised1],
      replanCount: 3,
    });
    expect(revised2.match(/<details>/g)).toHaveLength(1);
    expectToContainAll(revised2, [
      '### Original Plan',
      '### Revision #1',
      '**Revision Reason**: Test runner unavailable, plan adjusted',
      // previous progress comes from the last earlier plan (revision 1: 3 of 5, replaced task not counted)
      '**Previous Progress**: 3/5',
      'Progress: 1/2 (50%) complete · Plan Revisions: 3',
    ]);
  });

  it('X11 an explicit previous progress and a timestamp are shown', () => {
    const md = renderChecklist({
      revision: 3,
      tasks: [t('a', 'A')],
      previousPlans: [],
      replanCount: 3,
      previousProgress: { done: 4, total: 7 },
      revisedAt: '2024-11-28 10:00:00',
    });
    expectToContainAll(
      md,
      ['## 📋 Execution Plan (Revised #3)', '_Revision #3 at 2024-11-28 10:00:00_', '**Revision Reason**: not given', '**Previous Progress**: 4/7'],
      ['<details>'],
    );
  });

  it('X11 task titles are kept on one line; an empty plan renders', () => {
    expect(renderChecklist({ revision: 0, tasks: [t('x', 'two\nlines')], previousPlans: [], replanCount: 0 })).toContain('- [ ] **x**: two lines');
    expect(renderChecklist({ revision: 0, tasks: [], previousPlans: [], replanCount: 0 })).toContain(
      'Progress: 0/0 (0%) complete · Plan Revisions: 0',
    );
  });

  it('X11 progress line format', () => {
    expect(progressLine(3, 5, 2)).toBe('Progress: 3/5 (60%) complete · Plan Revisions: 2');
    expect(progressLine(1, 3, 0)).toBe('Progress: 1/3 (33%) complete · Plan Revisions: 0');
    expect(checklistProgress([t('a', 'A', TaskState.DONE), t('b', 'B', TaskState.CANCELLED), t('c', 'C', TaskState.REPLACED_BY_REPLAN)])).toEqual({
      done: 1,
      total: 2,
      percent: 50,
    });
  });
});

describe('carriesOverChecks (X11)', () => {
  it.each([
    ['partial_replan', true],
    ['action_regeneration', true],
    ['retry', true],
    ['plan_revision', true],
    ['task_redecomposition', false],
    ['goal_revision', false],
    ['clarification_request', false],
    ['full_replan', false],
    ['something_else', false],
  ] as const)('X11 %s keeps completed checks: %s', (type, expected) => {
    expect(carriesOverChecks(type)).toBe(expected);
  });
});
