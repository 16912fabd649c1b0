// Issue 13 (S3, S1) through the real `replanner run` against the dev server and a real worker:
// long instructions by file or stdin, one running run per workspace, a config that asks for no sandbox.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/client/cli';
import { runningRunOn } from '../../src/client/run-start-guards';
import { MAX_INSTRUCTION_CHARS } from '../../src/domain/run-input';
import { startRun } from '../../src/client/runs';
import { cli } from '../support/cli';
import { uniqueId, until, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForCli((x) => (h = x));
beforeEach(() => h.fake.reset());

/** `replanner …` with `stdin` as its standard input. */
async function cliWithStdin(stdin: string, ...argv: string[]) {
  let out = '';
  let err = '';
  const input = new PassThrough();
  input.end(stdin);
  const code = await main(argv, { write: (s: string) => (out += s) }, { write: (s: string) => (err += s) }, input);
  return { code, out, err };
}

const ONE_TASK = { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] };

describe('S3 long instructions come by file or stdin', () => {
  it('S3 a 1 MB instruction inline is refused naming the limit; the same from --instruction-file runs to DONE with prompts truncated (C5)', async () => {
    const big = `HEAD-OF-INSTRUCTION ${'lorem ipsum '.repeat(Math.ceil(1_000_000 / 12))} TAIL-OF-INSTRUCTION`;
    const ws = h.workspace();
    const inline = await cli('run', big, '--workspace', ws);
    expect(inline.code).toBe(2);
    expect(inline.err).toContain(String(MAX_INSTRUCTION_CHARS));
    expect(h.fake.requests).toHaveLength(0);

    scriptScenario(h.fake, ONE_TASK);
    const file = path.join(h.workspace(), 'instruction.txt');
    fs.writeFileSync(file, big);
    const id = uniqueId('file');
    const run = await cli('run', '--instruction-file', file, '--workspace', ws, '--wait', '--json', '--id', id);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out).status).toBe('DONE');

    // Stored beside the run, whole; the run input carries only a head and the path.
    const stored = path.join(ws, '.replanner', 'runs', id, 'instruction.md');
    expect(fs.readFileSync(stored, 'utf8')).toBe(big);
    const history = await h.client.workflow.getHandle(`run-${id}`).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    const input = JSON.parse(Buffer.from(started ?? new Uint8Array()).toString('utf8'));
    expect(input.instructionFile).toBe(stored);
    expect(input.instruction.length).toBeLessThanOrEqual(2002);

    // Every prompt that carries the instruction read it from the file: head and tail around the marker.
    for (const purpose of ['goal_understanding', 'task_decomposition', 'worker_step', 'judge', 'reflection', 'replan_decision']) {
      const reqs = h.fake.requestsFor(purpose);
      expect([purpose, reqs.length > 0]).toEqual([purpose, true]);
      for (const r of reqs) {
        expect([purpose, r.text.includes('HEAD-OF-INSTRUCTION'), r.text.includes('TAIL-OF-INSTRUCTION'), r.text.includes('[truncated')]).toEqual([
          purpose,
          true,
          true,
          true,
        ]);
        expect(r.text.length).toBeLessThan(100_000);
      }
    }
  });

  it('S3 `--instruction-file -` and a bare `-` read the instruction from stdin', async () => {
    for (const argv of [['--instruction-file', '-'], ['-']]) {
      h.fake.reset();
      scriptScenario(h.fake, ONE_TASK);
      const ws = h.workspace();
      const id = uniqueId('stdin');
      const r = await cliWithStdin('write one file, from STDIN-MARKER', 'run', ...argv, '--workspace', ws, '--wait', '--json', '--id', id);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).status).toBe('DONE');
      expect(fs.readFileSync(path.join(ws, '.replanner', 'runs', id, 'instruction.md'), 'utf8')).toBe('write one file, from STDIN-MARKER');
      expect(h.fake.requestsFor('goal_understanding')[0]?.text).toContain('STDIN-MARKER');
    }
  });

  it('S3 an empty or blank instruction file, a missing file, and text plus a file exit 2', async () => {
    const dir = h.workspace();
    fs.writeFileSync(path.join(dir, 'empty.txt'), '');
    fs.writeFileSync(path.join(dir, 'blank.txt'), '  \n\t\n');
    for (const f of ['empty.txt', 'blank.txt']) {
      const r = await cli('run', '--instruction-file', path.join(dir, f), '--workspace', h.workspace());
      expect([f, r.code]).toEqual([f, 2]);
      expect(r.err).toContain('is empty');
    }
    const missing = await cli('run', '--instruction-file', path.join(dir, 'nope.txt'), '--workspace', h.workspace());
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope.txt');
    const both = await cli('run', 'text', '--instruction-file', path.join(dir, 'blank.txt'), '--workspace', h.workspace());
    expect(both.code).toBe(2);
    expect((await cliWithStdin('', 'run', '-', '--workspace', h.workspace())).code).toBe(2);
    expect(h.fake.requests).toHaveLength(0);
  });
});

describe('S3 one running run per workspace', () => {
  it("S3 a second run on a workspace with a running run is refused with that run's id (exit 2); once it ended, a new run starts", async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'slow', title: 'slow', command: ['node', '-e', 'setTimeout(() => {}, 3000)'] }] });
    const ws = h.workspace();
    const first = uniqueId('lock');
    expect((await cli('run', 'be slow', '--workspace', ws, '--id', first)).code).toBe(0);
    const second = await cli('run', 'another thing', '--workspace', ws, '--id', uniqueId('lock'));
    expect(second.code).toBe(2);
    expect(second.err).toContain(`already has a running run: ${first}`);
    // Another workspace is free.
    const elsewhere = uniqueId('lock');
    expect((await cli('run', 'write one file', '--workspace', h.workspace(), '--id', elsewhere)).code).toBe(0);
    await h.client.workflow.getHandle(`run-${first}`).result();
    await h.client.workflow.getHandle(`run-${elsewhere}`).result();
    // The lock file still names the first run, which has ended: no longer in the way.
    const third = await cli('run', 'be slow again', '--workspace', ws, '--wait', '--json');
    expect(third.code).toBe(0);
  });

  it('S3 a run started without the CLI (e.g. temporal workflow start) is found through visibility', async () => {
    scriptScenario(h.fake, { tasks: [{ id: 'slow', title: 'slow', command: ['node', '-e', 'setTimeout(() => {}, 3000)'] }] });
    const ws = h.workspace();
    const { runId, handle } = await startRun(h.client, { instruction: 'be slow', workspace: ws, taskQueue: h.taskQueue });
    expect(fs.existsSync(path.join(ws, '.replanner', 'active-run'))).toBe(false);
    expect(await until('visibility to list the run', () => runningRunOn(h.client, ws), 20_000)).toBe(runId);
    const refused = await cli('run', 'another thing', '--workspace', ws);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(runId);
    await handle.result();
  });
});

describe("S1 the sandbox is the worker's setting", () => {
  it('S1 a config asking for no sandbox exits 2 before anything starts, naming the worker flag', async () => {
    const ws = h.workspace({ 'replanner.yaml': 'execution:\n  sandbox: false\n' });
    const r = await cli('run', 'write one file', '--workspace', ws, '--config', path.join(ws, 'replanner.yaml'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('execution.sandbox');
    expect(r.err).toContain('--no-sandbox');
    expect(h.fake.requests).toHaveLength(0);
  });
});
