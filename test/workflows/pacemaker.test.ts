// Issue 5: the Duck Pacemaker in TaskWorkflow (P1–P8): a stalling task consults the user,
// who answers through the CLI; the answer's effect is visible in what the worker is asked next.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { cli } from '../support/cli';
import { renderStatus } from '../../src/client/render';
import { taskWorkflowId } from '../../src/workflows/execution';
import { answerConsultationSignal, answerConsultationUpdate, statusQuery, taskStatusQuery, type RunStatus } from '../../src/workflows/messages';
import { FAST, until, runOutcome, type Harness } from '../support/harness';
import { startRun } from '../support/start-run';
import { expectDone } from '../support/expectations';
import { harnessForSuite } from '../support/suite-hooks';
import { nth } from '../support/lists';
import { stalledParserVerdict, TRIGGER } from '../support/pacemaker-triggers';
import { scriptScenario } from '../support/scenario';
import { consultationMessage, type InterventionKind } from '../../src/domain/pacemaker';

let h: Harness;
harnessForSuite((started) => (h = started));

const GUIDANCE = 'The parser must live in lib/strings.ts; stop rewriting stall.txt.';

/**
 * One task whose worker keeps writing the same file and whose judge keeps missing the same thing
 * (stalled), until `unstuck()` says otherwise; the pacemaker is set so that `kind` is what it sees.
 */
function stallingRun(kind: InterventionKind = 'no_progress') {
  let unstuck = false;
  const t = TRIGGER[kind];
  scriptScenario(h.fake, {
    tasks: [{ id: 's', title: 'make the parser work', profile: t.profile, files: { 'stall.txt': 'same thing again' } }],
    replacements: {
      s: [
        { id: 'lex', title: 'write the lexer', files: { 'lexer.txt': 'tokens' } },
        { id: 'parse', title: 'write the parser', dependencies: ['lex'], files: { 'parser.txt': 'tree' } },
        { id: 'wire', title: 'wire the parser in', dependencies: ['parse'], files: { 'wired.txt': 'ok' } },
      ],
    },
    judge: (taskId) =>
      unstuck || taskId !== 's' ? { success: true, reason: 'the parser works', missingRequirements: [] } : stalledParserVerdict(t.confidence),
  });
  return { unstuck: () => (unstuck = true) };
}

async function startStalling(kind: InterventionKind = 'no_progress', instruction = 'make the parser work') {
  const { runId, handle } = await startRun(
    h,
    { instruction, workspace: h.workspace(), options: FAST, config: { pacemaker: TRIGGER[kind].pacemaker } },
    'duck',
  );
  const status = await until<RunStatus>('a consultation in the run status', async () => {
    const s = await handle.query(statusQuery);
    return s.consultations?.length ? s : undefined;
  });
  return { runId, handle, status, task: h.client.workflow.getHandle(taskWorkflowId(handle.workflowId, 's')) };
}

describe('Duck Pacemaker consultations (P1–P8)', () => {
  it('P7 V9 a stalled task consults the user, shown in the Japanese instruction\'s language as seed 002 lays it out; the user answers "guidance" through the CLI; the text is in the next worker request', async () => {
    const stall = stallingRun();
    const { runId, handle, status, task } = await startStalling('no_progress', 'パーサーが動くようにしてください');

    const c = nth(status.consultations ?? [], 0, 'consultation');
    expect(c).toMatchObject({ id: 's-c1', taskId: 's', kind: 'no_progress' });
    expect(c.choices.map((x) => [x.key, x.effect])).toEqual([
      ['stop', 'stop'],
      ['guidance', 'guidance'],
      ['continue', 'continue_raised'],
      ['different_approach', 'restart'],
    ]);
    // V9: the task kept seed 002's Japanese situation, and `status` shows the consultation as the seed
    // lays it out, in the instruction's language: title, situation, question, numbered choices, prompt.
    expect(c.messageJa).toBe(consultationMessage('no_progress', c.iteration).ja);
    const shown = renderStatus(status);
    const cliStatus = await cli('status', runId);
    for (const text of [shown, cliStatus.out]) {
      expect(text).toContain(
        [
          '🦆 Duck Pacemaker からの相談（タスク s）',
          '',
          ...consultationMessage('no_progress', c.iteration).ja.split('\n'),
          '',
          'どのように進めますか？',
          '1. 作業を中止する',
          '2. 追加の指示や情報を提供する（説明を添えて）',
        ].join('\n'),
      );
      expect(text).toContain(`選択してください (1-4): npx replanner consult ${runId} s <number> ["text"]`);
    }
    // The task's own query shows it too, with the pacemaker's limit.
    const ts = await task.query(taskStatusQuery);
    expect(ts.consultation?.id).toBe('s-c1');
    expect(ts.pacemaker!.maxLoops).toBeGreaterThanOrEqual(3);
    const asked = h.fake.requestsFor('worker_step').length;
    expect(h.fake.requestsFor('worker_step').some((r) => r.text.includes('USER GUIDANCE'))).toBe(false);

    stall.unstuck();
    const r = await cli('consult', runId, 's', 'guidance', GUIDANCE);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain('Answered task s (s-c1): guidance');

    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');
    const next = h.fake.requestsFor('worker_step').slice(asked);
    expect(next.length).toBeGreaterThan(0);
    expect(nth(next, 0).text).toContain(`USER GUIDANCE:\n${GUIDANCE}`);
    const final = await handle.query(statusQuery);
    expect(final.consultations).toEqual([]);
  });

  it('P7 the answerConsultation validator rejects bad answers clearly; the signal twin ignores them; "stop" blocks the task', async () => {
    stallingRun();
    const { runId, handle, task } = await startStalling();

    const rejected = async (answer: Record<string, unknown>) => {
      const err = await task.executeUpdate(answerConsultationUpdate, { args: [answer as never] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      return String((err as WorkflowUpdateFailedError).cause?.message);
    };
    expect(await rejected({ choice: 'dance' })).toContain(
      'unknown choice "dance": answer one of 1|stop, 2|guidance, 3|continue, 4|different_approach',
    );
    expect(await rejected({ choice: 2 })).toContain('choice 2 (guidance) needs the text');
    expect(await rejected({ choice: 'guidance', guidance: '   ' })).toContain('needs the text');
    expect(await rejected({ consultationId: 's-c9', choice: 'stop' })).toContain('consultation "s-c9" is not pending');

    const viaCli = await cli('consult', runId, 's', 'dance');
    expect(viaCli.code).toBe(2);
    expect(viaCli.err).toContain('unknown choice "dance"');

    // An invalid signal is ignored: the consultation is still pending.
    await task.signal(answerConsultationSignal, { choice: 'dance' });
    expect((await task.query(taskStatusQuery)).consultation?.id).toBe('s-c1');

    await task.signal(answerConsultationSignal, { choice: 'stop' });
    const result = await runOutcome(handle);
    expect(result.status).toBe('BLOCKED');
    expect(result.blocked).toEqual([{ taskId: 's', reason: expect.stringContaining('stopped by the user') }]);

    // Nothing is pending any more: a late answer is rejected.
    const late = await cli('consult', runId, 's', 'stop');
    expect(late.code).not.toBe(0);
  });

  it.each<[InterventionKind, string, string]>([
    ['lost_confidence', 'split', 're-decompose the task into smaller steps: lexer first'],
    ['too_many_attempts', 'simplify', 're-decompose the task with a simplified scope (only what is essential): lexer first'],
  ])('P7 J6 %s "%s" re-decomposes the stalled task; the planner is told why; its replacements run and the run is DONE', async (kind, choice, why) => {
    stallingRun(kind);
    const { runId, handle } = await startStalling(kind);
    const r = await cli('consult', runId, 's', choice, 'lexer first');
    expect(r).toMatchObject({ code: 0, err: '' });
    const result = await expectDone(handle, [
      ['s', 'REPLACED_BY_REPLAN'],
      ['lex', 'DONE'],
      ['parse', 'DONE'],
      ['wire', 'DONE'],
    ]);
    expect(result.tasks[0]!.replanningInfo?.replacedBy).toEqual(['lex', 'parse', 'wire']);
    // The planner was told why: the user's choice, with the instruction and the Coverage criterion (C2).
    const [replan] = h.fake.requestsFor('task_replan');
    expect(replan!.text).toContain(why);
    expect(replan!.text).toContain('make the parser work');
    expect(replan!.text).toContain('Coverage');
  });
});
