// X12 / X14 / X9 through the `replanner` CLI, in-process against the real dev server and a real
// worker: `run --config`, `answer`, `decisions`, `status` and `watch --ask`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { WorkflowNotFoundError } from '@temporalio/client';
import { main } from '../../src/client/cli';
import { cli } from '../support/cli';
import type { DecisionsView, Question, RunStatus } from '../../src/workflows/messages';
import { uniqueId, until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { NO_REPLAN_DECISION, scriptScenario } from '../support/scenario';

let h: Harness;
harnessForCli((x) => (h = x));

const CLARIFY = {
  replan_needed: true,
  confidence: 0.9,
  reasoning: 'unclear',
  replan_type: 'clarification_request',
  clarification_needed: true,
  clarification_questions: ['Which format?'],
  issues_found: ['format unspecified'],
  recommended_actions: [],
  assumptions_to_make: ['JSON'],
};

/** A one-task run whose goal_understanding decision asks "Which format?". */
function scriptClarifyingRun(): void {
  h.fake.reset();
  scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
  h.fake.always('replan_decision', { json: NO_REPLAN_DECISION });
  h.fake.script('replan_decision', { json: CLARIFY });
}

async function statusOf(id: string): Promise<RunStatus> {
  const r = await cli('status', id, '--json');
  if (r.code !== 0) throw new Error(`status exited ${r.code}: ${r.err}`);
  return JSON.parse(r.out) as RunStatus;
}

async function pendingQuestion(id: string): Promise<Question> {
  return until(`a pending question in run ${id}`, async () => (await statusOf(id)).questions?.find((q) => q.status === 'pending'), 60_000);
}

describe('replanner run --config (X12)', () => {
  it('X12 an invalid config exits 2 naming the key path, and nothing is started', async () => {
    const ws = h.workspace();
    const file = path.join(ws, 'replanner.yaml');
    fs.writeFileSync(file, 'replanning:\n  llm_decision:\n    min_confidence_threshold: 2\n');
    const id = uniqueId('cfg');
    const before = h.fake.requests.length;
    const r = await cli('run', 'write one file', '--workspace', ws, '--config', file, '--id', id);
    expect(r.code).toBe(2);
    expect(r.err).toContain('replanning.llm_decision.min_confidence_threshold');
    expect(r.err).toMatch(/^replanner: /);
    expect(r.out).toBe('');
    await expect(h.client.workflow.getHandle(`run-${id}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(h.fake.requests.length).toBe(before);
  });

  it('X12 a valid config is passed to the run as RunInput.config, with its execution bounds as options', async () => {
    h.fake.reset();
    scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
    h.fake.always('replan_decision', { json: NO_REPLAN_DECISION });
    const ws = h.workspace();
    const file = path.join(ws, 'replanner.yaml');
    fs.writeFileSync(file, 'replanning:\n  global:\n    max_total_replans: 4\nexecution:\n  maxParallelTasks: 2\n');
    const id = uniqueId('cfg');
    const r = await cli('run', 'write one file', '--workspace', ws, '--config', file, '--id', id, '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const handle = h.client.workflow.getHandle(`run-${id}`);
    await handle.result();
    const history = await handle.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const payload = started?.input?.payloads?.[0]?.data;
    const input = JSON.parse(Buffer.from(payload as Uint8Array).toString('utf8'));
    expect(input.config.replanning.global.max_total_replans).toBe(4);
    expect(input.config.replanning.llm_decision.min_confidence_threshold).toBe(0.5);
    expect(input.options).toMatchObject({ maxParallelTasks: 2, commandTimeoutMs: 120_000 });
  });
});

describe('replanner answer / decisions (X14, X9)', () => {
  it('answer and decisions against a run that does not exist exit 3', async () => {
    const a = await cli('answer', 'no-such-run', 'q1', 'JSON');
    expect(a.code).toBe(3);
    expect(a.err).toContain('no run "no-such-run"');
    const d = await cli('decisions', 'no-such-run');
    expect(d.code).toBe(3);
    expect(d.err).toContain('no run "no-such-run"');
  });

  it('answer on a run that already ended says so with its final status (exit 1), not "not found"', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
    const id = uniqueId('ended');
    expect((await cli('run', 'write one file', '--workspace', h.workspace(), '--wait', '--id', id)).code).toBe(0);
    const a = await cli('answer', id, 'q1', 'JSON');
    expect(a.code).toBe(1);
    expect(a.err).toContain(`run ${id} already ended (DONE); its questions can no longer be answered`);
    const j = await cli('answer', id, 'q1', 'JSON', '--json');
    expect(j.code).toBe(1);
    expect(JSON.parse(j.out)).toMatchObject({ runId: id, answered: false });
  });

  it('X14 a clarification question shows in status, is answered with `answer`, and is logged by `decisions`', async () => {
    scriptClarifyingRun();
    const id = uniqueId('ans');
    expect((await cli('run', 'write the report', '--workspace', h.workspace(), '--id', id)).code).toBe(0);
    const q = await pendingQuestion(id);
    expect(q).toMatchObject({ id: 'q1', kind: 'clarification', phase: 'goal_understanding', status: 'pending' });
    expect(q.text).toContain('Which format?');

    const human = await cli('status', id);
    expect(human.code).toBe(0);
    expect(human.out).toContain('Question q1 (clarification, Goal phase)');
    expect(human.out).toContain(`npx replanner answer ${id} q1 "<text>"`);
    expect(human.out).toMatch(/^Plan changes: 0$/m);
    expect(human.out).toMatch(/^Last decision: decision \d+ · Goal · asked you a question · /m);

    const dj = await cli('decisions', id, '--json');
    expect(dj.code).toBe(0);
    const view = JSON.parse(dj.out) as DecisionsView;
    expect(view.records.some((r) => r.replan_type === 'clarification_request' && r.phase === 'goal_understanding')).toBe(true);
    expect(view.questions.map((x) => x.id)).toContain('q1');
    const dh = await cli('decisions', id);
    expect(dh.code).toBe(0);
    expect(dh.out).toContain(`Decisions of run ${id}:`);
    expect(dh.out).toMatch(/decision \d+ · Goal · asked you a question · waiting for your answer/);
    expect(dh.out).toContain('q1 (clarification, Goal phase, pending');

    // Rejections exit 2 with the validator's reason.
    const unknown = await cli('answer', id, 'q9', 'JSON');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('the answer was rejected');
    expect(unknown.err).toContain('q9');

    const ok = await cli('answer', id, 'q1', 'JSON', 'please');
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out.trim()).toMatch(/^answered q1( \(still waiting: .*\))?$/);

    const again = await cli('answer', id, 'q1', 'CSV', '--json');
    expect(again.code).toBe(2);
    expect(again.err).toContain('the answer was rejected');

    const w = await cli('watch', id);
    expect(w.code).toBe(0);
    expect(w.out).toContain(`Run ${id}: DONE`);
    const after = JSON.parse((await cli('decisions', id, '--json')).out) as DecisionsView;
    expect(after.questions.find((x) => x.id === 'q1')).toMatchObject({ status: 'answered', answer: 'JSON please' });
    expect((await cli('decisions', id)).out).toContain('answer: JSON please');
  });

  it('X14 watch --ask asks the pending question on stdin and sends the answer', async () => {
    scriptClarifyingRun();
    const id = uniqueId('ask');
    expect((await cli('run', 'write the report', '--workspace', h.workspace(), '--id', id)).code).toBe(0);
    const input = new PassThrough();
    let out = '';
    let err = '';
    const watching = main(['watch', id, '--ask'], { write: (s: string) => (out += s) }, { write: (s: string) => (err += s) }, input);
    await until('the prompt for q1', async () => (out.includes('q1 — your answer') ? true : undefined), 60_000);
    expect(out).toContain('? q1 (clarification, Goal phase): ');
    expect(out).toContain('Which format?');
    input.write('q9 is not a thing\n'); // a plain answer to q1; the text is free
    const code = await watching;
    expect(err).toBe('');
    expect(out).toContain('answered q1');
    expect(code).toBe(0);
    expect(out).toContain(`Run ${id}: DONE`);
    const view = JSON.parse((await cli('decisions', id, '--json')).out) as DecisionsView;
    expect(view.questions.find((x) => x.id === 'q1')).toMatchObject({ status: 'answered', answer: 'q9 is not a thing' });
  });

  it('watch without --ask (no terminal) only prints the question and the answer command', async () => {
    scriptClarifyingRun();
    const id = uniqueId('ask');
    expect((await cli('run', 'write the report', '--workspace', h.workspace(), '--id', id)).code).toBe(0);
    let out = '';
    const watching = main(['watch', id], { write: (s: string) => (out += s) }, { write: () => undefined }, new PassThrough());
    await until('the question line', async () => (out.includes(`npx replanner answer ${id} q1 "<text>"`) ? true : undefined), 60_000);
    expect(out).not.toContain('q1 — your answer');
    expect((await cli('answer', id, 'q1', 'JSON')).code).toBe(0);
    expect(await watching).toBe(0);
  });
});
