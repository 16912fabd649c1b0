// CLI pieces that need no Temporal server: config → run options, config errors before anything
// starts, argument errors of `answer` / `decisions`, and the terminal question asker against a fake client.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { EXIT, main } from '../../src/client/cli';
import { QuestionAsker, answeredLine } from '../../src/client/question-asker';
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
    expect(r.err).toBe(`replanner: the config file ${path.join(tmp, 'nope.yaml')} does not exist (named by REPLANNER_CONFIG)\n`);
  });

  it('a missing --config file, or a directory, is named plainly (no ENOENT), exit 2', async () => {
    const missing = await cli('run', 'x', '--workspace', tmp, '--config', path.join(tmp, 'missing.yaml'));
    expect(missing).toMatchObject({ code: EXIT.USAGE, out: '' });
    expect(missing.err).toBe(`replanner: the config file ${path.join(tmp, 'missing.yaml')} does not exist\n`);
    const dir = await cli('run', 'x', '--workspace', tmp, '--config', tmp);
    expect(dir.code).toBe(EXIT.USAGE);
    expect(dir.err).toBe(`replanner: the config file ${tmp} is a directory, not a file\n`);
    // --json: the same error as JSON on stdout, for scripts.
    const json = await cli('run', 'x', '--workspace', tmp, '--config', path.join(tmp, 'missing.yaml'), '--json');
    expect(json.code).toBe(EXIT.USAGE);
    expect(JSON.parse(json.out)).toEqual({
      error: { message: `the config file ${path.join(tmp, 'missing.yaml')} does not exist`, type: 'ConfigError', exitCode: EXIT.USAGE },
    });
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
    expect(a.err).toContain('npx replanner answer <runId> <questionId> "<text>"');
    expect((await cli('answer', 'r1', 'q1', '   ')).code).toBe(EXIT.USAGE);
    expect((await cli('decisions')).code).toBe(EXIT.USAGE);
  });

  it('--help names the new commands, --config and the env overrides', async () => {
    const h = await cli('--help');
    for (const s of [
      'npx replanner answer <runId> <questionId>',
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

describe('the command line parser (B4)', () => {
  const saved = { ...process.env };
  // Unreachable: a command that got past the parser and tried the server would exit 3, not 2.
  beforeEach(() => {
    process.env.TEMPORAL_ADDRESS = '203.0.113.1:1';
  });
  afterEach(() => {
    process.env = { ...saved };
  });
  const lines = (s: string) => s.split('\n').filter((l) => l !== '');
  /** The long options a help text lists in its Options section. */
  const optionsOf = (help: string) => [...help.slice(help.indexOf('Options:')).matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]);

  it('B4 run --no-such-flag x prints one line naming the option and the help to read, and exits 2', async () => {
    const r = await cli('run', '--no-such-flag', 'x');
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.out).toBe('');
    expect(lines(r.err)).toEqual(["replanner: unknown option '--no-such-flag' for 'run' (see: npx replanner run --help)"]);
  });

  it('B4 a misspelt option is named with the one it may mean, still on one line', async () => {
    const r = await cli('run', 'x', '--workspce', tmp);
    expect(r.code).toBe(EXIT.USAGE);
    expect(lines(r.err)).toEqual(["replanner: unknown option '--workspce' for 'run'; did you mean --workspace? (see: npx replanner run --help)"]);
  });

  it("B4 run --help lists run's arguments and options only", async () => {
    const r = await cli('run', '--help');
    expect(r.code).toBe(EXIT.OK);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^Usage: npx replanner run /);
    expect(r.out).toMatch(/Arguments:\n {2}instruction /);
    expect(optionsOf(r.out).sort()).toEqual(
      [
        '--workspace',
        '--instruction-file',
        '--config',
        '--budget-tokens',
        '--github',
        '--gitlab',
        '--branch',
        '--pull-request',
        '--base',
        '--remote',
        '--id',
        '--wait',
        '--ask',
        '--verbose',
        '--json',
        '--help',
      ].sort(),
    );
    // Nothing of the other commands: not the whole help.
    for (const other of ['--limit', '--all', '--no-sandbox', 'npx replanner status', 'Environment:']) expect(r.out).not.toContain(other);
  });

  it('B4 a missing argument is one line naming it, the usage and the help, exit 2', async () => {
    const status = await cli('status');
    expect(status.code).toBe(EXIT.USAGE);
    expect(lines(status.err)).toEqual([
      "replanner: missing argument 'runId' for 'status': npx replanner status [options] <runId> (see: npx replanner status --help)",
    ]);
    const answer = await cli('answer', 'r1');
    expect(answer.code).toBe(EXIT.USAGE);
    expect(lines(answer.err)).toHaveLength(1);
    expect(answer.err).toContain("missing argument 'questionId' for 'answer'");
    const consult = await cli('consult', 'r1', 't1');
    expect(consult.code).toBe(EXIT.USAGE);
    expect(consult.err).toContain("missing argument 'choice' for 'consult'");
  });

  it('B4 extra arguments, an option without its value and an unknown command are one line each, exit 2', async () => {
    const cases: [string[], string][] = [
      [['status', 'r1', 'r2'], 'replanner: status takes only <runId> (got "r1 r2") (see: npx replanner status --help)'],
      [['resume', 'r1', 'now'], 'replanner: resume takes only <runId> (got "r1 now") (see: npx replanner resume --help)'],
      [['worker', 'status', 'x'], 'replanner: worker status takes no arguments (got "x") (see: npx replanner worker status --help)'],
      [['run', 'x', '--workspace'], "replanner: option '-w, --workspace <dir>' argument missing for 'run' (see: npx replanner run --help)"],
      [['frobnicate'], "replanner: unknown command 'frobnicate' (see: npx replanner --help)"],
      [['worker', 'frobnicate'], 'replanner: unknown worker command "frobnicate" (see: npx replanner worker --help)'],
      [['worker', 'stop', '--no-sandbox'], "replanner: unknown option '--no-sandbox' for 'worker stop' (see: npx replanner worker stop --help)"],
    ];
    for (const [argv, line] of cases) {
      const r = await cli(...argv);
      expect({ argv, code: r.code, err: lines(r.err) }).toEqual({ argv, code: EXIT.USAGE, err: [line] });
    }
  });

  it('B4 every command has its own --help listing its options (and `help <command>` shows the same), exit 0', async () => {
    const commands = [
      ['run'],
      ['status'],
      ['watch'],
      ['answer'],
      ['decisions'],
      ['diff'],
      ['list'],
      ['cancel'],
      ['pause'],
      ['resume'],
      ['consult'],
      ['worker'],
      ['worker', 'status'],
      ['worker', 'stop'],
      ['doctor'],
    ];
    for (const c of commands) {
      const r = await cli(...c, '--help');
      expect({ c, code: r.code, err: r.err }).toEqual({ c, code: EXIT.OK, err: '' });
      expect(r.out).toMatch(new RegExp(`^Usage: npx replanner ${c.join(' ')} `));
      expect(optionsOf(r.out)).toContain('--help');
      // Every command takes --json, except the foreground worker.
      if (c.join(' ') !== 'worker') expect(optionsOf(r.out)).toContain('--json');
      if (c.length === 1) expect((await cli('help', ...c)).out).toBe(r.out);
    }
  });

  it('B4 --help and `help` print the whole CLI, exit 0; no command at all prints it as an error, exit 2', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(EXIT.OK);
    expect(help.out).toContain('npx replanner <command> --help');
    expect((await cli('help')).out).toBe(help.out);
    const none = await cli();
    expect(none.code).toBe(EXIT.USAGE);
    expect(none.err).toContain('Usage:');
  });

  it('V7 --help shows the ports this shell’s TEMPORAL_ADDRESS and TEMPORAL_UI_PORT give, and how to start the server there', async () => {
    const saved = { address: process.env.TEMPORAL_ADDRESS, ui: process.env.TEMPORAL_UI_PORT };
    try {
      process.env.TEMPORAL_ADDRESS = '127.0.0.1:7311';
      delete process.env.TEMPORAL_UI_PORT;
      const derived = (await cli('--help')).out;
      expect(derived).toContain('now 127.0.0.1:7311');
      expect(derived).toContain('on port 7311, Web UI http://localhost:8311');
      expect(derived).toContain('TEMPORAL_ADDRESS=127.0.0.1:7311 npm run server');
      process.env.TEMPORAL_UI_PORT = '9411';
      const set = (await cli('--help')).out;
      expect(set).toContain('Web UI http://localhost:9411');
      expect(set).toContain('TEMPORAL_ADDRESS=127.0.0.1:7311 TEMPORAL_UI_PORT=9411 npm run server');
      expect(`${derived}\n${set}`).not.toContain(':8233');
    } finally {
      for (const [k, v] of [
        ['TEMPORAL_ADDRESS', saved.address],
        ['TEMPORAL_UI_PORT', saved.ui],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  it("B4 a usage error found by the command names that command's help, on one line", async () => {
    const r = await cli('run', 'x');
    expect(r.code).toBe(EXIT.USAGE);
    expect(lines(r.err)).toEqual(['replanner: run needs --workspace DIR (the directory the worker may change) (see: npx replanner run --help)']);
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
    expect(out).toContain('? q1 (confirmation, Goal phase): What about q1?');
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
    expect(out).toContain('npx replanner answer r1 q1 "<text>"');
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
