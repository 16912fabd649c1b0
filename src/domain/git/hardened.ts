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
  // A repository a command made inside the workspace (a task's commit takes it in as a submodule)
  // has a config of its own: git never works inside it for the run (checkout, fetch).
  'submodule.recurse=false',
];

/** Porcelain commands that would run diff.external or a textconv driver for a patch. */
const DIFFING = new Set(['diff', 'show', 'log', 'whatchanged']);

/**
 * Commands that look inside a submodule for changes in its files: that look runs the submodule's
 * own filter drivers, from a config a command wrote. Only its commit counts (`dirty` ignored); the
 * flag wins over a `submodule.<name>.ignore` in .gitmodules, a file commands may write.
 */
const LOOKING_INTO_SUBMODULES = new Set([...DIFFING, 'status']);

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
 * `args` (what follows `git`) with the settings above first; for diff/show/log no external
 * diff program (diff.external, a diff driver's command) and no textconv driver; for those and
 * status, no look inside a submodule's files (a caller's own --ignore-submodules after it wins).
 */
export function hardenedGitArgs(args: readonly string[]): string[] {
  const at = commandIndex(args);
  const command = at >= 0 ? args[at]! : '';
  const flags = [
    ...(DIFFING.has(command) ? ['--no-ext-diff', '--no-textconv'] : []),
    ...(LOOKING_INTO_SUBMODULES.has(command) ? ['--ignore-submodules=dirty'] : []),
  ];
  const rest = at >= 0 ? [...args.slice(0, at + 1), ...flags, ...args.slice(at + 1)] : [...args];
  return [...HARDENED_GIT_CONFIG.flatMap((c) => ['-c', c]), ...rest];
}
