// Runs that end in a pull request, for the tests: a checkout with a bare `origin` the fake forge
// reads its branches from, the scripted model's feedback decisions (a change: one new task that
// writes a file), and the waits on the pull request and the run.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { FAST } from './harness';
import { FakeGitHub } from './fake-github';
import { startGitHttpServer, type GitHttpServer } from './git-http';
import { startRun } from './start-run';
import { statusQuery, type RunStatus } from '../../src/workflows/messages';
import type { FakeOpenAI } from './fake-openai';
import { until } from './harness';
import { NO_REPLAN_DECISION, scriptScenario, type ScenarioTask } from './scenario';
import { bareOrigin, gitIn, gitWorkspace } from './git-repos';

export const REPO = 'octo/app';

/** A checkout of `octo/app` with its bare origin, which the fake GitHub reads the branches of. */
export function forgeWorkspace(dir: string, gh: FakeGitHub): { ws: string; bare: string } {
  const ws = gitWorkspace(path.join(dir, 'ws'));
  const bare = bareOrigin(ws);
  gh.useGitRepo(REPO, bare);
  return { ws, bare };
}

export interface Forges {
  gh: FakeGitHub;
  git: GitHttpServer;
  /** Where the git server's bare repositories are. */
  gitRoot: string;
  stop(): Promise<void>;
}

/** The fake GitHub and a git server over HTTP under `gitRoot`, both taking only `token`. */
export async function startForges(gitRoot: string, token: string): Promise<Forges> {
  const gh = await FakeGitHub.start(token);
  const git = await startGitHttpServer(gitRoot, token);
  return { gh, git, gitRoot, stop: async () => void (await Promise.all([gh.stop(), git.stop()])) };
}

/** A checkout of `octo/app` whose origin is the git server over HTTP (its bare repository under `gitRoot`), read by the fake GitHub. */
export function httpWorkspace(dir: string, { gitRoot, git, gh }: Forges): { ws: string; bare: string; base: string } {
  const bare = path.join(gitRoot, 'app.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  const ws = gitWorkspace(dir);
  gitIn(ws, ['push', '-q', bare, 'main']);
  gitIn(ws, ['remote', 'add', 'origin', git.urlOf('app')]);
  gh.useGitRepo(REPO, bare);
  return { ws, bare, base: gitIn(ws, ['rev-parse', 'main']).trim() };
}

/** A run that ends in a pull request on `github` (owner/repo) or a merge request on `gitlab`, read every second (`config`: the rest of its config). */
export async function startPullRequestRun(
  on: { client: Client; taskQueue: string },
  ws: string,
  forge: { github: string } | { gitlab: string },
  config: Record<string, unknown> = {},
) {
  const { runId, handle } = await startRun(on, {
    instruction: 'write the files',
    workspace: ws,
    options: FAST,
    config: { ...config, pullRequest: { open: true, ...forge, pollSeconds: 1 } },
  });
  return { runId, handle, branch: `replanner/${runId}` };
}

/** The tasks the feedback decisions add (`add-1`, `add-2`, …: the ids a plan revision gives them), each writing its own file. */
export const fixTasks = (n: number): ScenarioTask[] =>
  Array.from({ length: n }, (_, i) => ({ id: `add-${i + 1}`, title: `fix ${i + 1}`, files: { [`fix-${i + 1}.txt`]: `fix ${i + 1}` } }));

/**
 * The scenario `tasks` (plus up to three fix tasks), and the replan decisions: after feedback on the
 * pull request, `feedback` (default: a change, one recommended action); otherwise no replan.
 */
export function scriptPullRequestRun(fake: FakeOpenAI, tasks: ScenarioTask[], feedback: Record<string, unknown> = {}): void {
  scriptScenario(fake, { tasks, replacements: { 'never-re-decomposed': fixTasks(3) } });
  fake.always('replan_decision', (req) =>
    /Feedback on (pull|merge) request/.test(req.text)
      ? {
          json: {
            ...NO_REPLAN_DECISION,
            replan_needed: true,
            confidence: 0.9,
            replan_type: 'partial_replan',
            reasoning: 'the feedback asks for a change',
            recommended_actions: ['make the change the feedback asks for'],
            ...feedback,
          },
        }
      : { json: NO_REPLAN_DECISION },
  );
}

/** The run's status once `probe` holds for it. */
export async function statusWhen(handle: WorkflowHandle, what: string, probe: (s: RunStatus) => boolean, timeoutMs = 120_000): Promise<RunStatus> {
  return until(
    what,
    async () => {
      const s = await handle.query(statusQuery);
      return probe(s) ? s : undefined;
    },
    timeoutMs,
  );
}

/** Sets the test worker's environment (a forge's token and address); returns what puts it back. */
export function setEnv(vars: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** The head of the run's branch on the remote. */
export const remoteHead = (bare: string, branch: string): string => gitIn(bare, ['rev-parse', `refs/heads/${branch}`]).trim();
