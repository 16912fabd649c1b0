// S1: every git the worker and the CLI run in a workspace goes through here. A task's commands
// write in that workspace, and an older workspace may still hold what a command planted in its
// .git before .git was read-only in the sandbox: git's own config and hooks run programs, and the
// worker's git runs outside the sandbox. So the settings that would run a program are turned off
// on the command line, which wins over every config file (and reaches git's own child processes,
// submodules included, through GIT_CONFIG_PARAMETERS). Pure.

/** `-c` settings put before every git command. */
export const HARDENED_GIT_CONFIG: readonly string[] = [
  // Hooks (.git/hooks/*, or a core.hooksPath a command set) are programs: none runs.
  'core.hooksPath=/dev/null',
  // core.fsmonitor names a program `git status` runs.
  'core.fsmonitor=false',
  // core.pager is a shell command (run only on a terminal, but never wanted here).
  'core.pager=cat',
  // An `ext::<command>` remote URL is a shell command run by push and ls-remote.
  'protocol.ext.allow=never',
];

/** Porcelain commands that would run diff.external or a textconv driver for a patch. */
const DIFFING = new Set(['diff', 'show', 'log', 'whatchanged']);

/** git's options before the command that take the next argument as their value. */
const GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env']);

/** Where the command is in `args` (after git's own options), or -1. */
function commandIndex(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (GLOBAL_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return i;
  }
  return -1;
}

/**
 * S1: `args` (what follows `git`) with the settings above first, and for diff/show/log no
 * external diff program (diff.external, a diff driver's command) and no textconv driver.
 */
export function hardenedGitArgs(args: readonly string[]): string[] {
  const out = [...HARDENED_GIT_CONFIG.flatMap((c) => ['-c', c]), ...args];
  const at = commandIndex(args);
  if (at >= 0 && DIFFING.has(args[at]!)) {
    const i = HARDENED_GIT_CONFIG.length * 2 + at + 1;
    out.splice(i, 0, '--no-ext-diff', '--no-textconv');
  }
  return out;
}

/** S1: git's environment: never a prompt for a password on the worker's terminal (unless the caller set it). */
export function hardenedGitEnv<E extends Record<string, string | undefined>>(env: E): E & { GIT_TERMINAL_PROMPT: string } {
  return { ...env, GIT_TERMINAL_PROMPT: env.GIT_TERMINAL_PROMPT ?? '0' };
}
