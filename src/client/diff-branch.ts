// G1 / V3 `replanner diff <runId>` for a run with a branch of its own: the branch's commits, one
// per task that ended DONE, each with its files (+added −removed lines), read from git in the
// workspace; with a task id, that task's commit as git shows it.
import { gitSync } from '../activities/git/exec';
import type { RunGitView } from '../domain/git/run-git';

export interface BranchCommitView {
  sha: string;
  taskId?: string;
  subject: string;
  files: { path: string; added: number; removed: number }[];
}

const gitOut = (workspace: string, args: string[]) => gitSync(workspace, args);

/** The branch's commits after its base, oldest first (the branch as the workspace has it now). */
export function branchCommits(workspace: string, g: RunGitView): BranchCommitView[] {
  const out = gitOut(workspace, [
    'log',
    '--reverse',
    '--numstat',
    '--format=%x1e%H%x1f%s%x1f%(trailers:key=Replanner-Task,valueonly)',
    `${g.baseSha}..refs/heads/${g.branch}`,
  ]);
  return out
    .split('\x1e')
    .filter((r) => r.trim())
    .map((r) => {
      const [head = '', ...rest] = r.split('\n');
      const [sha = '', subject = '', task = ''] = head.split('\x1f');
      const files = rest
        .map((l) => l.split('\t'))
        .filter((p) => p.length === 3)
        .map(([a, d, p]) => ({ path: p!, added: Number(a) || 0, removed: Number(d) || 0 }));
      return { sha, subject, ...(task.trim() ? { taskId: task.trim() } : {}), files };
    });
}

export function renderBranchCommits(runId: string, g: RunGitView, commits: readonly BranchCommitView[]): string {
  const lines = [
    `Run ${runId}: branch ${g.branch} from ${g.base} (${g.baseSha.slice(0, 12)}), ${commits.length} commit(s)${g.pushed ? `, pushed to ${g.remote}` : ''}`,
  ];
  for (const c of commits) {
    lines.push('', `${c.sha.slice(0, 12)} ${c.subject}${c.taskId ? `  (task ${c.taskId})` : ''}`);
    for (const f of c.files) lines.push(`  +${f.added} −${f.removed}  ${f.path}`);
    if (!c.files.length) lines.push('  (no file changed)');
  }
  return lines.join('\n');
}

/** One task's commit, as `git show` prints it (undefined: the task has no commit). */
export function taskCommitPatch(workspace: string, g: RunGitView, taskId: string): string | undefined {
  const sha = g.commits.find((c) => c.taskId === taskId)?.sha;
  return sha ? gitOut(workspace, ['show', '--stat', '--patch', sha]) : undefined;
}
