// G2: the run's branch pushed to its remote: never forced, never to another branch than the run's
// own, and a push repeated after a crash changes nothing (the remote already has the commit, or
// its branch is set to it once). The token goes to git through a credential helper that reads it
// from git's environment: never in .git/config, a remote URL, argv or a log.
import { RUN_BRANCH_PREFIX } from '../../domain/git/branch';
import { git, gitEnv, gitFailure, GIT_REFUSED, PUSH_REJECTED } from './exec';
import { pushTarget } from './push-remote';

export interface PushInput {
  workspace: string;
  remote: string;
  /** The run's branch: the only branch a run pushes to. */
  branch: string;
  /** The commit the remote's branch is set to. */
  sha: string;
  /** Whose token answers an http(s) remote's password prompt. */
  service?: 'github' | 'gitlab';
}

/**
 * The credential helper: a shell function git runs for a password, which prints the token from its
 * environment (`$GITHUB_TOKEN` is expanded by that shell, never written anywhere). The empty helper
 * before it drops the user's own helpers, so none of them stores the token. GitHub's git over
 * https takes a token as the password of `x-access-token`, GitLab's as that of `oauth2`.
 */
export function credentialArgs(service: PushInput['service'], env: NodeJS.ProcessEnv = process.env): { args: string[]; env: Record<string, string> } {
  const variable = service === 'gitlab' || (service === undefined && !env.GITHUB_TOKEN) ? 'GITLAB_TOKEN' : 'GITHUB_TOKEN';
  const token = env[variable];
  if (!token) return { args: [], env: {} };
  const user = variable === 'GITLAB_TOKEN' ? 'oauth2' : 'x-access-token';
  const helper = `!f() { test "$1" = get || exit 0; echo username=${user}; echo "password=$${variable}"; }; f`;
  return { args: ['-c', 'credential.helper=', '-c', `credential.helper=${helper}`], env: { [variable]: token } };
}

async function remoteHead(workspace: string, target: string, branch: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string | undefined> {
  const r = await git(workspace, [...args, 'ls-remote', '--heads', target, `refs/heads/${branch}`], { env, timeoutMs: 120_000 });
  if (r.code !== 0) return undefined;
  return r.stdout.split('\t')[0]?.trim() || undefined;
}

/** G2: sets the remote's `branch` to `sha` (a fast-forward only); returns what the remote has. */
export async function pushRunBranch(input: PushInput): Promise<{ pushed: string }> {
  const { workspace, remote, branch, sha } = input;
  if (!branch.startsWith(RUN_BRANCH_PREFIX))
    throw gitFailure(`a run pushes only its own branch (${RUN_BRANCH_PREFIX}<runId>), not ${branch}`, GIT_REFUSED);
  if (!/^[0-9a-f]{40,64}$/.test(sha)) throw gitFailure(`not a commit: ${sha}`, GIT_REFUSED);
  const cred = credentialArgs(input.service);
  const env = gitEnv(cred.env);
  // The URL recorded when the branch was made, not what .git/config says now (push-remote.ts).
  const target = pushTarget(workspace, branch, remote);
  // No "+" and no --force: the remote takes it only as a fast-forward.
  const r = await git(workspace, [...cred.args, 'push', '--porcelain', '--no-verify', target, `${sha}:refs/heads/${branch}`], {
    env,
    timeoutMs: 600_000,
  });
  if (r.code === 0) return { pushed: sha };
  const why = r.stderr.trim().slice(0, 1500);
  if (/does not appear to be a git repository|No such remote/i.test(why))
    throw gitFailure(`the remote ${remote} cannot be pushed to: ${why}`, GIT_REFUSED);
  if (/rejected|non-fast-forward|fetch first/i.test(why)) {
    // A repeated push after a crash: the remote already has this commit, or a later one of the run's.
    const there = await remoteHead(workspace, target, branch, env, cred.args);
    if (there === sha || (there && (await git(workspace, ['merge-base', '--is-ancestor', sha, there])).code === 0)) return { pushed: there };
    throw gitFailure(
      `the remote ${remote} refused the branch ${branch}: it has commits the run does not (someone pushed to it). The run never force-pushes: ${why}`,
      PUSH_REJECTED,
    );
  }
  if (/authentication|permission|denied|403|401|could not read Username|invalid credentials/i.test(why)) {
    const token = input.service === 'gitlab' ? 'GITLAB_TOKEN' : 'GITHUB_TOKEN';
    throw gitFailure(`the remote ${remote} refused the push: give the worker a ${token} that may push to it (${why})`, PUSH_REJECTED);
  }
  throw gitFailure(`git push to ${remote} failed: ${why}`);
}
