// `replanner diff <runId> [taskId]`: the files each task changed. The CLI runs beside the
// workspace (the run's own files live there): it reads the worker transcripts of each task and,
// where the workspace is a git repository, adds git's diff of those files against HEAD.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gitSync } from '../activities/git/exec';
import { fileChangesOf, renderFileChanges, type FileChange } from '../domain/file-changes';
import { tasksDirOf as tasksDir, toolCallsOf as callsOf } from '../activities/git/task-files';

interface TaskDiff {
  taskId: string;
  files: FileChange[];
  /** git's unified diff of the task's files against HEAD (absent: not a git repository, or no file). */
  gitDiff?: string;
}

function isGitRepo(workspace: string): boolean {
  try {
    return gitSync(workspace, ['rev-parse', '--is-inside-work-tree']).trim() === 'true';
  } catch {
    return false;
  }
}

/** git's diff of `files` against HEAD; a file git does not track yet shows as new. */
function gitDiffOf(workspace: string, files: readonly string[]): string {
  const run = (args: string[]) => {
    try {
      return gitSync(workspace, args, 32 * 1024 * 1024);
    } catch (e) {
      // `git diff --no-index` exits 1 when the files differ: its output is the diff.
      return (e as { stdout?: string }).stdout ?? '';
    }
  };
  const tracked = run(['ls-files', '--', ...files])
    .split('\n')
    .filter(Boolean);
  const untracked = files.filter((f) => !tracked.includes(f) && fs.existsSync(path.join(workspace, f)));
  const out = [tracked.length ? run(['diff', 'HEAD', '--', ...tracked]) : ''];
  for (const f of untracked) out.push(run(['diff', '--no-index', '--', '/dev/null', f]));
  return out.filter(Boolean).join('');
}

/** The diffs of one task or of every task of the run (task ids in directory order). */
export function runDiffs(workspace: string, runId: string, taskId?: string): TaskDiff[] {
  const dir = tasksDir(workspace, runId);
  if (!fs.existsSync(dir)) return [];
  const ids = taskId !== undefined ? [taskId] : fs.readdirSync(dir).sort();
  const git = isGitRepo(workspace);
  return ids
    .filter((id) => fs.existsSync(path.join(dir, id)))
    .map((id) => {
      const files = fileChangesOf(callsOf(path.join(dir, id)));
      const gitDiff =
        git && files.length
          ? gitDiffOf(
              workspace,
              files.map((f) => f.path),
            )
          : undefined;
      return { taskId: id, files, ...(gitDiff ? { gitDiff } : {}) };
    });
}

export function renderDiffs(runId: string, diffs: readonly TaskDiff[]): string {
  if (diffs.length === 0) return `Run ${runId}: no task has worked yet (no worker transcripts).`;
  const out: string[] = [];
  for (const d of diffs) {
    out.push(`Task ${d.taskId}: ${d.files.length} file(s) written or edited by the worker`, ...renderFileChanges(d.files));
    if (d.gitDiff) out.push('', `git diff of these files against HEAD (the workspace now, all tasks' changes included):`, d.gitDiff.trimEnd());
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** The files each task changed, for `status` (empty where the workspace is not readable from here). */
export function filesByTask(workspace: string, runId: string): Record<string, FileChange[]> {
  try {
    return Object.fromEntries(runDiffs(workspace, runId).flatMap((d) => (d.files.length ? [[d.taskId, d.files]] : [])));
  } catch {
    return {};
  }
}
