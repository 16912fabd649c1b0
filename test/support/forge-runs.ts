// Runs that report to an issue or merge request on the local GitHub / GitLab servers
// (fake-github.ts, fake-gitlab.ts): one description per forge (its server, the worker's
// environment, the run's config, the thread's name), the run's worker in its own process (so a test
// can SIGKILL it and look for the token in its log), and readers of what the thread shows.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { checklistMarker } from '../../src/domain/notifications';
import { RunWorkflow, runWorkflowId } from '../../src/workflows/run';
import type { RunOptions } from '../../src/workflows/options';
import { FakeGitHub } from './fake-github';
import { FakeGitLab } from './fake-gitlab';
import type { FakeForge, StoredComment } from './fake-forge';
import { FAST, temporalAddress, uniqueId, type Harness } from './harness';
import { startWorkerProcess, type WorkerProc } from './worker-proc';

const exec = promisify(execFile);

export const GH_TOKEN = `ghp_${uniqueId('tok').replace(/-/g, '')}SECRETgithub0123456789`;
export const GL_TOKEN = `glpat-${uniqueId('tok').replace(/-/g, '')}SECRETgitlab`;

/** One forge as the tests use it. */
export interface Forge {
  name: 'GitHub' | 'GitLab';
  token: string;
  start(): Promise<FakeForge>;
  /** The worker's environment (its token, and GitHub's API URL). */
  env(server: FakeForge): Record<string, string>;
  /** The run's `notifications` config for issue `n`. */
  config(server: FakeForge, n: number): Record<string, unknown>;
  /** The thread's name on the server (`owner/repo#n`, `group/project#n`). */
  thread(n: number): string;
}

export const GITHUB: Forge = {
  name: 'GitHub',
  token: GH_TOKEN,
  start: () => FakeGitHub.start(GH_TOKEN),
  env: (s) => ({ GITHUB_TOKEN: GH_TOKEN, GITHUB_API_URL: s.baseURL }),
  config: (_s, n) => ({ github: { repo: 'octo/app', issue: n } }),
  thread: (n) => `octo/app#${n}`,
};

export const GITLAB: Forge = {
  name: 'GitLab',
  token: GL_TOKEN,
  start: () => FakeGitLab.start(GL_TOKEN),
  env: () => ({ GITLAB_TOKEN: GL_TOKEN }),
  config: (s, n) => ({ gitlab: { project: 'grp/proj', issue: n, url: s.baseURL } }),
  thread: (n) => `grp/proj#${n}`,
};

/** Servers started by a suite: `start` one, `stopAll` after all its tests (the suite's afterAll). */
export function forgeServers(): { start(f: Forge): Promise<FakeForge>; stopAll(): Promise<void> } {
  const servers: FakeForge[] = [];
  return {
    async start(f) {
      const s = await f.start();
      servers.push(s);
      return s;
    },
    async stopAll() {
      for (const s of servers.splice(0)) await s.stop();
    },
  };
}

export function forgeWorker(h: Harness, taskQueue: string, env: Record<string, string>): Promise<WorkerProc> {
  return startWorkerProcess({ address: temporalAddress(), taskQueue, llmBaseURL: h.fake.baseURL, env });
}

export function startForgeRun(
  h: Harness,
  taskQueue: string,
  config: Record<string, unknown>,
  options: Partial<RunOptions> = {},
): Promise<WorkflowHandle<typeof RunWorkflow>> {
  const runId = uniqueId('ntf');
  return h.client.workflow.start(RunWorkflow, {
    taskQueue,
    workflowId: runWorkflowId(runId),
    args: [{ runId, instruction: 'write the report', workspace: h.workspace(), options: { ...FAST, ...options }, config }],
  });
}

export const runIdOf = (handle: WorkflowHandle) => handle.workflowId.replace(/^run-/, '');

/** The run's checklist comments on a thread. */
export const checklistsOf = (comments: StoredComment[], runId: string) => comments.filter((c) => c.body.includes(checklistMarker(runId)));

/** The keys of the run's notifications on the thread, in the thread's order (a key twice: posted twice). */
export function noticeKeys(comments: StoredComment[], runId: string): string[] {
  const marker = new RegExp(`^<!-- replanner:notification run=${runId} key=(\\S+) -->`);
  return [...comments]
    .sort((a, b) => a.id - b.id)
    .flatMap((c) => {
      const m = marker.exec(c.body);
      return m ? [m[1]!] : [];
    });
}

const temporal = (...args: string[]) =>
  exec(process.env.TEMPORAL_CLI_PATH!, [...args, '--address', temporalAddress(), '-o', 'json'], { maxBuffer: 32 * 1024 * 1024 }).then(
    (r) => r.stdout,
  );

/**
 * S4: where the token shows up: any history of the run's workflows, the run's memo (describe), the
 * workers' logs. Empty: nowhere. The run's own workflows must be found (the run and its phase and
 * task children), each with a real history, or that is said too.
 */
export async function tokenFoundIn(handle: WorkflowHandle, token: string, workers: WorkerProc[]): Promise<string[]> {
  const found: string[] = [];
  const listed = JSON.parse((await temporal('workflow', 'list', '--query', `WorkflowId STARTS_WITH "${handle.workflowId}"`)) || '[]') as {
    execution: { workflowId: string };
  }[];
  const ids = [...new Set(listed.map((w) => w.execution.workflowId))];
  if (!ids.includes(handle.workflowId) || ids.length <= 4) found.push(`(only ${ids.length} workflows listed: ${ids.join(', ')})`);
  for (const id of ids) {
    const history = await temporal('workflow', 'show', '--workflow-id', id);
    if (history.length <= 100) found.push(`(no history for ${id})`);
    if (history.includes(token)) found.push(`history of ${id}`);
  }
  const described = await temporal('workflow', 'describe', '--workflow-id', handle.workflowId);
  if (!described.includes('replannerStatus')) found.push('(no status in the memo)');
  if (described.includes(token)) found.push('memo');
  workers.forEach((w, i) => {
    if (w.output.join('').includes(token)) found.push(`worker ${i}'s log`);
  });
  return found;
}
