// G1 / G2: what the run keeps of its branch in its state (carried across continue-as-new): the
// branch and its base, the commit of each task, the newest commit and what was pushed. Every
// "commit this task now?" and "push now?" is decided here from that state. Pure.
import { TaskState, type TaskRecord } from '../types';

/** G1: the run's branch as its state keeps it (small: shas and task ids). */
export interface RunGit {
  /** `replanner/<runId>`. */
  branch: string;
  /** The branch it was made from, and that branch's head then. */
  base: string;
  baseSha: string;
  /** G2: the remote the branch is pushed to (absent: `--branch` alone, nothing is pushed). */
  remote?: string;
  /** The newest commit the run made on the branch (the base's head before the first). */
  head: string;
  /** Each task's commit, by task id. */
  commits: Record<string, string>;
  /** G2: the commit the remote's branch was last set to by the run (absent: not pushed yet). */
  pushed?: string;
  /** What stopped the run's commits or pushes (shown in `status`; the run ends FAILED with it). */
  problem?: string;
}

/** Task states whose work never gets a commit of its own (a later commit takes what they left). */
const NO_COMMIT: TaskState[] = [TaskState.BLOCKED, TaskState.CANCELLED, TaskState.REPLACED_BY_REPLAN];

export function startRunGit(p: { branch: string; base: string; baseSha: string; remote?: string }): RunGit {
  return { branch: p.branch, base: p.base, baseSha: p.baseSha, ...(p.remote ? { remote: p.remote } : {}), head: p.baseSha, commits: {} };
}

/**
 * G1: the next task to commit: the first task of the plan that ended DONE and has no commit. A
 * task that runs again (a retry reopened it) gets a new commit when it is DONE again: `forgetReopened`.
 */
export function nextToCommit(g: RunGit, tasks: readonly TaskRecord[]): TaskRecord | undefined {
  return tasks.find((t) => t.state === TaskState.DONE && g.commits[t.id] === undefined);
}

/** G1: a committed task that is open again (a retry, or a new plan that reuses its id) commits anew once DONE. */
export function forgetReopened(g: RunGit, tasks: readonly TaskRecord[]): RunGit {
  const open = new Set(tasks.filter((t) => t.state === TaskState.READY || t.state === TaskState.RUNNING).map((t) => t.id));
  const kept = Object.entries(g.commits).filter(([id]) => !open.has(id));
  return kept.length === Object.keys(g.commits).length ? g : { ...g, commits: Object.fromEntries(kept) };
}

/**
 * G1: the tasks whose written files stay out of `taskId`'s commit: every other task of the plan
 * that may still have work to commit (running, or done and waiting for its own commit).
 */
export function othersUncommitted(g: RunGit, tasks: readonly TaskRecord[], taskId: string): string[] {
  return tasks.filter((t) => t.id !== taskId && !NO_COMMIT.includes(t.state) && g.commits[t.id] === undefined).map((t) => t.id);
}

export function recordCommit(g: RunGit, taskId: string, sha: string): RunGit {
  return { ...g, commits: { ...g.commits, [taskId]: sha }, head: sha };
}

/** G2: the branch has commits the remote does not have yet. */
export function pushDue(g: RunGit): boolean {
  return g.remote !== undefined && g.problem === undefined && g.head !== g.baseSha && g.head !== g.pushed;
}

export function recordPush(g: RunGit, sha: string): RunGit {
  return { ...g, pushed: sha };
}

export function gitProblem(g: RunGit, problem: string): RunGit {
  return { ...g, problem };
}

/** `status`: the branch and its commits, one per task, in the plan's order. */
export interface RunGitView {
  branch: string;
  base: string;
  baseSha: string;
  remote?: string;
  head: string;
  pushed?: string;
  commits: { taskId: string; sha: string }[];
  problem?: string;
}

export function runGitView(g: RunGit): RunGitView {
  const { commits, ...rest } = g;
  return { ...rest, commits: Object.entries(commits).map(([taskId, sha]) => ({ taskId, sha })) };
}

/** G1: `status`'s line about the branch: "Branch: replanner/r1 from main — 3 commits, pushed to origin". */
export function branchLine(g: RunGitView): string {
  const n = g.commits.length;
  const pushed = g.pushed ? (g.pushed === g.head ? `, pushed to ${g.remote}` : `, ${g.remote} behind`) : g.remote ? ', not pushed yet' : '';
  return `Branch: ${g.branch} from ${g.base} — ${n} commit${n === 1 ? '' : 's'}${pushed}${g.problem ? ` — stopped: ${g.problem}` : ''}`;
}
