// run_command of the LLM worker's tools: real processes, real temp workspace, no mocks.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../../src/activities/tools';
import { COMMAND_PATH } from '../../src/activities/tools/sandbox';

let ws: string;
const tmpDirs: string[] = [];

beforeEach(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-cmd-'));
  tmpDirs.push(ws);
});

afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

const SLEEP_60S = ['node', '-e', 'setTimeout(() => {}, 60000)'];

/** A process counts as gone when it no longer exists or is a zombie nobody reaped yet. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Node script that starts a 60 s grandchild in the same process group and prints its pid. */
const spawnsGrandchild = (thenExit: boolean) =>
  [
    "const { spawn } = require('child_process');",
    "const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });",
    "console.log('grandchild ' + c.pid);",
    thenExit ? 'c.unref(); process.exit(0);' : 'setTimeout(() => {}, 60000);',
  ].join('\n');

const grandchildPid = (output: string) => Number(/grandchild (\d+)/.exec(output)?.[1]);

// Pids are only meaningful outside the sandbox's PID namespace: these tests check the unconfined
// path's process-group killing; test/unit/sandbox.test.ts checks the sandboxed one by its effects.
const UNCONFINED = { sandbox: { enabled: false, network: false } };

describe('run_command', () => {
  it('runs argv without a shell and returns exit code and combined stdout/stderr', async () => {
    const r = await runTool(ws, 'run_command', {
      argv: ['node', '-e', "console.log('out:' + process.argv[1]); console.error('err-line')", '$HOME && echo hi'],
    });
    expect(r.ok).toBe(true);
    expect(r.output).toMatch(/^exit code 0\n/);
    expect(r.output).toContain('out:$HOME && echo hi');
    expect(r.output).toContain('err-line');
  });

  it('resolves cwd inside the workspace', async () => {
    fs.mkdirSync(path.join(ws, 'pkg'));
    const r = await runTool(ws, 'run_command', { argv: ['node', '-e', 'console.log(process.cwd())'], cwd: 'pkg' });
    expect(r).toEqual({ ok: true, output: `exit code 0\n${fs.realpathSync(path.join(ws, 'pkg'))}\n` });
  });

  it('run_command with cwd outside the workspace is refused', async () => {
    for (const cwd of ['..', '/tmp', 'a/../../..']) {
      const r = await runTool(ws, 'run_command', { argv: ['node', '-e', ''], cwd });
      expect(r).toEqual({ ok: false, output: expect.stringMatching(/'cwd' is outside the workspace/) });
    }
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-cmd-out-'));
    tmpDirs.push(outside);
    fs.symlinkSync(outside, path.join(ws, 'escape'));
    const viaLink = await runTool(ws, 'run_command', { argv: ['node', '-e', ''], cwd: 'escape' });
    expect(viaLink).toEqual({ ok: false, output: expect.stringMatching(/outside the workspace/) });
  });

  it('run_command with a non-zero exit is not ok and shows the exit code and output', async () => {
    const r = await runTool(ws, 'run_command', { argv: ['node', '-e', "console.error('boom'); process.exit(3)"] });
    expect(r).toEqual({ ok: false, output: 'exit code 3\nboom\n' });
  });

  it("S1 reports a command that does not exist, naming the PATH it was looked up in (the sandbox's, or the unconfined command's)", async () => {
    const sandboxed = await runTool(ws, 'run_command', { argv: ['definitely-not-a-command-xyz'] });
    expect(sandboxed).toEqual({
      ok: false,
      output: `definitely-not-a-command-xyz not found in the sandbox's PATH: ${COMMAND_PATH} (argv[0] must be a command on that PATH or a path; no shell is used)`,
    });
    const unconfined = await runTool(ws, 'run_command', { argv: ['definitely-not-a-command-xyz'] }, UNCONFINED);
    expect(unconfined).toEqual({
      ok: false,
      output: `command not found: definitely-not-a-command-xyz (not on the command's PATH: ${COMMAND_PATH}; argv[0] must be a command on that PATH or a path; no shell is used)`,
    });
  });

  it('run_command times out and kills the process group', async () => {
    const started = Date.now();
    const r = await runTool(ws, 'run_command', { argv: ['node', '-e', spawnsGrandchild(false)], timeout_seconds: 1 }, UNCONFINED);
    expect(Date.now() - started).toBeLessThan(10_000); // far below the 60 s the command would take
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/^timed out after 1s/);
    const pid = grandchildPid(r.output);
    expect(pid).toBeGreaterThan(0);
    expect(await waitGone(pid)).toBe(true);
  });

  it('run_command timeout is capped by commandTimeoutMs', async () => {
    const r = await runTool(ws, 'run_command', { argv: SLEEP_60S, timeout_seconds: 100 }, { commandTimeoutMs: 300 });
    expect(r).toEqual({ ok: false, output: expect.stringMatching(/^timed out after 0.3s/) });
  });

  it('run_command does not leave background processes of the command behind', async () => {
    const r = await runTool(ws, 'run_command', { argv: ['node', '-e', spawnsGrandchild(true)] }, UNCONFINED);
    expect(r.ok).toBe(true);
    expect(await waitGone(grandchildPid(r.output))).toBe(true);
  });

  it('run_command output truncation keeps head and tail', async () => {
    const r = await runTool(
      ws,
      'run_command',
      { argv: ['node', '-e', "process.stdout.write('H'.repeat(5000) + 'M'.repeat(5000) + 'T'.repeat(5000))"] },
      { maxOutputChars: 100 },
    );
    expect(r.ok).toBe(true);
    expect(r.output).toBe(`exit code 0\n${'H'.repeat(50)}\n[truncated: 14900 chars omitted]\n${'T'.repeat(50)}`);
  });

  it('run_command abort via AbortSignal kills the process', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 500);
    const r = await runTool(ws, 'run_command', { argv: ['node', '-e', spawnsGrandchild(false)] }, { ...UNCONFINED, signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/^aborted/);
    // Cut off, not finished: a worker step does not record it as the call's result (it runs again on retry).
    expect(r.aborted).toBe(true);
    const pid = grandchildPid(r.output);
    if (pid) expect(await waitGone(pid)).toBe(true);
  });

  it('run_command with an already aborted signal does not start the command', async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = path.join(ws, 'ran.txt');
    const r = await runTool(
      ws,
      'run_command',
      { argv: ['node', '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] },
      { signal: controller.signal },
    );
    expect(r).toEqual({ ok: false, output: expect.stringMatching(/aborted before starting/), aborted: true });
    expect(fs.existsSync(marker)).toBe(false);
  });
});
