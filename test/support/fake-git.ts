/**
 * What the fake forges know of a repository's branches, as GitHub and GitLab know their own: a
 * branch's head commit and how many commits a head has beyond a base (GitHub refuses a pull request
 * with none). Read from a real bare git repository the test pushes to (`gitBranches`), or told by
 * the test (`toldBranches`). No jest here.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

export interface BranchSource {
  /** The branch's head commit, or undefined when there is no such branch. */
  head(branch: string): string | undefined;
  /** Commits on `head` that `base` does not have. */
  ahead(base: string, head: string): number;
}

/** A bare (or any) git repository's branches, read with git at each question (a push shows at once). */
export function gitBranches(dir: string): BranchSource {
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  return {
    head(branch) {
      try {
        return git('rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`) || undefined;
      } catch {
        return undefined;
      }
    },
    ahead(base, head) {
      return Number(git('rev-list', '--count', `refs/heads/${base}..refs/heads/${head}`));
    },
  };
}

/** Branches a test describes: each with its commits, oldest first (a branch made from another starts with its commits). */
export function toldBranches(branches: Map<string, string[]>): BranchSource {
  return {
    head: (branch) => branches.get(branch)?.at(-1),
    ahead(base, head) {
      const b = new Set(branches.get(base) ?? []);
      return (branches.get(head) ?? []).filter((c) => !b.has(c)).length;
    },
  };
}

/** A bare repository (the forge's copy) and a clone to commit in, for the fakes' tests. */
export interface TestOrigin {
  /** The bare repository: give it to the fake (`useGitRepo`). */
  bare: string;
  /** A clone with `main` checked out. */
  work: string;
  /** Commits `file` with `text` on the checked-out branch; its sha. */
  commit(file: string, text: string, message?: string): string;
  /** `git checkout -B branch` in the clone. */
  checkout(branch: string): void;
  /** Pushes the clone's `branch` to the bare repository. */
  push(branch: string): void;
}

/** A bare repository with one commit on `main`, and a clone of it, under `dir`. */
export function testOrigin(dir: string): TestOrigin {
  const run = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-C', cwd, '-c', 'user.name=Test', '-c', 'user.email=test@localhost', '-c', 'commit.gpgsign=false', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  const bare = `${dir}/origin.git`;
  const work = `${dir}/work`;
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', work]);
  run(work, 'remote', 'add', 'origin', bare);
  const origin: TestOrigin = {
    bare,
    work,
    commit(file, text, message = `change ${file}`) {
      writeFileSync(`${work}/${file}`, text);
      run(work, 'add', '--', file);
      run(work, 'commit', '--quiet', '-m', message);
      return run(work, 'rev-parse', 'HEAD');
    },
    checkout: (branch) => void run(work, 'checkout', '--quiet', '-B', branch),
    push: (branch) => void run(work, 'push', '--quiet', 'origin', `${branch}:refs/heads/${branch}`),
  };
  origin.commit('README.md', '# app\n', 'initial');
  origin.push('main');
  return origin;
}
