// V4 / V5 through the real `replanner` CLI against the dev server and a real worker: a run that
// waits for its question and is then terminated (`replanner temporal workflow terminate`, what a
// user types) or cancelled is never shown WAITING again; its question shows closed, with why, and
// no command to answer it; and `watch <id> | head -3` on a waiting run returns once head has its
// lines, not when the run next prints. The runs are the scripted model's tryout scenario.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { DecisionsView } from '../../src/workflows/messages';
import { STATUS_KEY } from '../../src/workflows/search-attributes';
import { cli } from '../support/cli';
import { listLineOf, statusOf, waitingTryoutRun } from '../support/cli-runs';
import { until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';

let h: Harness;
harnessForCli((x) => (h = x));

const root = path.resolve(__dirname, '../..');
/** What status, status --json and decisions say of the question of a run that ended `status`. */
async function expectQuestionClosed(id: string, status: string, why: string): Promise<void> {
  const text = await cli('status', id);
  expect(text.code).toBe(0);
  expect(text.out).toContain(`Run ${id}: ${status}`);
  expect(text.out).toMatch(new RegExp(`^Question q1 \\(clarification, Goal phase\\): .* — closed: ${why}$`, 'm'));
  expect(text.out).not.toContain('replanner answer');
  expect(text.out).toMatch(new RegExp(`^Last decision: decision 1 · Goal · asked you a question · never answered: ${why} · `, 'm'));
  const json = await statusOf(id);
  expect(json.questions).toEqual([expect.objectContaining({ id: 'q1', status: 'closed', closedWhy: why })]);
  expect(json.waiting).toBeUndefined();
  const decisions = await cli('decisions', id);
  expect(decisions.out).toContain(`    closed: ${why}`);
  expect(decisions.out).not.toContain('replanner answer');
  expect((JSON.parse((await cli('decisions', id, '--json')).out) as DecisionsView).questions[0]).toMatchObject({ status: 'closed' });
}

describe('V4 a run that ended while it waited', () => {
  it('V4 terminated with `temporal workflow terminate` while waiting: TERMINATED in list, gone from list --waiting, its question closed in status and decisions', async () => {
    const id = await waitingTryoutRun(h, 'term');
    expect(await until('list --waiting to show it', async () => (await listLineOf(id, '--waiting')) || undefined)).toContain(`${id}\tWAITING`);

    const terminated = await cli('temporal', 'workflow', 'terminate', '--workflow-id', `run-${id}`, '--reason', 'stuck');
    expect(terminated.code).toBe(0);
    // Its ReplannerStatus search attribute still says WAITING: the run never ran again to change it.
    expect((await h.client.workflow.getHandle(`run-${id}`).describe()).typedSearchAttributes.get(STATUS_KEY)).toBe('WAITING');
    const line = await until('list to show it TERMINATED', async () => {
      const l = await listLineOf(id);
      return l.includes('\tTERMINATED\t') ? l : undefined;
    });
    expect(line).not.toContain('↳');
    expect(await listLineOf(id, '--waiting')).toBe('');
    await expectQuestionClosed(id, 'TERMINATED', 'the run was terminated');
  });

  it('V4 cancelled while waiting: its question shows closed, with why, in status, --json, decisions and watch; an answer is refused saying the run ended', async () => {
    const id = await waitingTryoutRun(h, 'cancel');
    expect((await cli('cancel', id)).code).toBe(0);
    await h.client.workflow
      .getHandle(`run-${id}`)
      .result()
      .catch(() => undefined);
    await expectQuestionClosed(id, 'CANCELLED', 'the run was cancelled');
    expect(await until('list to show it CANCELLED', async () => ((await listLineOf(id)).includes('\tCANCELLED\t') ? true : undefined))).toBe(true);
    expect(await listLineOf(id, '--waiting')).toBe('');
    // The run closed the question itself when it was cancelled: watch tells it from the run's events.
    const watch = await cli('watch', id);
    expect(watch.code).toBe(1);
    expect(watch.out).toContain('  question q1 closed: the run was cancelled');
    const answer = await cli('answer', id, 'q1', 'my team');
    expect(answer.code).toBe(1);
    expect(answer.err).toContain('CANCELLED');
  });
});

describe('V5 watch and its reader', () => {
  it('V5 `replanner watch <id> | head -3` on a waiting run returns as soon as head has its three lines (exit 0, nothing on stderr)', async () => {
    const id = await waitingTryoutRun(h, 'head');
    // pipefail: the pipeline fails if watch does.
    const cmd = `set -o pipefail; node -r ./test/support/ts-register.js test/support/cli-main.ts watch ${id} | head -3`;
    const shell = spawn('bash', ['-c', cmd], { cwd: root, env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let third = 0;
    shell.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!third && out.split('\n').length > 3) third = Date.now();
    });
    shell.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => shell.on('exit', (c) => resolve(c)));
    const ended = Date.now();
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out.split('\n').filter(Boolean)).toHaveLength(3);
    // Before: it ended only when the watch next wrote, its "still in …" line 30 s later.
    expect(ended - third).toBeLessThan(10_000);
    await cli('cancel', id);
  }, 120_000);
});
