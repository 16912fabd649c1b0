// G2: where the run's branch is pushed, recorded when the branch is made (before any command
// of the run's tasks ran) in <workspace>/.replanner/runs/<runId>/push-remote.json, which neither
// commands (read-only in the sandbox) nor file tools may write. The push and its ls-remote use that
// URL, so a remote URL rewritten in .git/config later cannot send the run's work elsewhere. A run
// made before the record existed pushes by the remote's name, as it did.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RUN_BRANCH_PREFIX } from '../../domain/git/branch';
import { runDir, writeJsonAtomic } from '../run-files';
import { git } from './exec';

export interface PushRemoteRecord {
  /** The remote's name, as the run was told it. */
  remote: string;
  /** Its push URL then (`git remote get-url --push`). Never one with a password or token in it. */
  url: string;
}

export function pushRemoteFile(workspace: string, runId: string): string {
  return path.join(runDir(workspace, runId), 'push-remote.json');
}

/** An http(s) URL with user information may carry a token (`https://<token>@host/…`): never recorded. */
function mayHoldSecret(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/@]*@/i.test(url) && !/^(ssh|git\+ssh|ssh\+git):/i.test(url);
}

/**
 * Records the push URL of `remote` once (a repeat after a crash keeps the first record). Nothing is
 * recorded where the remote does not exist (a run that does not push) or its URL may hold a secret
 * (that run pushes by the remote's name).
 */
export async function recordPushRemote(workspace: string, runId: string, remote: string): Promise<PushRemoteRecord | undefined> {
  const file = pushRemoteFile(workspace, runId);
  const known = readPushRemote(workspace, runId);
  if (known) return known;
  const r = await git(workspace, ['remote', 'get-url', '--push', remote]);
  const url = r.stdout.trim().split('\n')[0]?.trim();
  if (r.code !== 0 || !url || url.startsWith('-') || mayHoldSecret(url)) return undefined;
  const record = { remote, url };
  await writeJsonAtomic(file, record);
  return record;
}

export function readPushRemote(workspace: string, runId: string): PushRemoteRecord | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(pushRemoteFile(workspace, runId), 'utf8')) as Partial<PushRemoteRecord>;
    return typeof v.remote === 'string' && typeof v.url === 'string' && v.url ? { remote: v.remote, url: v.url } : undefined;
  } catch {
    return undefined;
  }
}

/** What `git push` / `git ls-remote` is given for the run's branch: the recorded URL of `remote`, else its name. */
export function pushTarget(workspace: string, branch: string, remote: string): string {
  if (!branch.startsWith(RUN_BRANCH_PREFIX)) return remote;
  const record = readPushRemote(workspace, branch.slice(RUN_BRANCH_PREFIX.length));
  return record?.remote === remote ? record.url : remote;
}
