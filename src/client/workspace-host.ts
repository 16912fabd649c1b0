// Workspace affinity, the client's half: which host's worker owns a run's workspace. Decided from
// what Temporal already knows — the pollers of the run's queue, whose identities name their host
// and roots (src/domain/workspace-host.ts workerIdentity) — else, with no worker polling yet, from
// this shell's own REPLANNER_HOST / REPLANNER_WORKSPACE_ROOTS (the worker `run` starts has them).
import * as fs from 'node:fs';
import type { Client } from '@temporalio/client';
import { POLLER_FRESH_MS } from '../domain/worker-lifecycle';
import { chooseWorkspaceHostAt, parseWorkerIdentity, type AdvertisedWorker } from '../domain/workspace-host';
import { hostSettingsFromEnv } from '../host-settings';
import { pollersOf } from './workers';

/** No live worker owns the workspace (or several hosts claim it alike): the message names the fix. */
export class NoWorkspaceHost extends Error {}

/** The live workers polling `queue`, with the host and roots their identities name. */
export async function workersOn(client: Client, queue: string, nowMs = Date.now()): Promise<AdvertisedWorker[]> {
  const pollers = await pollersOf(client.connection, client.options.namespace, queue);
  return pollers.flatMap((p) => {
    const live = p.localAlive !== false && p.lastAccessMs !== undefined && Math.abs(nowMs - p.lastAccessMs) <= POLLER_FRESH_MS;
    const w = live ? parseWorkerIdentity(p.identity) : undefined;
    return w ? [w] : [];
  });
}

/** The host whose worker owns `workspace` (an absolute path) for runs on `queue`; NoWorkspaceHost otherwise. */
export async function workspaceHostOf(client: Client, queue: string, workspace: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const own = hostSettingsFromEnv(env);
  const paths = { given: workspace, real: realPathOf(workspace) };
  const choice = chooseWorkspaceHostAt(paths, { queue, workers: await workersOn(client, queue), own: { host: own.host, roots: own.roots } });
  if ('problem' in choice) throw new NoWorkspaceHost(choice.problem);
  return choice.host;
}

/** The workspace's real path (symlinks resolved), when it exists here. */
function realPathOf(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}
