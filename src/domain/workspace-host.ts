// Workspace affinity (Temporal's worker-specific task queue pattern). A worker owns the
// workspaces under its roots on its host; a run's workspace-touching activities go to the task
// queue of the host that owns its workspace, `<endpointQueue>@<host>`, while its workflows and its
// planning LLM calls stay on the endpoint-and-model queue, served by every worker with those
// settings. Pure: no Temporal, no I/O.
import { replannerCommand } from './printed-commands';

/** Host names go into task queue names and a search attribute: a DNS-like name, nothing else. */
const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function hostNameProblem(host: unknown): string | undefined {
  if (typeof host !== 'string' || !HOST_NAME.test(host)) {
    return `invalid host name ${JSON.stringify(host)}: 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit (set REPLANNER_HOST)`;
  }
  return undefined;
}

/** The task queue of `host`'s workspace activities for runs on `endpointQueue`. */
export function hostQueueOf(endpointQueue: string, host: string): string {
  return `${endpointQueue}@${host}`;
}

/**
 * The host's presence queue: a no-op activity each worker of the host serves with slots of its
 * own, so a busy host (every activity slot taken) still answers and is never called offline.
 */
export function presenceQueueOf(hostQueue: string): string {
  return `${hostQueue}:presence`;
}

/**
 * REPLANNER_WORKSPACE_ROOTS: absolute directories separated by `delimiter` (path.delimiter);
 * unset or blank: `/`, every workspace (a single-machine worker owns them all).
 */
export function parseWorkspaceRoots(raw: string | undefined, delimiter: string): { roots: string[] } | { problem: string } {
  if (raw === undefined || !raw.trim()) return { roots: ['/'] };
  const roots = raw
    .split(delimiter)
    .map((r) => r.trim())
    .filter(Boolean)
    .map(normaliseRoot);
  const bad = roots.find((r) => !r.startsWith('/'));
  if (bad !== undefined) return { problem: `REPLANNER_WORKSPACE_ROOTS: ${JSON.stringify(bad)} is not an absolute path` };
  return { roots: [...new Set(roots)] };
}

function normaliseRoot(r: string): string {
  const trimmed = r.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** The longest of `roots` that holds `workspace` (an absolute, resolved path), if any. */
export function rootHolding(roots: readonly string[], workspace: string): string | undefined {
  let best: string | undefined;
  for (const root of roots) {
    const holds = root === '/' || workspace === root || workspace.startsWith(`${root}/`);
    if (holds && (best === undefined || root.length > best.length)) best = root;
  }
  return best;
}

/**
 * A worker's identity names its host and roots, so a client finds the owner of a workspace in what
 * Temporal already reports (the task queue's pollers; no registry of our own), and the history's
 * ActivityTaskStarted events show where each activity ran. `<pid>@<host> roots=<r1>:<r2>`.
 */
export function workerIdentity(pid: number, host: string, roots: readonly string[]): string {
  return `${pid}@${host} roots=${roots.join(':')}`;
}

export interface AdvertisedWorker {
  host: string;
  roots: string[];
}

/** The host and roots a poller's identity names; a worker of another format owns its host's `/`. */
export function parseWorkerIdentity(identity: string): AdvertisedWorker | undefined {
  const m = /^\d+@(\S+)(?: roots=(.*))?$/.exec(identity);
  if (!m || hostNameProblem(m[1]) !== undefined) return undefined;
  const roots = m[2] === undefined ? ['/'] : m[2].split(':').filter((r) => r.startsWith('/'));
  return { host: m[1]!, roots: roots.length ? roots : ['/'] };
}

export type HostChoice = { host: string; from: 'workers' | 'own settings' } | { problem: string };

/**
 * Which host's worker owns `workspace`: among the live workers of the run's queue, the one whose
 * root holds it most specifically (several hosts at the same root: this client's own host if it is
 * one of them, else ambiguous). With no live worker at all, the client's own settings decide (the
 * CLI then starts a local worker, which has those settings): nothing changes for one machine.
 */
export function chooseWorkspaceHost(p: {
  workspace: string;
  queue: string;
  workers: readonly AdvertisedWorker[];
  own: AdvertisedWorker;
}): HostChoice {
  let bestLength = -1;
  let hosts: string[] = [];
  for (const w of p.workers) {
    const root = rootHolding(w.roots, p.workspace);
    if (root === undefined) continue;
    if (root.length > bestLength) {
      bestLength = root.length;
      hosts = [w.host];
    } else if (root.length === bestLength && !hosts.includes(w.host)) hosts.push(w.host);
  }
  if (hosts.length === 1) return { host: hosts[0]!, from: 'workers' };
  if (hosts.length > 1) {
    if (hosts.includes(p.own.host)) return { host: p.own.host, from: 'workers' };
    return {
      problem:
        `the workspace ${p.workspace} is claimed by the workers of hosts ${hosts.sort().join(', ')} alike (task queue "${p.queue}"): ` +
        'give each worker the roots it really holds with REPLANNER_WORKSPACE_ROOTS, or start the run from the host that holds the workspace',
    };
  }
  if (p.workers.length === 0 && rootHolding(p.own.roots, p.workspace) !== undefined) return { host: p.own.host, from: 'own settings' };
  const serving = p.workers.length
    ? `the workers on task queue "${p.queue}" hold ${p.workers.map((w) => `${w.host}: ${w.roots.join(', ')}`).join('; ')}`
    : `no worker polls task queue "${p.queue}" and this shell's REPLANNER_WORKSPACE_ROOTS (${p.own.roots.join(', ')}) do not hold it`;
  return {
    problem:
      `no worker owns the workspace ${p.workspace}: ${serving}. ` +
      `Start a worker on the host that holds it with the workspace under its roots (e.g. REPLANNER_WORKSPACE_ROOTS=${parentOf(p.workspace)} ${replannerCommand('worker')}), ` +
      "or add it to a running worker's REPLANNER_WORKSPACE_ROOTS and restart that worker",
  };
}

/**
 * The same choice for a workspace that may be reached through a symlink (macOS's /tmp is
 * /private/tmp): the path as given first, then its real path; the first that has an owner wins,
 * else the refusal names the path as given.
 */
export function chooseWorkspaceHostAt(
  paths: { given: string; real?: string },
  p: Omit<Parameters<typeof chooseWorkspaceHost>[0], 'workspace'>,
): HostChoice {
  const first = chooseWorkspaceHost({ ...p, workspace: paths.given });
  if (!('problem' in first) || paths.real === undefined || paths.real === paths.given) return first;
  const second = chooseWorkspaceHost({ ...p, workspace: paths.real });
  return 'problem' in second ? first : second;
}

function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

/** Activities of a run, for where they run. */
export type RunActivityName =
  | 'workerStep'
  | 'understandGoal'
  | 'decomposeTasks'
  | 'judgePlanQuality'
  | 'planActions'
  | 'judgeTask'
  | 'decideReplan'
  | 'replanTask'
  | 'reflect'
  | 'notification';

/**
 * Whether an activity reads or writes the run's workspace, and so must run on its host's queue:
 * the worker step (tools, transcript), the goal (a listing of the workspace), the task judge (the
 * worker's transcript as evidence), a task's re-decomposition with its run log, the goal phase's
 * replan decision (the workspace listing), and every LLM call of a run whose instruction lives in a
 * file beside the run (each prompt reads it). The rest are planning calls that need only their input.
 */
export function touchesWorkspace(
  activity: RunActivityName,
  facts: { instructionFile?: boolean; readsRunLog?: boolean; listsWorkspace?: boolean } = {},
): boolean {
  if (activity === 'notification') return false;
  if (activity === 'workerStep' || activity === 'understandGoal' || activity === 'judgeTask') return true;
  if (facts.instructionFile) return true;
  if (activity === 'replanTask') return facts.readsRunLog === true;
  if (activity === 'decideReplan') return facts.listsWorkspace === true;
  return false;
}
