// Every run_command runs inside bubblewrap (S1). The workspace is the only writable place
// besides a private /tmp; the rest of the file system is read-only; homes, /run and the worker's
// own state are masked; the run's `.replanner/` (journal, transcripts) is read-only so a command
// cannot forge an LLM answer; its `.git` is read-only too, so a command cannot plant a hook or a
// config that the worker's own git would run outside the sandbox (git-metadata.ts); a PID
// namespace kills every process of the command (setsid too) when it ends; the network is cut
// unless the worker allows it; the environment is an allowlist, so no key or token reaches a
// command. The switches belong to the worker (env / `replanner worker` flags): a run may only
// narrow them.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findOnPath, isExecutableFile } from '../../executable-file';
import { gitMetadataBinds } from './git-metadata';

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

/** The PATH a command sees, sandboxed or not: the worker's Node.js first, then the system's directories. */
export const COMMAND_PATH = [
  ...new Set([path.dirname(process.execPath), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']),
].join(':');

/** The environment a command sees, sandboxed or not: an allowlist, never the worker's secrets. */
export function commandEnv(env: NodeJS.ProcessEnv = process.env, home = SANDBOX_HOME): Record<string, string> {
  const out: Record<string, string> = {
    PATH: COMMAND_PATH,
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

type Availability = { ok: true; version: string; path: string } | { ok: false; reason: string };
/** The check's result per REPLANNER_BWRAP and PATH of the worker: found and probed once per worker process. */
const checked = new Map<string, Availability>();

/**
 * Where bubblewrap is, as an absolute path: REPLANNER_BWRAP (a path, or a name looked up on the
 * worker's PATH), else `bwrap` on the worker's PATH. Commands are spawned by this path, never by a
 * bare name: a command's environment is an allowlist without the worker's PATH, so a bare name
 * would be looked up in /usr/bin and /bin only.
 */
export function findBwrap(env: NodeJS.ProcessEnv = process.env): { path: string } | { problem: string } {
  const named = env.REPLANNER_BWRAP?.trim();
  if (named?.includes('/')) {
    const abs = path.resolve(named);
    return isExecutableFile(abs)
      ? { path: abs }
      : { problem: `bubblewrap (bwrap) is not installed: REPLANNER_BWRAP names ${named}, which is not an executable file` };
  }
  const name = named || 'bwrap';
  const found = findOnPath(name, env.PATH);
  if (found) return { path: found };
  return { problem: `bubblewrap (${name}) is not installed: it is not on the worker's PATH (${env.PATH ?? ''})` };
}

/**
 * Whether commands can run in the sandbox here, checked once per worker process: bubblewrap is
 * found (findBwrap) and runs `true` exactly as a command runs, with the same absolute path, the
 * same arguments (masks, namespaces, a workspace bound writable) and the same empty environment,
 * so the check cannot pass while every command fails. Commands then spawn the path it found.
 */
export function sandboxAvailability(env: NodeJS.ProcessEnv = process.env): Availability {
  const key = `${env.REPLANNER_BWRAP ?? ''}\u0000${env.PATH ?? ''}`;
  const known = checked.get(key);
  if (known) return known;
  const found = findBwrap(env);
  const result = 'problem' in found ? { ok: false as const, reason: found.problem } : probeSandbox(found.path, env);
  checked.set(key, result);
  return result;
}

/** A command could not start bubblewrap at `bin` after all (removed or replaced): the next command checks again. */
export function forgetSandboxCheck(bin: string): void {
  for (const [key, a] of checked) if (a.ok && a.path === bin) checked.delete(key);
}

function probeSandbox(bin: string, env: NodeJS.ProcessEnv): Availability {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-sandbox-check-')));
  try {
    const r = spawnSync(bin, bwrapArgs(['true'], { workspace: ws, cwd: ws, network: false, env }), { encoding: 'utf8', timeout: 10_000, env: {} });
    if (r.error) return { ok: false, reason: `bubblewrap at ${bin} cannot be started: ${r.error.message}` };
    if (r.status !== 0) {
      const said = `${r.stderr}${r.stdout}`.trim();
      return {
        ok: false,
        reason: `bubblewrap at ${bin} cannot run a command here: ${said || (r.status === null ? `killed by ${r.signal ?? 'a signal'}` : `exit ${r.status}`)}`,
      };
    }
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8', env: {} }).stdout.trim() || 'bubblewrap';
    return { ok: true, version, path: bin };
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
}

/** One line for the worker's log at start: loud when commands would run unconfined or be refused. */
export function describeSandbox(s: SandboxSettings): string {
  if (!s.enabled) return 'WARNING: --no-sandbox: commands run UNCONFINED (they can write anywhere this user can and reach the network)';
  const a = sandboxAvailability();
  if (!a.ok) return `WARNING: ${noSandboxMessage(a.reason)}`;
  return `commands run in a ${a.version} sandbox (${a.path}; workspace writable, network ${s.network ? 'allowed' : 'off'})`;
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
 * home), then its `.replanner/` and its git metadata (`.git`) read-only on top of that.
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
  args.push('--ro-bind', state, state, ...gitMetadataBinds(o.workspace), '--chdir', o.cwd, '--clearenv');
  for (const [k, v] of Object.entries(commandEnv(env))) args.push('--setenv', k, v);
  return [...args, '--', ...argv];
}
