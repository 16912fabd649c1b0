// G1: a task's commit on the run's branch, exactly once: the branch is searched for the task's
// trailer first (a retry after a crash finds the commit it made). The commit is built beside the
// workspace's own index (a temporary one), on the branch's head, and the branch moves only if its
// head is still that commit, so nothing is ever rewritten and a concurrent change is never lost.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { commitMessage, pathsToCommit, RUN_TRAILER, TASK_TRAILER } from '../../domain/git/commit';
import { changedPaths, git, gitEnv, gitFailure, gitOk, GIT_REFUSED } from './exec';
import { writtenPaths } from './task-files';

export interface CommitTaskInput {
  runId: string;
  workspace: string;
  branch: string;
  /** The newest commit the run knows on its branch: the search for the trailer starts after it. */
  since: string;
  taskId: string;
  title: string;
  /** The judge's summary: the commit's body. */
  summary?: string;
  /** Other tasks of the run with work not committed yet: while there are any, only this task's own files go in. */
  others: string[];
}

export interface TaskCommit {
  sha: string;
  /** false: found on the branch (made before a crash). */
  created: boolean;
  files: number;
}

/** The commit of `taskId` made by this run after `since`, if any. */
async function findCommit(i: CommitTaskInput): Promise<string | undefined> {
  const format = `--format=%H%x09%(trailers:key=${RUN_TRAILER},valueonly,separator=%x2C)%x09%(trailers:key=${TASK_TRAILER},valueonly,separator=%x2C)`;
  const out = await gitOk(i.workspace, ['log', format, `${i.since}..refs/heads/${i.branch}`]);
  for (const line of out.split('\n')) {
    const [sha, run, task] = line.split('\t');
    if (sha && (run ?? '').split(',').includes(i.runId) && (task ?? '').split(',').includes(i.taskId)) return sha;
  }
  return undefined;
}

/** The author and committer: the user's git identity, else `Replanner <replanner@localhost>`. */
async function identityEnv(workspace: string): Promise<Record<string, string>> {
  const env = process.env;
  const get = async (key: string) => (await git(workspace, ['config', '--get', key])).stdout.trim();
  const name = env.GIT_AUTHOR_NAME || (await get('user.name'));
  const email = env.GIT_AUTHOR_EMAIL || (await get('user.email'));
  if (name && email) return {};
  return {
    GIT_AUTHOR_NAME: 'Replanner',
    GIT_AUTHOR_EMAIL: 'replanner@localhost',
    GIT_COMMITTER_NAME: 'Replanner',
    GIT_COMMITTER_EMAIL: 'replanner@localhost',
  };
}

/** The workspace's own index follows the commit for `paths` (so `git status` shows them committed). */
async function syncIndex(workspace: string, paths: readonly string[]): Promise<void> {
  if (!paths.length) return;
  await gitOk(workspace, ['--literal-pathspecs', 'reset', '-q', '--pathspec-from-file=-', '--pathspec-file-nul'], { input: paths.join('\0') + '\0' });
}

async function filesOf(workspace: string, sha: string): Promise<string[]> {
  const out = await gitOk(workspace, ['diff-tree', '--no-commit-id', '--name-only', '-r', '-z', '--root', sha]);
  return out.split('\0').filter(Boolean);
}

/** G1: commits the task's changes on the run's branch (once), and returns the commit. */
export async function commitRunTask(i: CommitTaskInput): Promise<TaskCommit> {
  const { workspace, branch } = i;
  const head = (await git(workspace, ['symbolic-ref', '-q', 'HEAD'])).stdout.trim();
  if (head !== `refs/heads/${branch}`) {
    throw gitFailure(
      `the workspace ${workspace} is no longer on the run's branch ${branch} (it is on ${head || 'a detached HEAD'}): check it out again (git checkout ${branch})`,
      GIT_REFUSED,
    );
  }
  const found = await findCommit(i);
  if (found) {
    const files = await filesOf(workspace, found);
    await syncIndex(workspace, files);
    return { sha: found, created: false, files: files.length };
  }
  const parent = (await gitOk(workspace, ['rev-parse', `refs/heads/${branch}`])).trim();
  const own = writtenPaths(workspace, i.runId, i.taskId);
  const paths = pathsToCommit(await changedPaths(workspace), own, i.others.length > 0);
  // A temporary index: the workspace's own (and whatever a command staged there) is left alone.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-index-'));
  try {
    const env = gitEnv({ GIT_INDEX_FILE: path.join(tmp, 'index'), ...(await identityEnv(workspace)) });
    await gitOk(workspace, ['read-tree', parent], { env });
    if (paths.length) {
      await gitOk(workspace, ['--literal-pathspecs', 'add', '-A', '-f', '--pathspec-from-file=-', '--pathspec-file-nul'], {
        env,
        input: paths.join('\0') + '\0',
      });
    }
    const tree = (await gitOk(workspace, ['write-tree'], { env })).trim();
    const message = commitMessage({ title: i.title, summary: i.summary, runId: i.runId, taskId: i.taskId });
    const sha = (await gitOk(workspace, ['commit-tree', tree, '-p', parent, '-F', '-'], { env, input: message })).trim();
    // Moves only if the branch is still at `parent`: never over a commit made meanwhile.
    await gitOk(workspace, ['update-ref', '-m', `replanner: task ${i.taskId}`, `refs/heads/${branch}`, sha, parent]);
    await syncIndex(workspace, paths);
    return { sha, created: true, files: paths.length };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
