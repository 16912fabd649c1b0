// G1 / G2: how the run's activities call git: as a process of its own in the workspace, with the
// worker's environment minus every secret (no token reaches a git that does not push), never a
// prompt for a password, and git's output with any secret value replaced before it goes anywhere.
import { execFile, execFileSync } from 'node:child_process';
import { ApplicationFailure } from '@temporalio/common';
import { hardenedGitArgs } from '../../domain/git/hardened';
import { redactSecrets, secretValues } from '../tools/redact';

/** The worker's environment variables that hold secrets: never passed to git unless it pushes. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** The environment git runs with: the worker's without its secrets, `extra` added (the push's token), no prompts, plain messages. */
export function gitEnv(extra: Record<string, string> = {}, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(env).filter(([k]) => !SECRET_NAME.test(k)));
  return { ...clean, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', SSH_ASKPASS: 'true', LC_ALL: 'C', ...extra };
}

/**
 * The same git, run synchronously, for the CLI's reads (`replanner diff`): its stdout; throws where
 * git exits non-zero (the error carries the stdout), stderr is dropped.
 */
export function gitSync(cwd: string, args: string[], maxBuffer = 64 * 1024 * 1024): string {
  return execFileSync('git', hardenedGitArgs(['-C', cwd, ...args]), {
    encoding: 'utf8',
    env: gitEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer,
  });
}

/**
 * Runs `git -C cwd args…` with the hardened settings first (hardenedGitArgs: no hook, fsmonitor, pager,
 * ext:: transport or external diff of the workspace's config runs); resolves with the exit code
 * (never throws for a non-zero exit: the caller decides). `input` goes to stdin. Output is
 * redacted of the worker's secret values.
 */
export function git(
  cwd: string,
  args: readonly string[],
  opts: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      hardenedGitArgs(['-C', cwd, ...args]),
      { env: opts.env ?? gitEnv(), timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code ?? 1) : -1) : 0;
        if (err && code === -1) return reject(new Error(`git ${args[0]} could not run: ${redactSecrets(err.message, secretValues())}`));
        resolve({ stdout, stderr: redactSecrets(stderr, secretValues()), code });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Runs git and returns its stdout; a non-zero exit throws (retryable unless `type` says what to refuse). */
export async function gitOk(cwd: string, args: readonly string[], opts: Parameters<typeof git>[2] & { type?: string } = {}): Promise<string> {
  const r = await git(cwd, args, opts);
  if (r.code !== 0)
    throw gitFailure(
      `git ${args
        .filter((a) => !a.startsWith('-c'))
        .join(' ')
        .slice(0, 200)} failed: ${r.stderr.trim().slice(0, 2000)}`,
      opts.type,
    );
  return r.stdout;
}

/** A git failure: `type` given, not retried (the message says what to do); otherwise retried. */
export function gitFailure(message: string, type?: string): Error {
  return type ? ApplicationFailure.nonRetryable(message, type) : ApplicationFailure.retryable(message, 'GitFailed');
}

/** The non-retryable failures of the run's git work. */
export const GIT_REFUSED = 'GitRefused';
export const WORKSPACE_DIRTY = 'WorkspaceDirty';
export const PUSH_REJECTED = 'PushRejected';

/**
 * `git status --porcelain -z` entries: the paths with changes (a rename's both sides), untracked
 * files included. A submodule counts when its commit changed, not for changes in its files (safety:
 * looking there runs the submodule's own filter drivers; a commit could not take them anyway).
 */
export async function changedPaths(cwd: string, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const out = await gitOk(cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=dirty'], { env });
  const paths: string[] = [];
  for (const entry of out.split('\0')) if (entry.length > 3) paths.push(entry.slice(3));
  return paths;
}
