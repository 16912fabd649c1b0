// CLI pieces that need no Temporal server: config → run options, config errors before anything
// starts, argument errors of `answer` / `decisions`, and the terminal question asker against a fake client.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { EXIT, QuestionAsker, answeredLine, main } from '../../src/client/cli';
import { runOptionsFromConfig } from '../../src/client/runs';
import { ConfigError, parseConfig } from '../../src/domain/config';
import type { Question, RunStatus } from '../../src/workflows/messages';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { write: (s: string) => (out += s) }, { write: (s: string) => (err += s) }, new PassThrough());
  return { code, out, err };
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-cli-unit-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('runOptionsFromConfig (X12)', () => {
  it('maps execution bounds (refinement and pacemaker travel in the config itself)', () => {
    expect(runOptionsFromConfig(parseConfig({}))).toEqual({ maxParallelTasks: 3, commandTimeoutMs: 120_000 });
    const o = runOptionsFromConfig(
      parseConfig({ execution: { maxParallelTasks: 5, commandTimeoutSeconds: 2.5 }, refinement: { maxRefinementAttempts: 4 } }),
    );
    expect(o).toEqual({ maxParallelTasks: 5, commandTimeoutMs: 2500 });
  });

  it('X12 S3 the one parser rejects a typo in refinement / pacemaker with the key path, before any run starts', () => {
    const raw = { refinement: { maxRefinementAttempt: 4 }, pacemaker: { bogus: 1 } };
    expect(() => parseConfig(raw)).toThrow(ConfigError);
    expect(() => parseConfig(raw)).toThrow(/refinement\.maxRefinementAttempt: unknown key/);
    expect(() => parseConfig(raw)).toThrow(/pacemaker\.bogus: unknown key/);
  });
});

describe('replanner run --config: errors before anything starts (X12)', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  // An unreachable address: were anything started or contacted, the exit code would be 3, not 2.
  beforeEach(() => {
    process.env.TEMPORAL_ADDRESS = '203.0.113.1:1';
  });

  it('an invalid value exits 2 naming the key path', async () => {
    const file = path.join(tmp, 'bad.yaml');
    fs.writeFileSync(file, 'replanning:\n  llm_decision:\n    min_confidence_threshold: 2\n');
    const r = await cli('run', 'x', '--workspace', tmp, '--config', file);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toMatch(/^replanner: invalid config: replanning\.llm_decision\.min_confidence_threshold: /);
    expect(r.out).toBe('');
  });

  it('REPLANNER_CONFIG is read when --config is absent; a missing file is named', async () => {
    process.env.REPLANNER_CONFIG = path.join(tmp, 'nope.yaml');
    const r = await cli('run', 'x', '--workspace', tmp);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toContain('cannot read config file');
    expect(r.err).toContain('REPLANNER_CONFIG');
  });

  it('env overrides are checked: MAX_TOTAL_REPLANS=-1 exits 2', async () => {
    process.env.MAX_TOTAL_REPLANS = '-1';
    const r = await cli('run', 'x', '--workspace', tmp);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toContain('MAX_TOTAL_REPLANS');
  });

  it('YAML syntax errors and unknown keys exit 2', async () => {
    const file = path.join(tmp, 'typo.yaml');
    fs.writeFileSync(file, 'replaning:\n  enabled: false\n');
    const r = await cli('run', 'x', '--workspace', tmp, '--config', file);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toContain('replaning: unknown key');
    fs.writeFileSync(file, 'replanning: [\n');
    expect((await cli('run', 'x', '--workspace', tmp, '--config', file)).code).toBe(EXIT.USAGE);
  });
});

describe('argument errors', () => {
  it('S3 an empty or blank instruction, an oversized one, a bad --id and a bad --limit exit 2 before anything starts', async () => {
    for (const instruction of ['', '   \n\t ']) {
      const r = await cli('run', instruction, '--workspace', tmp);
      expect(r.code).toBe(EXIT.USAGE);
      expect(r.err).toContain('the instruction is empty');
    }
    const big = await cli('run', 'x'.repeat(1_000_000), '--workspace', tmp);
    expect(big.code).toBe(EXIT.USAGE);
    expect(big.err).toContain('the instruction has 1000000 characters; the limit is 64000');
    const id = await cli('run', 'do it', '--workspace', tmp, '--id', '../etc');
    expect(id.code).toBe(EXIT.USAGE);
    expect(id.err).toContain('invalid run id "../etc"');
    for (const limit of ['abc', '0', '-3', '2.5', '100000']) {
      const l = await cli('list', `--limit=${limit}`);
      expect(l.code).toBe(EXIT.USAGE);
      expect(l.err).toContain('--limit must be a whole number from 1 to 1000');
    }
  });

  it('answer needs run id, question id and text; decisions needs a run id', async () => {
    const a = await cli('answer', 'r1', 'q1');
    expect(a.code).toBe(EXIT.USAGE);
    expect(a.err).toContain('replanner answer <runId> <questionId> "<text>"');
    expect((await cli('answer', 'r1', 'q1', '   ')).code).toBe(EXIT.USAGE);
    expect((await cli('decisions')).code).toBe(EXIT.USAGE);
  });

  it('--help names the new commands, --config and the env overrides', async () => {
    const h = await cli('--help');
    for (const s of [
      'replanner answer <runId> <questionId>',
      'replanner decisions <runId>',
      '--config FILE',
      '--ask',
      'REPLANNER_CONFIG',
      'REPLANNING_ENABLED',
      'REPLANNING_MIN_CONFIDENCE',
      'MAX_TOTAL_REPLANS',
    ]) {
      expect(h.out).toContain(s);
    }
  });

  it('answeredLine says which questions still wait', () => {
    expect(answeredLine({ questionId: 'q1', stillPending: ['q2', 'q3'] })).toBe('answered q1 (still waiting: q2, q3)');
    expect(answeredLine({ questionId: 'q1', stillPending: [] })).toBe('answered q1');
  });
});

// ------------------------------------------------------------------------------------------------

const question = (id: string, kind: Question['kind'] = 'clarification'): Question => ({
  id,
  kind,
  phase: 'goal_understanding',
  replanId: 'replan-1',
  text: `What about ${id}?`,
  assumptions: ['JSON'],
  timeoutMinutes: 30,
  askedAt: '2024-01-01T00:00:00.000Z',
  status: 'pending',
});

const statusWith = (questions: Question[]): RunStatus =>
  ({ runId: 'r1', status: 'RUNNING', phase: 'goal_understanding', tasks: [], questions }) as unknown as RunStatus;

/** A Client whose run answers questions like the workflow's validator would. */
function fakeClient(pending: Question[]) {
  const sent: { questionId: string; answer: string }[] = [];
  const client = {
    workflow: {
      getHandle: () => ({
        executeUpdate: async (_u: unknown, { args: [a] }: { args: [{ questionId: string; answer: string }] }) => {
          sent.push(a);
          const q = pending.find((x) => x.id === a.questionId);
          if (!q) throw new WorkflowUpdateFailedError('Workflow Update failed', new Error(`no pending question "${a.questionId}"`));
          if (q.kind === 'confirmation' && !/^(yes|no)$/i.test(a.answer)) {
            throw new WorkflowUpdateFailedError('Workflow Update failed', new Error(`question ${q.id} is a confirmation: answer yes or no`));
          }
          pending.splice(pending.indexOf(q), 1);
          return { questionId: q.id, stillPending: pending.map((x) => x.id) };
        },
        query: async () => statusWith(pending),
      }),
    },
  } as unknown as Client;
  return { client, sent };
}

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('QuestionAsker (X14 on the terminal)', () => {
  it('asks each question once, re-asks after a rejection, reports what still waits', async () => {
    const pending = [question('q1', 'confirmation'), question('q2')];
    const { client, sent } = fakeClient(pending);
    const input = new PassThrough();
    let out = '';
    const asker = new QuestionAsker(client, 'r1', input, { write: (s: string) => (out += s) });
    asker.offer(statusWith([...pending]));
    asker.offer(statusWith([...pending])); // the same questions again: not asked twice
    await until('the q1 prompt', () => out.includes('q1 — yes or no'));
    expect(out).toContain('? q1 (confirmation, goal_understanding): What about q1?');
    input.write('\n');
    await until('the empty-answer hint', () => out.includes('(empty answer'));
    input.write('maybe\n');
    await until('the rejection', () => out.includes('rejected: question q1 is a confirmation: answer yes or no'));
    input.write('yes\n');
    await until('the ack', () => out.includes('answered q1 (still waiting: q2)'));
    await until('the q2 prompt', () => out.includes('q2 — your answer'));
    input.write('use JSON\n');
    await until('the second ack', () => /answered q2\n/.test(out));
    await asker.close();
    expect(sent).toEqual([
      { questionId: 'q1', answer: 'maybe' },
      { questionId: 'q1', answer: 'yes' },
      { questionId: 'q2', answer: 'use JSON' },
    ]);
    expect(out.match(/\? q1 /g)?.length).toBe(1);
  });

  it('end of input stops asking but says how to answer', async () => {
    const pending = [question('q1')];
    const { client, sent } = fakeClient(pending);
    const input = new PassThrough();
    let out = '';
    const asker = new QuestionAsker(client, 'r1', input, { write: (s: string) => (out += s) });
    asker.offer(statusWith(pending));
    input.end();
    await until('the EOF note', () => out.includes('input ended'));
    expect(out).toContain('replanner answer r1 q1 "<text>"');
    asker.offer(statusWith([question('q2')]));
    await asker.close();
    expect(out).not.toContain('? q2');
    expect(sent).toEqual([]);
  });

  it('withdraws the prompt of a question answered elsewhere and moves on', async () => {
    const pending = [question('q1'), question('q2')];
    const { client, sent } = fakeClient(pending);
    const input = new PassThrough();
    let out = '';
    const asker = new QuestionAsker(client, 'r1', input, { write: (s: string) => (out += s) });
    asker.offer(statusWith([...pending]));
    await until('the q1 prompt', () => out.includes('q1 — your answer'));
    asker.offer(statusWith([pending[1]!]));
    await until('the q2 prompt', () => out.includes('q2 — your answer'));
    expect(out).toContain('q1 is no longer waiting for an answer');
    input.write('fine\n');
    await until('the ack', () => out.includes('answered q2'));
    await asker.close();
    expect(sent).toEqual([{ questionId: 'q2', answer: 'fine' }]);
  });
});
