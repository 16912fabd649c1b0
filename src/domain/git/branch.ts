// G1: the run's branch and the names around it: `replanner/<runId>` made from the base's head, the
// rules a base or remote name must follow, and what the run refuses to start from (a working tree
// with changes). Pure: the git commands are in src/activities/git.

/** G1: the run's own branch. */
export const RUN_BRANCH_PREFIX = 'replanner/';

export function runBranchOf(runId: string): string {
  return `${RUN_BRANCH_PREFIX}${runId}`;
}

/** The run's records beside the workspace: never committed, and no reason to refuse a workspace. */
export const RUN_RECORDS_DIR = '.replanner';

export function isRunRecordPath(path: string): boolean {
  return path === RUN_RECORDS_DIR || path.startsWith(`${RUN_RECORDS_DIR}/`);
}

const MAX_REF_CHARS = 200;

/**
 * G1: a branch name git takes (the rules of `git check-ref-format --branch`, the ones that matter:
 * no space or control character, none of `~^:?*[\`, no `..`, `//` or `@{`, not starting with `-`
 * or `/`, not ending with `/`, `.` or `.lock`, no component starting with `.`).
 */
export function branchNameProblem(name: string): string | undefined {
  const bad =
    name.length === 0 ||
    name.length > MAX_REF_CHARS ||
    [...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ||
    /[\s~^:?*[\\]/.test(name) ||
    /\.\.|\/\/|@\{/.test(name) ||
    name === '@' ||
    /^[-/]/.test(name) ||
    /(\/|\.|\.lock)$/.test(name) ||
    name.split('/').some((c) => c.startsWith('.'));
  return bad ? `"${name.slice(0, MAX_REF_CHARS)}" is not a branch name git takes` : undefined;
}

/** G2: a remote's name (as `git remote` shows it). */
export function remoteNameProblem(name: string): string | undefined {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name) ? undefined : `"${name.slice(0, 100)}" is not a remote name (e.g. origin)`;
}

/** G1: the branches a run may work from and on: never its own branch as its base. */
export function baseProblem(base: string, runId: string): string | undefined {
  if (base.startsWith(RUN_BRANCH_PREFIX)) {
    return `the base branch ${base} is a run's branch: start from the branch the work should go into (--base main)`;
  }
  return branchNameProblem(base) ?? (base === runBranchOf(runId) ? `the base branch cannot be the run's own branch` : undefined);
}

const SHOWN_DIRTY = 20;

/**
 * G1: the workspace has changes git does not have yet (its own records under .replanner/ aside):
 * the run refuses to start, naming the files, so no one's work ends up in the run's commits.
 */
export function dirtyWorkspaceMessage(workspace: string, files: readonly string[]): string | undefined {
  const dirty = files.filter((f) => !isRunRecordPath(f));
  if (dirty.length === 0) return undefined;
  const shown = dirty.slice(0, SHOWN_DIRTY).join(', ');
  const more = dirty.length > SHOWN_DIRTY ? ` and ${dirty.length - SHOWN_DIRTY} more` : '';
  return (
    `the workspace ${workspace} has changes that are not committed: ${shown}${more}. ` +
    `A run that commits its work starts from a clean working tree: commit or stash them first (git stash -u)`
  );
}
