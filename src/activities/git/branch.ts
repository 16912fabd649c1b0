// G1: the run's branch, made once: the workspace must be the top of a git checkout with a clean
// working tree (the run's own records aside); the branch `replanner/<runId>` starts at the base's
// head and is checked out. Done again after a crash, it finds the branch and says the same.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseProblem, dirtyWorkspaceMessage, RUN_RECORDS_DIR, runBranchOf } from '../../domain/git/branch';
import { RUN_TRAILER } from '../../domain/git/commit';
import { changedPaths, git, gitFailure, gitOk, GIT_REFUSED, WORKSPACE_DIRTY } from './exec';
import { recordPushRemote } from './push-remote';

export interface PrepareBranchInput {
  runId: string;
  workspace: string;
  /** The base branch (absent: the branch checked out now). */
  base?: string;
  /** Where the base is looked for when it is no local branch. */
  remote?: string;
}

export interface PreparedBranch {
  branch: string;
  base: string;
  baseSha: string;
}

/** The workspace is the top of a git checkout, or the run is refused, saying so. */
export async function checkoutTop(workspace: string): Promise<string> {
  const r = await git(workspace, ['rev-parse', '--show-toplevel']);
  const top = r.code === 0 ? r.stdout.trim() : undefined;
  if (!top)
    throw gitFailure(`the workspace ${workspace} is not a git checkout: a run that commits its work needs one (git init, or clone)`, GIT_REFUSED);
  if (fs.realpathSync(top) !== fs.realpathSync(workspace)) {
    throw gitFailure(`the workspace ${workspace} is inside the git checkout ${top}, not its top: give --workspace ${top}`, GIT_REFUSED);
  }
  return top;
}

/** The commit `base` names: the local branch, else the remote's. */
async function baseCommit(workspace: string, base: string, remote: string | undefined): Promise<string> {
  for (const ref of [`refs/heads/${base}`, ...(remote ? [`refs/remotes/${remote}/${base}`] : [])]) {
    const r = await git(workspace, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    if (r.code === 0) return r.stdout.trim();
  }
  throw gitFailure(`the base branch ${base} has no commit in ${workspace}: name an existing branch with --base`, GIT_REFUSED);
}

/** After a crash: the base the branch was made from (its checkout's reflog line) and its head then (the first commit's parent). */
async function madeBefore(workspace: string, branch: string, runId: string, given: string | undefined): Promise<PreparedBranch> {
  let base = given;
  if (base === undefined) {
    const reflog = await gitOk(workspace, ['reflog', '-n', '200', '--format=%gs', 'HEAD']);
    const line = reflog.split('\n').find((l) => l.endsWith(` to ${branch}`) && l.startsWith('checkout: moving from '));
    base = line?.slice('checkout: moving from '.length, -` to ${branch}`.length);
  }
  if (!base) throw gitFailure(`the branch ${branch} exists but its base is unknown: start the run with --base`, GIT_REFUSED);
  const log = await gitOk(workspace, [
    'log',
    '-n',
    '1000',
    `--format=%P%x09%(trailers:key=${RUN_TRAILER},valueonly,separator=%x2C)`,
    `refs/heads/${branch}`,
  ]);
  const ours = log.split('\n').filter((l) => (l.split('\t')[1] ?? '').split(',').includes(runId));
  const first = ours[ours.length - 1];
  const baseSha = first ? first.split('\t')[0]!.split(' ')[0]! : (await gitOk(workspace, ['rev-parse', `refs/heads/${branch}`])).trim();
  return { branch, base, baseSha };
}

/** `.replanner/` is the run's records: git is told to leave it out of `status` (the clone's own exclude file, never committed). */
async function excludeRunRecords(workspace: string): Promise<void> {
  const file = (await gitOk(workspace, ['rev-parse', '--git-path', 'info/exclude'])).trim();
  const abs = path.resolve(workspace, file);
  const line = `/${RUN_RECORDS_DIR}/`;
  const text = fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : '';
  if (text.split('\n').includes(line)) return;
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.appendFileSync(abs, `${text && !text.endsWith('\n') ? '\n' : ''}# Replanner's run records\n${line}\n`);
}

/** G1: makes (or finds) the run's branch and checks it out. */
export async function prepareRunBranch(input: PrepareBranchInput): Promise<PreparedBranch> {
  const { workspace, runId } = input;
  await checkoutTop(workspace);
  const branch = runBranchOf(runId);
  if (input.base !== undefined) {
    const p = baseProblem(input.base, runId);
    if (p) throw gitFailure(p, GIT_REFUSED);
  }
  const exists = (await git(workspace, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).code === 0;
  const current = (await git(workspace, ['symbolic-ref', '-q', '--short', 'HEAD'])).stdout.trim();
  if (exists) {
    if (current !== branch) await gitOk(workspace, ['checkout', '-q', branch], { type: GIT_REFUSED });
    await excludeRunRecords(workspace);
    if (input.remote) await recordPushRemote(workspace, runId, input.remote);
    return madeBefore(workspace, branch, runId, input.base);
  }
  const dirty = dirtyWorkspaceMessage(workspace, await changedPaths(workspace));
  if (dirty) throw gitFailure(dirty, WORKSPACE_DIRTY);
  const base = input.base ?? current;
  if (!base) throw gitFailure(`the workspace ${workspace} has no branch checked out (a detached HEAD): check one out, or give --base`, GIT_REFUSED);
  const p = baseProblem(base, runId);
  if (p) throw gitFailure(p, GIT_REFUSED);
  const baseSha = await baseCommit(workspace, base, input.remote);
  // `checkout -b` writes "checkout: moving from <current> to <branch>" to HEAD's reflog: with no --base, that names the base after a crash.
  await gitOk(workspace, ['checkout', '-q', '-b', branch, baseSha], { type: GIT_REFUSED });
  await excludeRunRecords(workspace);
  // G2: the push URL, recorded before any command of the run's tasks runs (push-remote.ts).
  if (input.remote) await recordPushRemote(workspace, runId, input.remote);
  return { branch, base, baseSha };
}
