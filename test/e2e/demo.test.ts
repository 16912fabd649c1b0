// Issue 12 / 28: `npm run demo` (its sources, in a process of its own) against the jest run's dev
// server: it ends DONE, leaves the server and its worker running so the Web UI link it prints shows
// the plan (current details come from a query, which needs a worker), and says how to stop both;
// the command it prints stops the worker.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { cli } from '../support/cli';
import { recordedCalls, type RecordedCall } from '../support/transcripts';
import { temporalAddress, until } from '../support/harness';
import { pollersOf } from '../../src/client/workers';
import { decideLiveness } from '../../src/domain/worker-lifecycle';
import type { DecisionRecord } from '../../src/domain/replan';
import { decisionName } from '../../src/domain/words/decisions';
import { phaseName } from '../../src/domain/words/phases';

const workersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-demo-workers-'));
const savedWorkersDir = process.env.REPLANNER_WORKERS_DIR;
beforeAll(() => (process.env.REPLANNER_WORKERS_DIR = workersDir));
afterAll(async () => {
  // Whatever happened, no demo worker outlives the test.
  await cli('worker', 'stop', '--all');
  process.env.REPLANNER_WORKERS_DIR = savedWorkersDir;
  fs.rmSync(workersDir, { recursive: true, force: true });
});

const root = path.resolve(__dirname, '../..');
const DEMO = ['-r', './test/support/ts-register.js', 'src/client/demo.ts'];

/** `npm run demo`'s program in a process of its own (`command`: what runs it; default node), with `env` over the test's. */
async function runDemo(o: { env?: NodeJS.ProcessEnv; command?: string[] } = {}): Promise<{ code: number | null; out: string; pid: number }> {
  const [file, ...args] = o.command ?? [process.execPath, ...DEMO];
  const child = spawn(file!, args, {
    cwd: root,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress(),
      REPLANNER_WORKFLOW_BUNDLE: process.env.REPLANNER_TEST_BUNDLE,
      REPLANNER_WORKERS_DIR: workersDir,
      OPENAI_API_KEY: '',
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { code, out, pid: child.pid! };
}

/** The run_command calls the demo's test task recorded, in the workspace the demo printed. */
function testCommands(out: string): RecordedCall[] {
  const [, runId, ws] = /Run (\S+) started on (\S+)/.exec(out) ?? [];
  return recordedCalls(ws!, runId!, 'test', 'run_command');
}

it('O5 the demo ends DONE, leaves the dev server and its worker running so the Web UI shows the plan, and says how to stop both', async () => {
  const { code, out, pid } = await runDemo();
  expect({ code, out }).toMatchObject({ code: 0 });
  // Its test command really ran, and passed, in the sandbox.
  expect(testCommands(out)).toEqual([expect.objectContaining({ ok: true, output: 'exit code 0\nslugify: 2 checks passed\n' })]);
  const runId = /Run (\S+) started on/.exec(out)?.[1];
  expect(runId).toBeDefined();
  const queue = `replanner-demo-${pid}`;
  expect(out).toContain(`/workflows/run-${runId!}  (the plan: "Current Details" on that page)`);
  // V8: the requests it replayed, counted in words (no machine names like goal_understanding).
  expect(out).toMatch(/^LLM requests replayed: \d+ \(working out the goal 1, deciding whether the plan holds \d+, .*\)$/m);
  expect(out).not.toMatch(/goal_understanding|replan_decision|worker_step/);
  // The server's stop only where this clone's own local server runs (the jest run's is not).
  expect(out).toMatch(
    new RegExp(`(Stop the worker|Stop both): npx replanner worker stop ${queue}( && kill \\$\\(cat \\.replanner/server\\.pid\\))?\\n`),
  );

  // The link shows the plan: the run's current details (the query the Web UI asks) answer, with the demo gone.
  const connection = await Connection.connect({ address: temporalAddress() });
  try {
    const handle = new Client({ connection }).workflow.getHandle(`run-${runId!}`);
    const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toContain('## 📋 Execution Plan');
    expect(meta.currentDetails).toMatch(/- \[x\] .*module/);

    // The printed command stops the worker; then nothing polls the demo's queue (a dead poller the server still lists does not count).
    const stop = await cli('worker', 'stop', queue);
    expect(stop).toMatchObject({ code: 0 });
    await until('the demo worker to stop polling', async () => {
      const pollers = await pollersOf(connection, 'default', queue);
      return decideLiveness({ recordedAlive: false, pollers, nowMs: Date.now() }).alive ? undefined : true;
    });
  } finally {
    await connection.close();
  }
  // The server still answers: the run's final state, no worker needed.
  const status = await cli('status', runId!);
  expect(status.code).toBe(0);
  expect(status.out).toContain(`Run ${runId}: DONE`);
  const decisions = await cli('decisions', runId!);
  expect(decisions.code).toBe(0);
  expect(decisions.out).toMatch(/^decision 1 · /m);
  // The executed task re-decomposition records the plan it produced (issue 21).
  const plans = await cli('decisions', runId!, '--json');
  const rec = (JSON.parse(plans.out) as { records: DecisionRecord[] }).records.find((r) => r.replan_type === 'task_redecomposition' && r.executed);
  expect(rec?.plan_before?.tasks.map((t) => t.id)).toEqual(['slugify']);
  expect(rec?.plan_after?.tasks.map((t) => t.id)).toEqual(['module', 'test', 'docs']);
  // One name per kind of plan change, in the README's words, and no internal codes, in what the user reads.
  expect(status.out).toContain('Plan changes: 1 (split the tasks again 1)');
  expect(`${status.out}\n${decisions.out}`).not.toMatch(/\bR2\.[0-9]/);

  // V2: the demo prints through watch's stream: every phase child the run started, in order, as
  // `phase:` lines; each decision that changed something once, after its phase's entry; the tasks'
  // ends before the reflection phase; the worker's tool calls before its task's end.
  const client = new Client({ connection: await Connection.connect({ address: temporalAddress() }) });
  try {
    const wfId = `run-${runId!}`;
    const history = (await client.workflow.getHandle(wfId).fetchHistory()).events ?? [];
    const children = history
      .map((e) => e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId)
      // The run's phases (its workspace lock is a child too, since the run is the root).
      .filter((x): x is string => !!x?.startsWith(`${wfId}.`))
      .map((id) => /\.([a-z_]+)-(\d+)$/.exec(id)!)
      .map(([, phase, n]) => (n === '1' ? phaseName(phase) : `${phaseName(phase)} (#${n!})`));
    const printed = out
      .split('\n')
      .filter((l) => l.startsWith('phase: '))
      .map((l) => l.slice('phase: '.length));
    expect(printed).toEqual(children);
    const lines = out.split('\n');
    const at = (p: (l: string) => boolean) => lines.findIndex(p);
    const reflection = at((l) => l === 'phase: Reflection');
    for (const id of ['module', 'test', 'docs']) {
      const done = at((l) => l.startsWith(`  [x] ${id} DONE`));
      expect(done).toBeGreaterThan(0);
      expect(done).toBeLessThan(reflection);
      expect(at((l) => l.startsWith(`      ${id} · step `))).toBeLessThan(done);
    }
    const records = (JSON.parse(plans.out) as { records: DecisionRecord[] }).records.filter((r) => r.outcome !== 'none');
    for (const r of records) expect(lines.filter((l) => l.startsWith(`  ${decisionName(r.replan_id)} · ${phaseName(r.phase)}`))).toHaveLength(1);
  } finally {
    await client.connection.close();
  }
});

it("S1 M4 on a machine whose bubblewrap is outside /usr/bin, the demo's test command passes in the sandbox and the run ends DONE", async () => {
  // bwrap hidden from /usr/bin (an overlay with a whiteout, in a private mount namespace of the demo
  // and the worker it starts: the machine's /usr/bin is untouched), a copy of it first on PATH.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-demo-bwrap-'));
  try {
    for (const d of ['upper', 'work', 'bin']) fs.mkdirSync(path.join(dir, d));
    execFileSync('mknod', [path.join(dir, 'upper', 'bwrap'), 'c', '0', '0']);
    fs.copyFileSync(execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim(), path.join(dir, 'bin', 'bwrap'));
    fs.chmodSync(path.join(dir, 'bin', 'bwrap'), 0o755);
    const overlay = `lowerdir=/usr/bin,upperdir=${dir}/upper,workdir=${dir}/work`;
    const demo = ['node', ...DEMO].map((a) => `'${a}'`).join(' ');
    const hidden = `mount -t overlay overlay -o ${overlay} /usr/bin && test ! -e /usr/bin/bwrap && exec ${demo}`;
    const { code, out } = await runDemo({
      command: ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', hidden],
      env: { PATH: `${dir}/bin:${process.env.PATH ?? ''}` },
    });
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out).toMatch(/ {6}test · step 1\.2: run_command\(\{"argv":\["node","test\/slugify\.test\.js"\]\}\)\n/);
    expect(testCommands(out)).toEqual([expect.objectContaining({ ok: true, output: 'exit code 0\nslugify: 2 checks passed\n' })]);
    expect(out).toContain('Run ');
    expect(out).toMatch(/Run \S+: DONE/);
  } finally {
    await cli('worker', 'stop', '--all');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('M4 V6 with no working sandbox the demo ends BLOCKED, naming its test command and why, and shows why the tool call failed', async () => {
  try {
    const { code, out } = await runDemo({ env: { REPLANNER_BWRAP: '/nonexistent/bwrap' } });
    expect(code).toBe(1);
    // The step line says why, on one bounded line.
    expect(out).toMatch(
      / {6}test · step 1\.2: run_command\(\{"argv":\["node","test\/slugify\.test\.js"\]\}\)! \(1 failed: refused: no sandbox for commands on this worker \(bubblewrap \(bwrap\) is not installed: REPLANNER_BWRAP names \/nonexistent\/bwrap, .{0,80}…\)\n/,
    );
    expect(out).toMatch(/\[!\] test BLOCKED — scripted: the command `node test\/slugify\.test\.js` failed: refused: no sandbox for commands on this/);
    expect(out).toMatch(/Run \S+: BLOCKED/);
    expect(out).toContain('Reflection: partial_success (67%) — scripted: 2 of 3 tasks done; not done: test (BLOCKED)');
    expect(out).not.toMatch(/Run \S+: DONE/);
  } finally {
    await cli('worker', 'stop', '--all');
  }
});
