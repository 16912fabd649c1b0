// S1: the workspace's git metadata is read-only to commands. The worker (commits, pushes) and the
// CLI (`replanner diff`) run git in the workspace outside the sandbox, and git runs programs its
// metadata names (hooks, core.fsmonitor, filter and diff drivers, an ext:: remote URL): a command
// that could write .git could make the worker's git run anything, unsandboxed. So .git is bound
// read-only inside the sandbox, and a .git a command makes at the top of a workspace that had none
// (`git init`) is removed after it: the run makes the commits, not the model's commands.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What `<workspace>/.git` is now (lstat: a symlink is not followed). */
function gitEntry(workspace: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(path.join(workspace, '.git'));
  } catch {
    return undefined;
  }
}

/** The directory a gitdir file (`gitdir: <path>`, a worktree's or a submodule's) names, if it exists. */
function gitdirOf(file: string): string | undefined {
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(file, 'utf8'));
    if (!m) return undefined;
    const dir = fs.realpathSync(path.resolve(path.dirname(file), m[1]!));
    return fs.statSync(dir).isDirectory() ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** A worktree's gitdir names the repository's own .git (config, hooks) in its `commondir` file. */
function commondirOf(gitdir: string): string | undefined {
  try {
    const dir = fs.realpathSync(path.resolve(gitdir, fs.readFileSync(path.join(gitdir, 'commondir'), 'utf8').trim()));
    return fs.statSync(dir).isDirectory() ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * bwrap arguments binding the workspace's git metadata read-only over itself (after the workspace's
 * writable bind): a `.git` directory; or a `.git` file (so it cannot be pointed elsewhere), the
 * gitdir it names and that gitdir's common directory. A bound path cannot be renamed or removed
 * inside the sandbox either.
 */
export function gitMetadataBinds(workspace: string): string[] {
  const dotGit = path.join(workspace, '.git');
  const st = gitEntry(workspace);
  if (!st) return [];
  if (st.isDirectory()) return ['--ro-bind', dotGit, dotGit];
  if (!st.isFile()) return [];
  const gitdir = gitdirOf(dotGit);
  const common = gitdir ? commondirOf(gitdir) : undefined;
  return [dotGit, gitdir, common].filter((p): p is string => p !== undefined).flatMap((p) => ['--ro-bind', p, p]);
}

/** Whether the workspace has a `.git` (directory, file or link) at its top. */
export function hasTopGit(workspace: string): boolean {
  return gitEntry(workspace) !== undefined;
}

/**
 * After a command: a `.git` at the top of the workspace that was not there before it is removed,
 * and the command's result fails, saying so (whatever its exit code).
 */
export function dropCreatedGit<R extends { ok: boolean; output: string }>(workspace: string, hadGit: boolean, result: R): R {
  if (hadGit || !hasTopGit(workspace)) return result;
  fs.rmSync(path.join(workspace, '.git'), { recursive: true, force: true });
  const note =
    'refused: the command made a git repository (.git) at the top of the workspace; it was removed. ' +
    "Commits are the run's work, not a command's: leave git init and git commit out, the run commits the task's files itself.";
  return { ...result, ok: false, output: `${note}\n${result.output}` };
}
