// Issue 28, trying Replanner with no API key: `replanner scripted-model` in a process of its own,
// then the CLI as a new user types it (run, status, answer, pause, resume, watch, diff), with the
// worker `run` starts for the scripted model's address (a detached process, as for any user), and
// `replanner temporal …` running the fetched Temporal CLI against the same server.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunStatus } from '../../src/workflows/messages';
import { cli } from '../support/cli';
import { uniqueId, until } from '../support/harness';

const root = path.resolve(__dirname, '../..');
const dirs: string[] = [];
const saved = { ...process.env };
let model: ChildProcessWithoutNullStreams;
let modelOut = '';

const tmp = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  // The worker `run` starts: records in a throwaway directory, the prebuilt bundle; routed by the model's address.
  delete process.env.REPLANNER_TASK_QUEUE;
  process.env.REPLANNER_WORKERS_DIR = tmp('replanner-tryout-workers-');
  process.env.REPLANNER_WORKFLOW_BUNDLE = process.env.REPLANNER_TEST_BUNDLE;
  process.env.REPLANNER_LOG_LEVEL = 'WARN';
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
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const statusOf = async (id: string) => JSON.parse((await cli('status', id, '--json')).out) as RunStatus;

describe('replanner scripted-model: try run, answer, pause, watch and diff with no API key', () => {
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

  it('stops on SIGTERM (or Ctrl-C), saying so', async () => {
    const stopped = new Promise<number | null>((resolve) => model.on('exit', (c) => resolve(c)));
    model.kill('SIGTERM');
    expect(await stopped).toBe(0);
    expect(modelOut).toContain('Stopped the scripted model.');
  });
});
