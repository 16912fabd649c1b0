// run_command {argv, cwd?, timeout_seconds?}: no shell; the command runs in its own process
// group so a timeout or abort kills it together with everything it started.
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { toolArgs } from './args';
import { fsError } from './fs-errors';
import { joinOutputEnds } from '../../domain/text';
import { bwrapArgs, COMMAND_PATH, commandEnv, forgetSandboxCheck, noSandboxMessage, sandboxAvailability } from './sandbox';
import { resolveInWorkspace } from './workspace';
import { dropCreatedGit, hasTopGit } from './git-metadata';
import { commandSlots } from './command-slots';
import { ResolvedToolOptions, ToolError, ToolResult } from './types';

/** After the leader exits, how long to wait for its pipes to close before giving up on them. */
const PIPE_GRACE_MS = 250;

export async function runCommand(root: string, raw: unknown, opts: ResolvedToolOptions): Promise<ToolResult> {
  const args = toolArgs('run_command', raw);
  const argv = args.stringArray('argv');
  const cwdArg = args.optionalString('cwd') || '.';
  const requestedSec = args.optionalNumber('timeout_seconds', { min: 0 });
  if (requestedSec === 0) throw args.invalid('timeout_seconds', 'must be > 0');
  const { abs: cwd, rel: cwdRel } = await resolveInWorkspace(root, 'cwd', cwdArg);
  try {
    if (!(await fsp.stat(cwd)).isDirectory()) throw new ToolError(`'cwd' is not a directory: ${cwdRel}`);
  } catch (err) {
    throw fsError(err, cwdRel);
  }
  const timeoutMs = Math.max(1, Math.min(requestedSec === undefined ? Infinity : requestedSec * 1000, opts.commandTimeoutMs));
  if (opts.signal?.aborted) return { ok: false, output: `aborted before starting: ${argv[0]}`, aborted: true };
  // A .git the command makes at the top of the workspace is removed again (git-metadata.ts);
  // looked at before the sandbox's binds are made, so one made meanwhile counts as the command's.
  const hadGit = hasTopGit(root);
  let spawned = argv;
  let env: Record<string, string> = {};
  let bwrap: string | undefined;
  if (!opts.sandbox.enabled) env = commandEnv(process.env, process.env.HOME || '/tmp');
  else {
    const available = sandboxAvailability();
    if (!available.ok) return { ok: false, output: noSandboxMessage(available.reason) };
    // The path the check found, never a bare name: bwrap is spawned with an empty environment.
    bwrap = available.path;
    spawned = [bwrap, ...bwrapArgs(argv, { workspace: root, cwd, network: opts.sandbox.network })];
  }
  // The worker's bound on commands at once (REPLANNER_MAX_CONCURRENT_COMMANDS): wait for a slot.
  let release: () => void;
  try {
    release = await commandSlots().acquire(opts.signal);
  } catch {
    return { ok: false, output: `aborted while waiting for a free command slot: ${argv[0]}`, aborted: true };
  }
  try {
    return dropCreatedGit(root, hadGit, await execute(argv, spawned, cwd, timeoutMs, opts, env, bwrap));
  } finally {
    release();
  }
}

/** Runs `spawned` (the command itself, or bubblewrap at `bwrap` around it); `argv` is what the model asked for. */
function execute(
  argv: string[],
  spawned: string[],
  cwd: string,
  timeoutMs: number,
  opts: ResolvedToolOptions,
  env: Record<string, string>,
  bwrap: string | undefined,
): Promise<ToolResult> {
  const max = opts.maxOutputChars;
  return new Promise<ToolResult>((resolve) => {
    let head = '';
    let tail = '';
    let total = 0;
    const collect = (chunk: string) => {
      total += chunk.length;
      if (head.length < max) head += chunk.slice(0, max - head.length);
      tail = (tail + chunk).slice(-max);
    };

    let stopped: 'timeout' | 'abort' | undefined;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const child = spawn(spawned[0]!, spawned.slice(1), {
      cwd,
      shell: false,
      detached: true, // own process group: kill(-pid) reaches grandchildren too (and bwrap's PID namespace)
      stdio: ['ignore', 'pipe', 'pipe'],
      env, // an allowlist (commandEnv): no key or token reaches a command
    });
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        try {
          child.kill('SIGKILL');
        } catch {
          /* already gone */
        }
      }
    };
    const stop = (why: 'timeout' | 'abort') => {
      if (settled || stopped) return;
      stopped = why;
      killGroup();
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('abort');
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (result: ToolResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(result);
    };

    const report = (code: number | null, signal: NodeJS.Signals | null) => {
      const out = joinOutputEnds(head, tail, total, max);
      const body = out.length > 0 ? `\n${out}` : '\n(no output)';
      const secs = Number((timeoutMs / 1000).toFixed(3));
      if (stopped === 'timeout') return finish({ ok: false, output: `timed out after ${secs}s; process group killed${body}` });
      if (stopped === 'abort') return finish({ ok: false, output: `aborted; process group killed${body}`, aborted: true });
      if (code === null) return finish({ ok: false, output: `killed by signal ${signal ?? 'unknown'}${body}` });
      // bubblewrap could not start the command (it says so itself, exit 1): say why in words.
      const unstarted = bwrap !== undefined && code === 1 ? sandboxStartFailure(argv[0]!, out) : undefined;
      if (unstarted) return finish({ ok: false, output: unstarted });
      return finish({ ok: code === 0, output: `exit code ${code}${body}` });
    };

    child.on('error', (err: NodeJS.ErrnoException) => {
      if (bwrap !== undefined) forgetSandboxCheck(bwrap);
      finish({ ok: false, output: bwrap !== undefined ? bwrapStartFailure(bwrap, err) : startFailure(argv[0]!, err) });
    });
    child.on('exit', (code, signal) => {
      // Clean up anything the command left running in its group, then give the pipes a
      // moment to drain; a process that escaped the group must not keep us waiting.
      killGroup();
      graceTimer = setTimeout(() => report(code, signal), PIPE_GRACE_MS);
    });
    child.on('close', (code, signal) => report(code, signal));
  });
}

const NO_SHELL = 'argv[0] must be a command on that PATH or a path; no shell is used';

/** Why an unsandboxed command did not start. */
function startFailure(command: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') {
    return command.includes('/')
      ? `not found: ${command} (no such file)`
      : `command not found: ${command} (not on the command's PATH: ${COMMAND_PATH}; ${NO_SHELL})`;
  }
  if (err.code === 'EACCES') return `permission denied executing ${command}`;
  return `failed to start ${command}: ${err.message}`;
}

/** Why bubblewrap itself did not start (it was there when the sandbox was checked). */
function bwrapStartFailure(bwrap: string, err: NodeJS.ErrnoException): string {
  const again = 'reinstall it (`bash scripts/ensure-sandbox`) or restart the worker';
  if (err.code === 'ENOENT') return `bubblewrap not found at ${bwrap} (it was there when the worker checked its sandbox): ${again}`;
  if (err.code === 'EACCES') return `bubblewrap at ${bwrap} cannot be run (permission denied): ${again}`;
  return `bubblewrap at ${bwrap} did not start: ${err.message}`;
}

/**
 * bubblewrap's own error when it could not start the command (its messages start with "bwrap: ",
 * exit 1): a command not found in the sandbox's PATH, or a sandbox that could not be set up.
 */
function sandboxStartFailure(command: string, out: string): string | undefined {
  const first = out.split('\n', 1)[0] ?? '';
  if (!first.startsWith('bwrap: ')) return undefined;
  if (/^bwrap: execvp .*: No such file or directory$/.test(first)) {
    return command.includes('/')
      ? `not found in the sandbox: ${command} (no such file)`
      : `${command} not found in the sandbox's PATH: ${COMMAND_PATH} (${NO_SHELL})`;
  }
  if (/^bwrap: execvp .*: Permission denied$/.test(first)) return `permission denied executing ${command} in the sandbox`;
  return `the sandbox could not start the command: ${out.trim()}`;
}
