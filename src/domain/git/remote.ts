// G3: the repository a run's pull request goes to, read from its remote's URL when no flag names
// it: `https://github.com/owner/repo.git`, `git@github.com:owner/repo.git`,
// `ssh://git@gitlab.example.com/group/sub/project.git`. Pure.

/** Where a pull request lives (the same shape as the forge's project). */
export type RemoteProject = { service: 'github'; repo: string } | { service: 'gitlab'; project: string; url?: string };

const GITHUB_REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const GITLAB_PROJECT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+$/;

/** The host and path of a remote URL (https, ssh or scp-like), or undefined for a local path. */
function hostAndPath(url: string): { host: string; path: string; scheme: string } | undefined {
  const u = url.trim();
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(u);
  if (scp && !/^[A-Za-z]:\\/.test(u)) return { host: scp[1]!, path: scp[2]!, scheme: 'ssh' };
  const m = /^(https?|ssh|git):\/\/(?:[^@/\s]+@)?([^/:\s]+)(?::\d+)?\/(.+)$/.exec(u);
  return m ? { scheme: m[1]!, host: m[2]!, path: m[3]! } : undefined;
}

/**
 * G3: the GitHub repository or GitLab project of a remote URL: a host named like GitHub's is
 * GitHub, one named like GitLab's is GitLab; any other host needs --github or --gitlab.
 */
export function forgeProjectOfRemote(url: string): { ok: true; value: RemoteProject } | { ok: false; reason: string } {
  const hp = hostAndPath(url);
  const named = `the remote's URL ${url.replace(/\/\/[^@/]*@/, '//')}`;
  if (!hp) return { ok: false, reason: `${named} names no GitHub or GitLab repository: give --github owner/repo or --gitlab group/project` };
  const project = hp.path.replace(/\.git\/?$/, '').replace(/\/+$/, '');
  const host = hp.host.toLowerCase();
  if (host === 'github.com' || host.includes('github')) {
    return GITHUB_REPO.test(project)
      ? { ok: true, value: { service: 'github', repo: project } }
      : { ok: false, reason: `${named} is not owner/repo on GitHub` };
  }
  if (host === 'gitlab.com' || host.includes('gitlab')) {
    if (!GITLAB_PROJECT.test(project)) return { ok: false, reason: `${named} is not group/project on GitLab` };
    return { ok: true, value: { service: 'gitlab', project, ...(host === 'gitlab.com' ? {} : { url: `https://${hp.host}` }) } };
  }
  return {
    ok: false,
    reason: `${named} is on ${hp.host}, which is neither GitHub nor GitLab by its name: give --github owner/repo or --gitlab group/project`,
  };
}
