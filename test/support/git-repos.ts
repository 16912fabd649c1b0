// Real git repositories for the tests of runs that commit their work: a checkout with one commit on
// `main` (the workspace), a bare repository as its `origin`, and what a reviewer reads of a branch.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function gitIn(dir: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A checkout on `main` with one commit (README.md), `identity` as its user (absent: none of its own). */
export function gitWorkspace(dir: string, opts: { identity?: { name: string; email: string } | null; files?: Record<string, string> } = {}): string {
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  const id = opts.identity === undefined ? { name: 'Ada Reviewer', email: 'ada@example.com' } : opts.identity;
  if (id) {
    gitIn(dir, ['config', 'user.name', id.name]);
    gitIn(dir, ['config', 'user.email', id.email]);
  }
  for (const [rel, text] of Object.entries({ 'README.md': '# project\n', ...opts.files })) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  gitIn(dir, ['add', '-A']);
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Base',
    GIT_AUTHOR_EMAIL: 'base@example.com',
    GIT_COMMITTER_NAME: 'Base',
    GIT_COMMITTER_EMAIL: 'base@example.com',
  };
  gitIn(dir, ['commit', '-q', '-m', 'the base'], env);
  return dir;
}

/** A bare repository holding the workspace's `main`, added as its `origin`. */
export function bareOrigin(workspace: string, name = 'origin'): string {
  const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-origin-'));
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  gitIn(workspace, ['remote', 'add', name, bare]);
  gitIn(workspace, ['push', '-q', name, 'main']);
  return bare;
}

export interface BranchCommit {
  sha: string;
  subject: string;
  body: string;
  author: string;
  parents: string[];
  runTrailer: string;
  taskTrailer: string;
}

/** The commits of `branch` after `base`, oldest first, as `git log` shows them. */
export function commitsAfter(dir: string, base: string, branch: string): BranchCommit[] {
  const fmt = ['%H', '%s', '%an <%ae>', '%P', '%(trailers:key=Replanner-Run,valueonly)', '%(trailers:key=Replanner-Task,valueonly)', '%b'].join(
    '%x1f',
  );
  const out = gitIn(dir, ['log', '--reverse', `--format=${fmt}%x1e`, `${base}..${branch}`]);
  return out
    .split('\x1e')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r.trim())
    .map((r) => {
      const [sha, subject, author, parents, run, task, body] = r.split('\x1f');
      return {
        sha: sha!,
        subject: subject!,
        author: author!,
        parents: parents!.split(' ').filter(Boolean),
        runTrailer: run!.trim(),
        taskTrailer: task!.trim(),
        body: body!.trim(),
      };
    });
}

/** The files a commit changed. */
export function filesOf(dir: string, sha: string): string[] {
  return gitIn(dir, ['diff-tree', '--no-commit-id', '--name-only', '-r', sha]).split('\n').filter(Boolean).sort();
}
