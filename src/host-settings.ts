// Workspace affinity: a worker's host settings from its environment (shared by the worker and the
// client, which maps a workspace to its host from the same settings when no worker polls yet).
import * as os from 'node:os';
import * as path from 'node:path';
import { hostNameProblem, parseWorkspaceRoots } from './domain/workspace-host';

/** Workspace affinity: a worker's host name, the workspace roots it owns, and its own state directory. */
export interface HostSettings {
  host: string;
  roots: string[];
  /** The journal of planning calls that ran on this worker for a workspace on another host (journal.ts). */
  stateDir: string;
}

/**
 * REPLANNER_HOST (default the machine's host name), REPLANNER_WORKSPACE_ROOTS (path.delimiter-separated
 * absolute directories; default `/`, every workspace) and REPLANNER_STATE_DIR (default a directory in
 * the OS's temporary directory: the journal there only needs to outlive a retry).
 */
export function hostSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): HostSettings {
  const host = env.REPLANNER_HOST?.trim() || os.hostname();
  const problem = hostNameProblem(host);
  if (problem) throw new Error(problem);
  const roots = parseWorkspaceRoots(env.REPLANNER_WORKSPACE_ROOTS, path.delimiter);
  if ('problem' in roots) throw new Error(roots.problem);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return { host, roots: roots.roots, stateDir: env.REPLANNER_STATE_DIR || path.join(os.tmpdir(), `replanner-worker-${uid}`) };
}
