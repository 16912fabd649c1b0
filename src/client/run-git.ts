// G1 / G3: what `replanner run` checks and settles before a run that commits its work starts: the
// workspace is the top of a git checkout with a clean working tree (else exit 2, naming the files),
// the base is the branch checked out now (unless --base names one), and for a pull request the
// repository: --github / --gitlab, else the config, else the remote's URL.
import { parseConfig, type ReplannerConfig } from '../domain/config';
import { parseGithubFlag, parseGitlabFlag } from '../domain/config/notifications';
import { dirtyWorkspaceMessage } from '../domain/git/branch';
import { forgeProjectOfRemote, type RemoteProject } from '../domain/git/remote';
import { checkoutTop } from '../activities/git/branch';
import { changedPaths, git } from '../activities/git/exec';
import { UsageError } from './commands/context';

export interface GitFlags {
  branch?: boolean;
  pullRequest?: boolean;
  base?: string;
  remote?: string;
  github?: string;
  gitlab?: string;
}

/**
 * G3: with --pull-request, `--github owner/repo` (no number) names only the pull request's
 * repository; with a number it also names the issue the run posts to and the body refers to.
 * Returns the flags left for the notifications and the repository named.
 */
export function forgeFlagsOf(o: GitFlags): { github?: string; gitlab?: string; project?: RemoteProject } {
  if (!o.pullRequest) return { ...(o.github !== undefined ? { github: o.github } : {}), ...(o.gitlab !== undefined ? { gitlab: o.gitlab } : {}) };
  if (o.github !== undefined && o.gitlab !== undefined) throw new UsageError('give --github or --gitlab, not both');
  if (o.github !== undefined) {
    if (o.github.includes('#')) {
      const r = parseGithubFlag(o.github);
      if (!r.ok) throw new UsageError(r.reason);
      return { github: o.github, project: { service: 'github', repo: r.value.repo } };
    }
    const r = parseGithubFlag(`${o.github}#1`);
    if (!r.ok)
      throw new UsageError(`--github needs owner/repo (with --pull-request, #N is optional: the issue the run refers to), got "${o.github}"`);
    return { project: { service: 'github', repo: r.value.repo } };
  }
  if (o.gitlab !== undefined) {
    if (/[#!]\d+$/.test(o.gitlab.trim())) {
      const r = parseGitlabFlag(o.gitlab);
      if (!r.ok) throw new UsageError(r.reason);
      return { gitlab: o.gitlab, project: { service: 'gitlab', project: r.value.project } };
    }
    const r = parseGitlabFlag(`${o.gitlab}#1`);
    if (!r.ok) throw new UsageError(`--gitlab needs group/project (with --pull-request, #N or !N is optional), got "${o.gitlab}"`);
    return { project: { service: 'gitlab', project: r.value.project } };
  }
  return {};
}

/** The repository the config names for the pull request: its own keys, else the notifications'. */
function configuredProject(c: ReplannerConfig): RemoteProject | undefined {
  const pr = c.pullRequest;
  if (pr.github) return { service: 'github', repo: pr.github };
  if (pr.gitlab) return { service: 'gitlab', project: pr.gitlab, ...(pr.gitlabUrl ? { url: pr.gitlabUrl } : {}) };
  const n = c.notifications;
  if (n.github) return { service: 'github', repo: n.github.repo };
  if (n.gitlab) return { service: 'gitlab', project: n.gitlab.project, ...(n.gitlab.url ? { url: n.gitlab.url } : {}) };
  return undefined;
}

/** G1 / G3: the config with the flags' git settings over it, the workspace checked; unchanged when the run commits nothing. */
export async function withGitSettings(config: ReplannerConfig, o: GitFlags, workspace: string, named?: RemoteProject): Promise<ReplannerConfig> {
  const pr = {
    ...config.pullRequest,
    ...(o.branch || o.pullRequest ? { branch: true } : {}),
    ...(o.pullRequest ? { open: true } : {}),
    ...(o.base !== undefined ? { base: o.base } : {}),
    ...(o.remote !== undefined ? { remote: o.remote } : {}),
  };
  if (!pr.branch && !pr.open) {
    if (o.base !== undefined || o.remote !== undefined) throw new UsageError('--base and --remote go with --branch or --pull-request');
    return config;
  }
  try {
    await checkoutTop(workspace);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const dirty = dirtyWorkspaceMessage(workspace, await changedPaths(workspace));
  if (dirty) throw new UsageError(dirty);
  if (pr.base === undefined) {
    const current = (await git(workspace, ['symbolic-ref', '-q', '--short', 'HEAD'])).stdout.trim();
    if (!current)
      throw new UsageError(`the workspace ${workspace} has no branch checked out (a detached HEAD): check one out, or give --base BRANCH`);
    pr.base = current;
  }
  if (pr.open) {
    const project = named ?? configuredProject(config) ?? (await projectOfRemote(workspace, pr.remote));
    if (project.service === 'github') Object.assign(pr, { github: project.repo });
    else Object.assign(pr, { gitlab: project.project, ...(project.url ? { gitlabUrl: project.url } : {}) });
  }
  return parseConfig({ ...config, pullRequest: pr });
}

async function projectOfRemote(workspace: string, remote: string): Promise<RemoteProject> {
  const r = await git(workspace, ['remote', 'get-url', remote]);
  if (r.code !== 0)
    throw new UsageError(
      `the workspace ${workspace} has no remote "${remote}" to push to: add it (git remote add ${remote} URL) or name another with --remote`,
    );
  const p = forgeProjectOfRemote(r.stdout.trim());
  if (!p.ok) throw new UsageError(p.reason);
  return p.value;
}
