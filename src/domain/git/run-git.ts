// G1 / G2: what the run keeps of its branch in its state (carried across continue-as-new): the
// branch and its base, the commit of each task, the newest commit and what was pushed. Every
// "commit this task now?" and "push now?" is decided here from that state. Pure.
import type { RunPullRequest } from '../pull-request/run-state';
import { clipLine } from '../text';
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
  /** G3 / G4: the pull request the branch goes to (absent: none, or not opened yet). */
  pr?: RunPullRequest;
  /** V2: what the run said about its branch and pull request (`watch` prints each once): the newest few, and how many in all. */
  notes?: string[];
  said?: number;
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
  return noteGit({ ...g, commits: { ...g.commits, [taskId]: sha }, head: sha }, `task ${taskId} committed on ${g.branch}: ${sha.slice(0, 12)}`);
}

/** G2: the branch has commits the remote does not have yet. */
export function pushDue(g: RunGit): boolean {
  return g.remote !== undefined && g.problem === undefined && g.head !== g.baseSha && g.head !== g.pushed;
}

export function recordPush(g: RunGit, sha: string): RunGit {
  return noteGit({ ...g, pushed: sha }, `${g.branch} pushed to ${g.remote ?? 'the remote'} (${sha.slice(0, 12)})`);
}

export function gitProblem(g: RunGit, problem: string): RunGit {
  return noteGit({ ...g, problem }, `the branch's work stopped: ${problem}`);
}

const MAX_NOTES = 20;

/** V2: one line for `watch` about the branch or the pull request. */
export function noteGit(g: RunGit, text: string): RunGit {
  return { ...g, notes: [...(g.notes ?? []), clipLine(text, 500)].slice(-MAX_NOTES), said: (g.said ?? 0) + 1 };
}

/** V2: the notes `next` has that `prev` did not (by count; at most the kept ones). */
export function newGitNotes(prev: { said?: number } | undefined, next: { said?: number; notes?: readonly string[] } | undefined): string[] {
  const n = (next?.said ?? 0) - (prev?.said ?? 0);
  return n > 0 ? (next?.notes ?? []).slice(-n) : [];
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
  /** G5: the pull request: its number, link, whether it is a draft, and what the run follows. */
  pullRequest?: { service: 'github' | 'gitlab'; number: number; url?: string; ready: boolean; state?: string; following: boolean; summary?: string };
}

export function runGitView(g: RunGit): RunGitView {
  const { branch, base, baseSha, remote, head, pushed, problem, pr } = g;
  return {
    branch,
    base,
    baseSha,
    ...(remote !== undefined ? { remote } : {}),
    head,
    ...(pushed !== undefined ? { pushed } : {}),
    commits: Object.entries(g.commits).map(([taskId, sha]) => ({ taskId, sha })),
    ...(problem !== undefined ? { problem } : {}),
    ...(pr?.number !== undefined
      ? {
          pullRequest: {
            service: pr.project.service,
            number: pr.number,
            ...(pr.url ? { url: pr.url } : {}),
            ready: pr.ready === true,
            ...(pr.state ? { state: pr.state } : {}),
            following: pr.following !== undefined,
            ...(pr.summary ? { summary: pr.summary } : {}),
          },
        }
      : {}),
  };
}

/** G1: `status`'s line about the branch: "Branch: replanner/r1 from main — 3 commits, pushed to origin". */
export function branchLine(g: RunGitView): string {
  const n = g.commits.length;
  const pushed = g.pushed ? (g.pushed === g.head ? `, pushed to ${g.remote}` : `, ${g.remote} behind`) : g.remote ? ', not pushed yet' : '';
  return `Branch: ${g.branch} from ${g.base} — ${n} commit${n === 1 ? '' : 's'}${pushed}${g.problem ? ` — stopped: ${g.problem}` : ''}`;
}

/** G5: "PR #<n>" (GitHub) / "MR !<n>" (GitLab). */
export function shortPullRequestName(service: 'github' | 'gitlab', n: number): string {
  return service === 'github' ? `PR #${n}` : `MR !${n}`;
}

/** G5: one line while the run follows its pull request: "following PR #<n>: 2 of 3 checks passing, changes requested by @alice". */
export function followingLine(g: Pick<RunGit, 'pr'>): string | undefined {
  const pr = g.pr;
  if (!pr?.following || pr.number === undefined) return undefined;
  return `following ${shortPullRequestName(pr.project.service, pr.number)}${pr.summary ? `: ${pr.summary}` : ''}`;
}

/** G5: `status`'s line about the pull request: "Pull request: PR #<n> (ready for review) https://… — 2 of 3 checks passing". */
export function pullRequestLine(v: RunGitView): string | undefined {
  const p = v.pullRequest;
  if (!p) return undefined;
  const state = p.state && p.state !== 'open' ? p.state : p.ready ? 'ready for review' : 'draft';
  return `Pull request: ${shortPullRequestName(p.service, p.number)} (${state})${p.url ? ` ${p.url}` : ''}${p.summary ? ` — ${p.summary}` : ''}`;
}
