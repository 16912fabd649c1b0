// V7 (issue 36): every command the product prints works when pasted into the shell the README sets
// up: a fresh clone (test/support/readme-shell.ts), bash with a plain PATH (no `temporal`, no
// .tools/bin), `npx replanner …` from the clone, with TEMPORAL_ADDRESS and TEMPORAL_UI_PORT on ports
// of the test's own. Nothing is started for it: the "no Temporal server" hint's own command starts
// the server, the scripted model's printed lines start the run, and so on.
//
// What it reads: `--help` of every command, the no-server hint and other errors, the scripted
// model's settings, `run`'s and the demo's closing lines, `status`, `list` and `list --waiting`, the
// run's current details (the Web UI's), `watch` and its Ctrl-C line, and the output of every command
// it runs. Every command line in them is found (test/support/printed-commands.ts: by its first
// words, not by where it is printed, so a command added anywhere is found), its placeholders filled
// with the real run's values, and then:
//   - a concrete command is run in that shell when the run is in the state it is meant for (a pause
//     while the run waits, an answer while it is paused, …) and must exit 0, or be refused with the
//     documented code and reason where it comes after another already did the job (a second answer
//     to one question: exit 2, "already answered"; cancel of an ended run: exit 1);
//   - a syntax line ([optional] parts, a|b, DIR, FILE, N) must start with `npx replanner`, name a
//     command that exists, and only options that command's help lists.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { commandPaths, main } from '../../src/client/cli';
import type { RunStatus } from '../../src/workflows/messages';
import { freePort } from '../support/dev-server';
import { until } from '../support/harness';
import { commandPathOf, extractCommands, fillPlaceholders, flagsOf, isSyntax, type Fill } from '../support/printed-commands';
import { ReadmeShell, type Ran, type Running } from '../support/readme-shell';

const root = path.resolve(__dirname, '../..');
let PATHS: string[][] = [];
let NAMES: string[] = [];
beforeAll(async () => {
  PATHS = await commandPaths();
  NAMES = [...new Set(PATHS.map((p) => p[0]!))];
});

/** The run's states, in order; each command kind is run in one of them. */
const STAGES = ['serverUp', 'waiting', 'paused', 'answered', 'ended', 'cleanup', 'last', 'final'] as const;
type Stage = (typeof STAGES)[number];
interface Expect {
  code: number;
  says?: RegExp;
}
interface Kind {
  name: string;
  test: RegExp;
  stage: Stage;
  /** `first`: no command of its kind ran before; `late`: the run is past the kind's stage. */
  expect(cmd: string, first: boolean, late: boolean): Expect;
  /** Runs until the run ends (watch): started at its stage, awaited when the run has ended. */
  follows?: true;
}
const OK: Expect = { code: 0 };
const viaTemporal = (cmd: string) => /^npx replanner temporal /.test(cmd);
const KINDS: Kind[] = [
  // Any command's help, whatever the command: it only reads.
  { name: 'help', test: / --help$|^npx replanner (temporal )?help\b/, stage: 'ended', expect: () => OK },
  { name: 'export', test: /^export /, stage: 'serverUp', expect: () => OK },
  { name: 'mkdir', test: /^mkdir -p /, stage: 'serverUp', expect: () => OK },
  // A second server on the same ports is refused, naming why.
  { name: 'server', test: /(^|\s)npm run server$/, stage: 'serverUp', expect: () => ({ code: 1, says: /is in use/ }) },
  {
    name: 'run',
    test: /^npx replanner run /,
    stage: 'serverUp',
    expect: (_, first) => (first ? OK : { code: 2, says: /already has a running run/ }),
  },
  { name: 'watch', test: /^npx replanner watch \S+$/, stage: 'waiting', follows: true, expect: () => ({ code: 0, says: /: DONE/ }) },
  { name: 'pause', test: /^npx replanner pause /, stage: 'waiting', expect: (_, __, late) => (late ? { code: 1 } : { code: 0, says: /paused/ }) },
  {
    name: 'answer',
    test: /^npx replanner answer |--name answerClarification /,
    stage: 'paused',
    expect: (cmd, first, late) => (late ? { code: 1 } : first ? OK : { code: viaTemporal(cmd) ? 1 : 2, says: /already answered/ }),
  },
  { name: 'resume', test: /^npx replanner resume |--name resume$/, stage: 'answered', expect: (_, __, late) => (late ? { code: 1 } : OK) },
  { name: 'cancel', test: /^npx replanner cancel |workflow (cancel|terminate) /, stage: 'ended', expect: () => ({ code: 1 }) },
  { name: 'foreground worker', test: /^(\S+=\S+ )*npx replanner worker( --[a-z-]+)*$/, stage: 'ended', expect: () => OK },
  { name: 'worker stop', test: /^npx replanner worker stop (?!--all)[^&]+$/, stage: 'cleanup', expect: () => OK },
  // The demo's line stops its worker and the server; --all after it finds nothing left running.
  { name: 'server stop', test: /kill \$\(cat /, stage: 'last', expect: () => OK },
  { name: 'worker stop --all', test: /^npx replanner worker stop --all$/, stage: 'final', expect: () => OK },
  // Anything else reads: status, list, decisions, diff, worker status, --help, temporal queries, …
  { name: 'read', test: /./, stage: 'ended', expect: () => OK },
];
const kindOf = (cmd: string) => KINDS.find((k) => k.test.test(cmd))!;

let shell: ReadmeShell;
let port: number;
let uiPort: number;
const fill: Fill = { answer: 'my team', paths: {} };
/** Every output read so far, by where it came from. */
const sources: { from: string; text: string }[] = [];
/** Every command run, with what it was expected to do and what it did. */
const results: { stage: Stage; kind: string; ran: Ran; expected: Expect; ok: boolean }[] = [];
const checkedSyntax = new Map<string, string | undefined>();
const following: { running: Running; kind: Kind }[] = [];

/** `replanner …` in this process, in the reader's environment: what it printed. */
async function capture(from: string, ...argv: string[]): Promise<{ code: number; text: string }> {
  const saved = process.env;
  process.env = { ...shell.env };
  let text = '';
  try {
    const write = { write: (s: string) => (text += s) };
    const code = await main(argv, write, write, new PassThrough());
    sources.push({ from: `${from} (${argv.join(' ')})`, text });
    return { code, text };
  } finally {
    process.env = saved;
  }
}

async function client<T>(use: (c: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  try {
    return await use(new Client({ connection }));
  } finally {
    await connection.close();
  }
}
const statusOf = (runId: string) => client((c) => c.workflow.getHandle(`run-${runId}`).query<RunStatus>('status'));
const detailsOf = (runId: string) =>
  client(
    async (c) => (await c.workflow.getHandle(`run-${runId}`).query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '',
  );

/** Every command line read so far, filled with what is known now; `undefined` while a value it needs is not known yet. */
function found(final: boolean): string[] {
  const all = sources.flatMap((s) => extractCommands(s.text, NAMES));
  const filled = all.map((c) => fillPlaceholders(c, fill));
  return [...new Set(filled)].filter((c) => final || !/<(runId|id|queue)>/.test(c));
}

/** A syntax line: the form a reader can run, a command that exists, options it has. */
async function checkSyntax(line: string): Promise<void> {
  if (checkedSyntax.has(line)) return;
  let problem: string | undefined;
  const p = commandPathOf(line, PATHS);
  if (!line.startsWith('npx replanner ')) problem = 'not in the form `npx replanner …`';
  else if (!p && !/^npx replanner --help/.test(line)) problem = 'names no replanner command';
  else if (p && p[0] !== 'temporal') {
    const help = await capture('help', ...p, '--help');
    const missing = flagsOf(line).filter((f) => !help.text.includes(f));
    if (help.code !== 0) problem = `${p.join(' ')} --help exits ${help.code}`;
    else if (missing.length) problem = `${p.join(' ')} has no ${missing.join(', ')}`;
  }
  checkedSyntax.set(line, problem);
}

/** Runs what is due at `stage`: the syntax lines found, and the commands of the kinds due (or overdue). */
async function runDue(stage: Stage, final = false): Promise<void> {
  const at = STAGES.indexOf(stage);
  const ranCmds = new Set(results.map((r) => r.ran.cmd));
  const due: string[] = [];
  for (const cmd of found(final)) {
    if (isSyntax(cmd)) await checkSyntax(cmd);
    else if (!ranCmds.has(cmd) && !following.some((f) => f.running.cmd === cmd) && STAGES.indexOf(kindOf(cmd).stage) <= at) due.push(cmd);
  }
  // The Temporal CLI's answer first (the way the Web UI's details give): the CLI's then shows its refusal.
  due.sort((a, b) => Number(!viaTemporal(a)) - Number(!viaTemporal(b)));
  // What only reads runs three at a time (npx takes seconds to start).
  const reads = due.filter((c) => ['read', 'help'].includes(kindOf(c).name));
  for (let i = 0; i < reads.length; i += 3)
    await Promise.all(reads.slice(i, i + 3).map(async (cmd) => record(stage, kindOf(cmd), await shell.run(cmd), OK)));
  for (const cmd of due.filter((c) => !reads.includes(c))) {
    const kind = kindOf(cmd);
    const first = !results.some((r) => r.kind === kind.name);
    const late = STAGES.indexOf(kind.stage) < at;
    if (kind.follows && !late) {
      following.push({ running: shell.start(cmd), kind });
      continue;
    }
    if (kind.name === 'export') shell.exportLine(cmd);
    const ran = kind.name === 'foreground worker' ? await foregroundWorker(cmd) : await shell.run(cmd);
    record(stage, kind, ran, kind.expect(cmd, first, late));
  }
}

function record(stage: Stage, kind: Kind, ran: Ran, expected: Expect): void {
  const ok = ran.code === expected.code && (!expected.says || expected.says.test(ran.out));
  results.push({ stage, kind: kind.name, ran, expected, ok });
  // What the Temporal CLI itself prints (its help's `temporal …` examples) is its own, not Replanner's.
  if (!viaTemporal(ran.cmd)) sources.push({ from: ran.cmd, text: ran.out });
}

/** A foreground worker works when it says it polls, and stops on SIGTERM saying so. */
async function foregroundWorker(cmd: string): Promise<Ran> {
  const w = shell.start(cmd);
  const up = await until(
    'the foreground worker to poll',
    async () => (/replanner worker: task queue/.test(w.output()) ? true : undefined),
    120_000,
  ).catch(() => false);
  const ran = await w.stop('SIGTERM');
  return { ...ran, code: up && /replanner worker: stopped/.test(ran.out) ? 0 : (ran.code ?? -1) };
}

beforeAll(async () => {
  do port = await freePort();
  while (port > 64000);
  // Not the server's + 1000: the hint and the help must carry it.
  uiPort = await freePort();
  shell = ReadmeShell.create(root, {
    TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
    TEMPORAL_UI_PORT: String(uiPort),
    // Saves the seconds of bundling the workflows in each worker the commands start (the jest run's bundle).
    REPLANNER_WORKFLOW_BUNDLE: process.env.REPLANNER_TEST_BUNDLE,
    REPLANNER_LOG_LEVEL: 'WARN',
  });
  fill.paths['/tmp/tryout'] = fs.mkdtempSync(path.join(shell.dir, 'tryout-'));
}, 60_000);

afterAll(async () => {
  if (!shell) return;
  // Whatever failed, nothing the commands started stays: the workers `run` and the demo recorded.
  await shell.run('node bin/replanner.js worker stop --all', 60_000);
  await shell.close();
}, 120_000);

describe('every command the product prints works in the README’s shell (V7)', () => {
  it('V7 the shell has no `temporal` and no .tools/bin on its PATH; with no server, the hint’s command starts one at TEMPORAL_ADDRESS, its Web UI at TEMPORAL_UI_PORT', async () => {
    expect((await shell.run('command -v temporal')).code).not.toBe(0);
    expect(shell.env.PATH).not.toContain('.tools');
    for (const p of [[], ...PATHS]) await capture('help', ...p, '--help');
    const none = await capture('the no-server error', 'status', 'nosuch');
    expect(none.code).toBe(3);
    const [server, ...more] = extractCommands(none.text, NAMES).filter((c) => /npm run server$/.test(c));
    expect(more).toEqual([]);
    expect(server).toBeDefined();
    const running = shell.start(server!);
    const answers = await until(
      `the server of "${server!}" at 127.0.0.1:${port} and its Web UI at :${uiPort}`,
      async () => {
        const frontend = await client(async (c) => (await c.workflowService.getSystemInfo({})) !== undefined);
        const ui = (await fetch(`http://localhost:${uiPort}/`)).ok;
        return frontend && ui ? true : undefined;
      },
      90_000,
    ).catch((e: Error) => `${e.message}; its output: ${running.output().slice(-1500)}`);
    expect(answers).toBe(true);
    results.push({ stage: 'serverUp', kind: 'server', ran: { cmd: server!, code: 0, out: running.output(), ms: 0 }, expected: OK, ok: true });
  }, 180_000);

  it('V7 every command in the help, hints, errors, the scripted model’s settings, run’s and the demo’s lines, status, list, watch and the Web UI’s details runs as printed', async () => {
    // The scripted model, started as the README says; its settings and what to try are printed commands.
    const model = shell.start('npx replanner scripted-model --port 0 --latency-ms 200');
    await until('the scripted model’s settings', async () => (/^ {2}export /m.test(model.output()) ? true : undefined), 90_000);
    // All of what it prints at start (it prints nothing more until a request comes): quiet for a second.
    let seen = '';
    await until('the scripted model’s introduction to end', async () => (seen === (seen = model.output()) ? true : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    sources.push({ from: 'scripted-model', text: model.output() });
    await runDue('serverUp');
    const started = results.find((r) => r.kind === 'run');
    expect({ cmd: started?.ran.cmd, code: started?.ran.code, out: started?.ran.out }).toMatchObject({
      code: 0,
      out: expect.stringMatching(/Started run \S+/),
    });
    fill.runId = /Started run (\S+)/.exec(started!.ran.out)![1];
    fill.queue = /task queue "([^"]+)"/.exec(started!.ran.out)?.[1];
    const runId = fill.runId!;
    // run's Web UI link opens the run's page on TEMPORAL_UI_PORT.
    const link = /Web UI: (\S+)/.exec(started!.ran.out)?.[1];
    expect(link?.startsWith(`http://localhost:${uiPort}/`)).toBe(true);
    expect((await fetch(link!)).ok).toBe(true);

    // Waiting for its question: status, list, the details, a second run on the workspace, a watch and its Ctrl-C.
    await waitFor('the question', async () => ((await statusOf(runId)).questions?.some((q) => q.status === 'pending') ? true : undefined), 120_000);
    await captureViews('waiting', runId);
    await capture('the busy workspace', 'run', 'write another guide', '--workspace', fill.paths['/tmp/tryout']!);
    await capture('a parse error', 'run', '--bogus');
    await watchInterrupted(runId);
    await runDue('waiting');
    expect(results.filter((r) => r.kind === 'pause').map((r) => r.ran.cmd)).toEqual([`npx replanner pause ${runId}`]);
    await waitFor('the pause', async () => ((await statusOf(runId)).pauses?.length ? true : undefined), 60_000);
    await captureViews('paused', runId);
    await runDue('paused');
    await runDue('answered');
    await waitFor('DONE', async () => ((await statusOf(runId)).status === 'DONE' ? true : undefined), 180_000);
    for (const f of following) record('ended', f.kind, await f.running.exited, f.kind.expect(f.running.cmd, true, false));
    await captureViews('ended', runId);
    for (const args of [
      ['decisions', runId],
      ['diff', runId],
      ['watch', runId],
      ['worker', 'status'],
    ])
      await capture('after the end', ...args);

    // The demo, as `npm run demo` runs it once built: its closing lines.
    const demo = await shell.run('node dist/src/client/demo.js', 240_000);
    expect({ code: demo.code, tail: demo.out.slice(-600) }).toMatchObject({ code: 0 });
    sources.push({ from: 'the demo', text: demo.out });

    await runDue('ended');
    await runDue('cleanup');
    await runDue('last');
    await runDue('final', true);
    // The last command stopped the server: nothing answers any more.
    expect(await client(async () => true).catch(() => false)).toBe(false);

    const table = tableOf();
    const syntax = [...checkedSyntax].map(([l, p]) => `${p ? '✗' : '✓'} [syntax] ${l}${p ? ` — ${p}` : ''}`);
    console.log(`printed commands, run in the README's shell:\n${[...table, ...syntax].join('\n')}`);
    const failed = results.filter((r) => !r.ok).map((r) => `${r.ran.cmd} → exit ${r.ran.code} (want ${r.expected.code}):\n${r.ran.out.slice(-800)}`);
    expect(failed).toEqual([]);
    expect(syntax.filter((l) => l.startsWith('✗'))).toEqual([]);
    // The extraction found what it must: the details' Temporal CLI answer, the CLI's, resume, the server's stop.
    const cmds = results.map((r) => r.ran.cmd);
    for (const must of [
      /temporal workflow update execute .*answerClarification/,
      /^npx replanner answer /,
      /--name resume$/,
      /^npx replanner resume /,
      /kill \$\(cat/,
    ])
      expect(cmds.filter((c) => must.test(c))).not.toEqual([]);
  }, 900_000);
});

/** The commands run so far: ✓ or ✗, the stage, the kind, the exit code (and the one wanted), the time, the command. */
function tableOf(): string[] {
  return results.map((r) => `${r.ok ? '✓' : '✗'} [${r.stage}/${r.kind}] exit ${r.ran.code} (want ${r.expected.code}) ${r.ran.ms} ms  ${r.ran.cmd}`);
}

/** until(), and when it times out, what ran so far and what the last ones printed. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  return until(what, probe, timeoutMs).catch((e: Error) => {
    const last = results.slice(-3).map((r) => `$ ${r.ran.cmd}\n${r.ran.out.slice(-600)}`);
    throw new Error(`${e.message}; the commands so far:\n${tableOf().join('\n')}\n${last.join('\n')}`);
  });
}

/** status, list, list --waiting and the run's current details (the Web UI's), as they are now. */
async function captureViews(when: string, runId: string): Promise<void> {
  await capture(when, 'status', runId);
  await capture(when, 'list');
  await capture(when, 'list', '--waiting');
  sources.push({ from: `${when}: the Web UI's details`, text: await detailsOf(runId) });
}

/** `watch` stopped with Ctrl-C: the line saying how to come back. */
async function watchInterrupted(runId: string): Promise<void> {
  const w = shell.start(`exec node bin/replanner.js watch ${runId}`);
  await until('watch to print', async () => (w.output().includes(runId) ? true : undefined), 60_000);
  const ran = await w.stop('SIGINT');
  expect(ran.out).toContain('Stopped watching');
  sources.push({ from: 'watch, Ctrl-C', text: ran.out });
}
