// Every run_command runs inside bubblewrap (S1). The workspace is the only writable place
// besides a private /tmp; the rest of the file system is read-only; homes, /run and the worker's
// own state are masked; the run's `.replanner/` (journal, transcripts) is read-only so a command
// cannot forge an LLM answer; a PID namespace kills every process of the command (setsid too) when
// it ends; the network is cut unless the worker allows it; the environment is an allowlist, so no
// key or token reaches a command. The switches belong to the worker (env / `replanner worker`
// flags): a run may only narrow them.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SandboxSettings {
  /** false only where the worker was started with --no-sandbox (REPLANNER_SANDBOX=off). */
  enabled: boolean;
  /** Network for commands (REPLANNER_SANDBOX_NETWORK=1 / --sandbox-network); default none. */
  network: boolean;
}

const OFF = /^(0|off|false|no)$/i;
const ON = /^(1|on|true|yes)$/i;

export function sandboxSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  return { enabled: !OFF.test(env.REPLANNER_SANDBOX ?? ''), network: ON.test(env.REPLANNER_SANDBOX_NETWORK ?? '') };
}

/** A run's wishes can only take away: network only if both the worker and the run allow it. */
export function narrowSandbox(worker: SandboxSettings, run: { network?: boolean } | undefined): SandboxSettings {
  return { enabled: worker.enabled, network: worker.network && run?.network !== false };
}

/** Home of the command inside the sandbox (in its private /tmp). */
export const SANDBOX_HOME = '/tmp/home';

/** The environment a command sees, sandboxed or not: an allowlist, never the worker's secrets. */
export function commandEnv(env: NodeJS.ProcessEnv = process.env, home = SANDBOX_HOME): Record<string, string> {
  const out: Record<string, string> = {
    PATH: [path.dirname(process.execPath), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(':'),
    HOME: home,
    TMPDIR: '/tmp',
    TERM: 'dumb',
    LANG: env.LANG || 'C.UTF-8',
  };
  for (const k of ['LC_ALL', 'LC_CTYPE', 'TZ']) {
    const v = env[k];
    if (v) out[k] = v;
  }
  return out;
}

type Availability = { ok: true; version: string } | { ok: false; reason: string };
const probed = new Map<string, Availability>();

/** The bubblewrap binary: REPLANNER_BWRAP, else `bwrap` on PATH. */
export const bwrapBinary = (env: NodeJS.ProcessEnv = process.env): string => env.REPLANNER_BWRAP || 'bwrap';

/** Whether bubblewrap works here (checked once per binary and worker process). */
export function sandboxAvailability(bin = bwrapBinary()): Availability {
  const known = probed.get(bin);
  if (known) return known;
  const r = spawnSync(bin, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  let result: Availability;
  if (r.error) {
    result = { ok: false, reason: (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'bubblewrap (bwrap) is not installed' : r.error.message };
  } else if (r.status !== 0) {
    result = { ok: false, reason: `bubblewrap cannot create its namespaces here: ${r.stderr.trim() || `exit ${r.status}`}` };
  } else {
    result = { ok: true, version: spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim() };
  }
  probed.set(bin, result);
  return result;
}

/** One line for the worker's log at start: loud when commands would run unconfined or be refused. */
export function describeSandbox(s: SandboxSettings): string {
  if (!s.enabled) return 'WARNING: --no-sandbox: commands run UNCONFINED (they can write anywhere this user can and reach the network)';
  const a = sandboxAvailability();
  if (!a.ok) return `WARNING: ${noSandboxMessage(a.reason)}`;
  return `commands run in a ${a.version} sandbox (workspace writable, network ${s.network ? 'allowed' : 'off'})`;
}

export function noSandboxMessage(reason: string): string {
  return (
    `refused: no sandbox for commands on this worker (${reason}). ` +
    'Install bubblewrap with `bash scripts/ensure-sandbox` (or apt-get install bubblewrap) and restart the worker, ' +
    'or start the worker with --no-sandbox to run commands unconfined (not recommended).'
  );
}

/** Paths a command must not read even though the rest of the file system is readable. */
function maskedPaths(env: NodeJS.ProcessEnv): { dirs: string[]; files: string[] } {
  const project = path.resolve(__dirname, '..', '..', '..', fs.existsSync(path.resolve(__dirname, '..', '..', '..', 'package.json')) ? '' : '..');
  const dirs = ['/root', '/home', '/run', env.HOME ?? '', path.join(project, '.replanner'), path.join(project, '.tools')];
  const files = ['/etc/shadow', '/etc/gshadow', env.REPLANNER_CONFIG ?? '', path.join(project, '.env')];
  const exists = (p: string, dir: boolean) => {
    try {
      const s = fs.statSync(p);
      return dir ? s.isDirectory() : s.isFile();
    } catch {
      return false;
    }
  };
  return {
    dirs: [...new Set(dirs.filter((d) => d && path.isAbsolute(d) && d !== '/' && exists(d, true)))],
    files: [...new Set(files.filter((f) => f && path.isAbsolute(f) && exists(f, false)))],
  };
}

/**
 * The bwrap command line for `argv` run in `cwd` inside `workspace` (both real paths). Order
 * matters: masks first, then the workspace bound writable on top (it may lie under /tmp or a
 * home), then its `.replanner/` read-only on top of that.
 */
export function bwrapArgs(argv: string[], o: { workspace: string; cwd: string; network: boolean; env?: NodeJS.ProcessEnv }): string[] {
  const env = o.env ?? process.env;
  const { dirs, files } = maskedPaths(env);
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(o.network ? [] : ['--unshare-net']),
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/var/tmp',
    ...dirs.flatMap((d) => ['--tmpfs', d]),
    ...files.flatMap((f) => ['--ro-bind', '/dev/null', f]),
    '--dir',
    SANDBOX_HOME,
    '--bind',
    o.workspace,
    o.workspace,
  ];
  const state = path.join(o.workspace, '.replanner');
  fs.mkdirSync(state, { recursive: true });
  args.push('--ro-bind', state, state, '--chdir', o.cwd, '--clearenv');
  for (const [k, v] of Object.entries(commandEnv(env))) args.push('--setenv', k, v);
  return [...args, '--', ...argv];
}
