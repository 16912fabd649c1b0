// V9 / X11 / P7: the checklist comment shows a task that asks how to go on as seed 002 lays
// it out, in the run's language, with how to answer it by a reply (src/domain/run/tracker-comment.ts).
import { choicesFor, consultationMessage } from '../../../src/domain/pacemaker';
import { enterPhase } from '../../../src/domain/run/phases';
import { setDecomposition } from '../../../src/domain/run/plan';
import { applyConsultation } from '../../../src/domain/run/questions';
import { initialRunState, type PendingConsultation, type RunState } from '../../../src/domain/run/state';
import { trackerChecklist } from '../../../src/domain/run/tracker-comment';
import { TaskState } from '../../../src/domain/types';
import { taskSpec } from '../../support/tasks';

function consulting(instruction: string): RunState {
  let s = setDecomposition(initialRunState({ runId: 'r1', instruction, workspace: '/w' }), [taskSpec('t2')]);
  s = enterPhase(s, 'execution').state;
  s = { ...s, tasks: s.tasks.map((t) => ({ ...t, state: TaskState.RUNNING })) };
  const seed = consultationMessage('lost_confidence', 4);
  const c: PendingConsultation = {
    id: 't2-c1',
    taskId: 't2',
    kind: 'lost_confidence',
    iteration: 4,
    maxLoops: 8,
    message: seed.en,
    messageJa: seed.ja,
    trigger: 'mood 0.30 < 0.5',
    choices: choicesFor('lost_confidence').map((x) => ({
      number: x.number,
      key: x.key,
      effect: x.effect,
      label: x.label.en,
      ja: x.label.ja,
      needsText: x.needsText,
    })),
    timeoutMinutes: 30,
  };
  const r = applyConsultation(s, { taskId: 't2', consultationId: 't2-c1', consultation: c });
  if (!r.ok) throw new Error(r.reason);
  return r.state;
}

describe('V9 the consultation on the issue', () => {
  it("V9 a Japanese instruction: the seed's title, situation, question and numbered choices, and the reply that answers", () => {
    const text = trackerChecklist(consulting('パーサーを直してください'))!;
    expect(text).toContain(
      [
        '**🦆 Duck Pacemaker からの相談（タスク t2）**',
        '',
        '> AIが現在の作業プランに自信を失っています。',
        '> 複雑な問題に対して適切な解決策を見つけられずにいる状況です。',
        '',
        'どのように進めますか？',
        '',
        '1. より詳細な要件や制約を教える（説明を添えて）',
        '2. 問題を分割して段階的に進める',
        '3. 別の専門家や資料を参照する（説明を添えて）',
        '4. 現在のアプローチを続ける（上限を +5 回）',
        '',
        '選択してください (1-4): reply `/consult t2 <number>` (with your text after the number where the choice says so)',
      ].join('\n'),
    );
  });

  it('V9 an English instruction: the same layout in English, no machine kind', () => {
    const text = trackerChecklist(consulting('fix the parser'))!;
    expect(text).toContain('**🦆 Duck Pacemaker: task t2 asks how to go on**');
    expect(text).toContain('> The AI has lost confidence in its current plan.');
    expect(text).toContain('How should it go on?\n\n1. Give more detailed requirements or constraints (with your text)');
    expect(text).toContain('Choose (1-4): reply `/consult t2 <number>`');
    expect(text).not.toMatch(/lost_confidence|consult_reference|continue_raised/);
  });
});
