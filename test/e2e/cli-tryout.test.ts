// Issue 28, trying Replanner with no API key: `replanner scripted-model` in a process of its own,
// then the CLI as a new user types it (run, status, answer, pause, resume, watch, diff), with the
// worker `run` starts for the scripted model's address (a detached process, as for any user), and
// `replanner temporal …` running the fetched Temporal CLI against the same server.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunStatus } from '../../src/workflows/messages';
import { cli } from '../support/cli';
import { uniqueId, until } from '../support/harness';
import { recordedCalls } from '../support/transcripts';
import { tempDirsForSuite } from '../support/suite-hooks';

const root = path.resolve(__dirname, '../..');
const saved = { ...process.env };
let model: ChildProcessWithoutNullStreams;
let modelOut = '';
/** The command lines the worker started the bubblewrap found first on its PATH with, one per start. */
let bwrapStarts: () => string[];
let bwrapPath: string;

beforeAll(async () => {
  // The worker `run` starts: records in a throwaway directory, the prebuilt bundle; routed by the model's address.
  delete process.env.REPLANNER_TASK_QUEUE;
  process.env.REPLANNER_WORKERS_DIR = tmp('replanner-tryout-workers-');
  process.env.REPLANNER_WORKFLOW_BUNDLE = process.env.REPLANNER_TEST_BUNDLE;
  process.env.REPLANNER_LOG_LEVEL = 'WARN';
  // S1: the worker's bubblewrap is the first on its PATH, here a wrapper that logs each start of it
  // and runs the machine's: the sandbox must run through the path it found, not a bare name.
  const bin = tmp('replanner-tryout-bwrap-');
  const real = execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
  fs.writeFileSync(path.join(bin, 'bwrap'), `#!/bin/sh\necho "$*" >> ${bin}/starts.log\nexec ${real} "$@"\n`, { mode: 0o755 });
  bwrapPath = path.join(bin, 'bwrap');
  bwrapStarts = () => (fs.existsSync(path.join(bin, 'starts.log')) ? fs.readFileSync(path.join(bin, 'starts.log'), 'utf8').split('\n') : []);
  process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  model = spawn(
    process.execPath,
    ['-r', './test/support/ts-register.js', 'test/support/cli-main.ts', 'scripted-model', '--port', '0', '--latency-ms', '150'],
    {
      cwd: root,
      env: { ...process.env },
    },
  );
  model.stdout.on('data', (d: Buffer) => (modelOut += d.toString()));
  model.stderr.on('data', (d: Buffer) => (modelOut += d.toString()));
  const exports = await until('the scripted model to print what to export', async () => /^ {2}export (.*)$/m.exec(modelOut)?.[1], 60_000);
  // The line a user pastes: OPENAI_BASE_URL=… OPENAI_API_KEY=… REPLANNER_MODEL=…
  for (const pair of exports.split(' ')) {
    const [k, v] = pair.split('=') as [string, string];
    process.env[k] = v;
  }
});

afterAll(async () => {
  await cli('worker', 'stop', '--all');
  model.kill('SIGTERM');
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});
// Registered after the hook above: jest runs them in order, so the workers stop before their records go.
const tmp = tempDirsForSuite();

const statusOf = async (id: string) => JSON.parse((await cli('status', id, '--json')).out) as RunStatus;

describe('replanner scripted-model: try run, answer, pause, watch and diff with no API key', () => {
  it('M2 M4 doctor passes on the try-it settings: the scripted model answers its checks as a real model would; exit 0', async () => {
    const r = await cli('doctor');
    const at = (title: string) => r.out.split('\n').find((l) => l.slice(2).startsWith(title)) ?? `(no ${title} line)`;
    expect(at('Sandbox')).toMatch(new RegExp(`^✓ Sandbox: commands run in bubblewrap [\\d.]+ \\(${bwrapPath}\\)$`));
    expect(at('LLM endpoint')).toBe(`✓ LLM endpoint ${process.env.OPENAI_BASE_URL!}: answers`);
    expect(at('Model')).toBe('✓ Model scripted: listed');
    expect(at('Structured output')).toBe('✓ Structured output: json_schema (strict) works: runs will use it');
    expect(at('Tool calls')).toBe('✓ Tool calls: the model answered with a tool call');
    expect(at('Speed')).toMatch(/^✓ Speed: read a ~[\d,]+-token prompt .*; the limits fit/);
    expect(r.out).not.toContain('✗');
    expect(r.out).toContain('A run from this shell can succeed');
    expect(r.code).toBe(0);
  });

  it('says it is not a real model and what to export; a run on it asks one question, can be paused, ends DONE and writes real files', async () => {
    expect(modelOut).toContain('SCRIPTED MODEL: this is not a real model.');
    expect(process.env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(process.env.REPLANNER_MODEL).toBe('scripted');

    const ws = tmp('replanner-tryout-ws-');
    execFileSync('git', ['init', '-q', ws]);
    const id = uniqueId('try');
    const started = await cli('run', 'write a short guide to our API', '--workspace', ws, '--id', id);
    expect(started.code).toBe(0);
    expect(started.err).toContain('Started a Replanner worker on task queue');
    expect(started.out).toContain(`Started run ${id}`);

    // The question, with the command that answers it.
    const waiting = await until('the question', async () => ((await statusOf(id)).questions?.length ? true : undefined), 90_000);
    expect(waiting).toBe(true);
    const human = await cli('status', id);
    expect(human.out).toContain('Who is the result for');
    expect(human.out).toContain(`npx replanner answer ${id} q1 "<text>"`);

    // Paused before the answer: the answer is taken, and nothing more is asked of the model until resume.
    expect((await cli('pause', id, 'trying pause')).code).toBe(0);
    expect((await cli('answer', id, 'q1', 'my team')).code).toBe(0);
    const requestsAt = () => modelOut.split('\n').filter((l) => /^\d\d:\d\d:\d\d {2}\w+$/.test(l)).length;
    await until('the run to show PAUSED', async () => ((await statusOf(id)).status === 'PAUSED' ? true : undefined));
    const before = requestsAt();
    await new Promise((r) => setTimeout(r, 3000));
    expect(requestsAt()).toBe(before);
    expect((await cli('resume', id)).code).toBe(0);

    const watched = await cli('watch', id);
    expect(watched.code).toBe(0);
    expect(watched.out).toContain('question q1 answered: my team');
    expect(watched.out).toContain(`Run ${id}: DONE`);
    // The check command really ran, and passed, in the sandbox, through the bubblewrap the worker found.
    expect(watched.out).toContain(
      '      notes · step 1.2: run_command({"argv":["wc","-l","replanner-tryout/PLAN.md","replanner-tryout/NOTES.md"]})\n',
    );
    expect(watched.out).not.toContain('failed');
    expect(recordedCalls(ws, id, 'notes', 'run_command')).toEqual([
      expect.objectContaining({
        ok: true,
        output: expect.stringMatching(/^exit code 0\n +\d+ replanner-tryout\/PLAN\.md\n +\d+ replanner-tryout\/NOTES\.md\n +\d+ total\n$/),
      }),
    ]);
    expect(bwrapStarts().filter((l) => l.endsWith(' -- wc -l replanner-tryout/PLAN.md replanner-tryout/NOTES.md'))).toHaveLength(1);
    expect(requestsAt()).toBeGreaterThan(before);

    // Real files, with the instruction and the answer in them; diff shows them.
    const plan = fs.readFileSync(path.join(ws, 'replanner-tryout/PLAN.md'), 'utf8');
    expect(plan).toContain('Instruction: write a short guide to our API');
    expect(plan).toContain('For: my team');
    expect(fs.existsSync(path.join(ws, 'replanner-tryout/NOTES.md'))).toBe(true);
    const diff = await cli('diff', id);
    expect(diff.code).toBe(0);
    expect(diff.out).toMatch(/\+\d+ −0 {2}replanner-tryout\/PLAN\.md \(1 write\)/);
    expect(diff.out).toMatch(/\+\d+ −0 {2}replanner-tryout\/NOTES\.md \(1 write\)/);
    expect(diff.out).toContain('+++ b/replanner-tryout/PLAN.md');

    // `replanner temporal …`: the fetched Temporal CLI, on the same server, as the README prints it.
    const query = await cli('temporal', 'workflow', 'query', '--workflow-id', `run-${id}`, '--name', 'status');
    expect(query.code).toBe(0);
    expect(query.out).toContain('"status":"DONE"');
    const list = await until('the run in the Temporal CLI list', async () => {
      const r = await cli('temporal', 'workflow', 'list', '--query', `WorkflowType = 'RunWorkflow' AND WorkflowId = 'run-${id}'`);
      return r.out.includes(`run-${id}`) ? r : undefined;
    });
    expect(list.code).toBe(0);
    // Its exit code and errors are the Temporal CLI's.
    const missing = await cli('temporal', 'workflow', 'describe', '--workflow-id', 'run-no-such-run');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('workflow not found');
    // The same settings as every replanner command, e.g. a profile with TEMPORAL_ADDRESS set but
    // empty (Replanner reads it as unset, the bare Temporal CLI as an override of the profile).
    const profile = path.join(tmp('replanner-profile-'), 'temporal.toml');
    fs.writeFileSync(profile, `[profile.team]\naddress = "${process.env.TEMPORAL_ADDRESS!}"\n`);
    const address = process.env.TEMPORAL_ADDRESS;
    Object.assign(process.env, { TEMPORAL_CONFIG_FILE: profile, TEMPORAL_PROFILE: 'team', TEMPORAL_ADDRESS: '' });
    try {
      const viaProfile = await cli('temporal', 'workflow', 'describe', '--workflow-id', `run-${id}`);
      expect(viaProfile).toMatchObject({ code: 0, err: '' });
      expect(viaProfile.out).toContain(`run-${id}`);
    } finally {
      Object.assign(process.env, { TEMPORAL_ADDRESS: address });
      delete process.env.TEMPORAL_CONFIG_FILE;
      delete process.env.TEMPORAL_PROFILE;
    }
    const help = await cli('temporal', '--help');
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toContain('npx replanner temporal workflow list');
  });

  it('M4 V6 on a worker whose sandbox cannot run commands, the check command fails, watch says why and the run ends BLOCKED', async () => {
    // A worker of its own, whose bubblewrap is missing (the one `run` started for the first test stops first).
    expect((await cli('worker', 'stop', '--all')).code).toBe(0);
    process.env.REPLANNER_BWRAP = '/nonexistent/bwrap';
    try {
      const ws = tmp('replanner-tryout-ws-');
      const id = uniqueId('try');
      expect((await cli('run', 'write a short guide to our API', '--workspace', ws, '--id', id)).code).toBe(0);
      await until('the question', async () => ((await statusOf(id)).questions?.length ? true : undefined), 90_000);
      expect((await cli('answer', id, 'q1', 'just me')).code).toBe(0);
      const watched = await cli('watch', id);
      expect(watched.code).toBe(1);
      expect(watched.out).toMatch(
        /\n {6}notes · step 1\.2: run_command\(\{"argv":\["wc",.*\]\}\)! \(1 failed: refused: no sandbox for commands on this worker \(bubblewrap \(bwrap\) is not installed: REPLANNER_BWRAP names \/nonexistent\/bwrap/,
      );
      expect(watched.out).toMatch(
        /\[!\] notes BLOCKED — scripted: the command `wc -l replanner-tryout\/PLAN\.md replanner-tryout\/NOTES\.md` failed: refused/,
      );
      expect(watched.out).toContain(`Run ${id}: BLOCKED`);
      expect(watched.out).toContain('Reflection: partial_success (50%) — scripted: 1 of 2 tasks done; not done: notes (BLOCKED)');
    } finally {
      delete process.env.REPLANNER_BWRAP;
      await cli('worker', 'stop', '--all');
    }
  });

  it('stops on SIGTERM (or Ctrl-C), saying so', async () => {
    const stopped = new Promise<number | null>((resolve) => model.on('exit', (c) => resolve(c)));
    model.kill('SIGTERM');
    expect(await stopped).toBe(0);
    expect(modelOut).toContain('Stopped the scripted model.');
  });
});
