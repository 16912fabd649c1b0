// S1: a task's commands and file tools cannot reach the worker's own git. The worker (commits,
// pushes) and the CLI (`replanner diff`) run git in the workspace outside the sandbox, and git runs
// the programs its metadata names: so .git is read-only in the sandbox, the file tools refuse it,
// and every git the worker runs turns those programs off. Real bubblewrap, real git, real files.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../../src/activities/tools';
import { prepareRunBranch } from '../../src/activities/git/branch';
import { commitRunTask } from '../../src/activities/git/commit';
import { pushRunBranch } from '../../src/activities/git/push';
import { pushRemoteFile } from '../../src/activities/git/push-remote';
import { runDiffs } from '../../src/client/diff';
import { taskCommitPatch } from '../../src/client/diff-branch';
import { hardenedGitArgs } from '../../src/domain/git/hardened';
import { bareOrigin, gitIn, gitWorkspace } from '../support/git-repos';

const cleanup: string[] = [];
const tmp = (prefix: string) => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanup.push(d);
  return d;
};
afterAll(() => {
  for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
});

const SANDBOXED = { sandbox: { enabled: true, network: false } };
const sh = (ws: string, script: string) => runTool(ws, 'run_command', { argv: ['sh', '-c', script] }, SANDBOXED);
const read = (f: string) => fs.readFileSync(f, 'utf8');

/** A script that leaves `marker` behind when something runs it. */
function tattler(dir: string, name: string, marker: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\necho ran >> '${marker}'\nexit 0\n`, { mode: 0o755 });
  return file;
}

describe('S1 the workspace git metadata is out of a command reach', () => {
  it('S1 a sandboxed command cannot write .git/hooks or .git/config, nor remove or replace .git', async () => {
    const ws = gitWorkspace(tmp('gm-ws-'));
    const config = read(path.join(ws, '.git', 'config'));
    const r = await sh(
      ws,
      [
        'printf "#!/bin/sh\\ntouch /tmp/x\\n" > .git/hooks/pre-commit',
        'git config core.fsmonitor "touch pwned"',
        'echo "[core]\\n\\thooksPath = hooks" >> .git/config',
        'rm -rf .git',
        'mv .git moved',
        'echo done',
      ].join('; '),
    );
    expect(r.output).toMatch(/Read-only file system|Device or resource busy/);
    expect(r.output).toContain('done');
    expect(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(read(path.join(ws, '.git', 'config'))).toBe(config);
    expect(fs.existsSync(path.join(ws, 'moved'))).toBe(false);
    expect(gitIn(ws, ['log', '--format=%s'])).toBe('the base\n');
    // Reading git in the sandbox still works (git status, git log, git diff).
    const status = await sh(ws, 'git log --format=%s && git status --short');
    expect(status).toEqual({ ok: true, output: 'exit code 0\nthe base\n' });
  });

  it('S1 in a worktree (.git is a gitdir file) the file, the gitdir and the repository .git are read-only', async () => {
    const repo = gitWorkspace(tmp('gm-repo-'));
    const ws = path.join(tmp('gm-wt-'), 'wt');
    gitIn(repo, ['worktree', 'add', '-q', '-b', 'side', ws]);
    const dotGit = read(path.join(ws, '.git'));
    const gitdir = dotGit.replace(/^gitdir:\s*/, '').trim();
    const r = await sh(
      ws,
      `echo "gitdir: /tmp/elsewhere" > .git; echo x > '${gitdir}/planted'; echo x > '${path.join(repo, '.git', 'hooks', 'post-commit')}'; echo done`,
    );
    expect(r.output).toContain('done');
    expect(read(path.join(ws, '.git'))).toBe(dotGit);
    expect(fs.existsSync(path.join(gitdir, 'planted'))).toBe(false);
    expect(fs.existsSync(path.join(repo, '.git', 'hooks', 'post-commit'))).toBe(false);
  });

  it('S1 a git init inside the sandbox leaves no .git and fails, saying why', async () => {
    const ws = tmp('gm-init-');
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
    const r = await sh(ws, 'git init -q && git add -A && git -c user.name=w -c user.email=w@example.com commit -qm init && echo committed');
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(
      /^refused: the command made a git repository \(\.git\) at the top of the workspace; it was removed\. Commits are the run's work/,
    );
    expect(r.output).toContain('committed');
    expect(fs.existsSync(path.join(ws, '.git'))).toBe(false);
    expect(read(path.join(ws, 'a.txt'))).toBe('a\n');
  });

  it("S1 write_file and edit_file refuse .git (any component, and through a link): the run's git metadata is not theirs", async () => {
    const ws = gitWorkspace(tmp('gm-tools-'));
    const config = read(path.join(ws, '.git', 'config'));
    fs.symlinkSync('.git', path.join(ws, 'meta'));
    const attempts: [string, Record<string, string>][] = [
      ['write_file', { path: '.git/config', content: '[core]\n\tfsmonitor = touch pwned\n' }],
      ['write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' }],
      ['write_file', { path: 'meta/hooks/post-checkout', content: '#!/bin/sh\n' }],
      ['write_file', { path: 'vendor/lib/.git/config', content: '[core]\n' }],
      ['edit_file', { path: '.git/config', old_string: '[core]', new_string: '[core]\n\thooksPath = h' }],
    ];
    for (const [tool, args] of attempts) {
      const r = await runTool(ws, tool, args);
      expect(r.ok).toBe(false);
      expect(r.output).toMatch(/inside a \.git directory: the run's git metadata is not the tools' to write/);
    }
    expect(read(path.join(ws, '.git', 'config'))).toBe(config);
    expect(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(fs.existsSync(path.join(ws, 'vendor'))).toBe(false);
    // Reading it is fine, and so is a file merely named like it.
    expect((await runTool(ws, 'read_file', { path: '.git/HEAD' })).output).toContain('ref: refs/heads/main');
    expect((await runTool(ws, 'write_file', { path: 'docs/.gitignore', content: 'x\n' })).ok).toBe(true);
  });
});

describe("S1 the worker's git runs nothing planted in .git (an older workspace)", () => {
  it('S1 hooks, core.fsmonitor, core.hooksPath and core.pager planted in .git do not run when the run makes its branch and commits', async () => {
    const ws = gitWorkspace(tmp('gm-plant-'));
    const marks = tmp('gm-marks-');
    const marker = path.join(marks, 'ran');
    for (const hook of ['post-checkout', 'reference-transaction', 'pre-commit', 'post-commit', 'post-index-change', 'pre-auto-gc'])
      tattler(path.join(ws, '.git', 'hooks'), hook, marker);
    const hooks = path.join(marks, 'hooks');
    fs.mkdirSync(hooks);
    tattler(hooks, 'reference-transaction', marker);
    gitIn(ws, ['config', 'core.fsmonitor', tattler(marks, 'fsmonitor', marker)]);
    gitIn(ws, ['config', 'core.pager', `sh -c 'echo ran >> ${marker}; cat'`]);
    // Planted after the fact: the checkout's own commands above ran none of it.
    expect(fs.existsSync(marker)).toBe(false);
    gitIn(ws, ['config', 'core.hooksPath', hooks]);
    fs.rmSync(marker, { force: true });

    const made = await prepareRunBranch({ runId: 'r1', workspace: ws });
    fs.writeFileSync(path.join(ws, 'feature.txt'), 'work\n');
    const c = await commitRunTask({ runId: 'r1', workspace: ws, branch: made.branch, since: made.baseSha, taskId: 't1', title: 'work', others: [] });
    expect(c.created).toBe(true);
    expect(gitIn(ws, ['show', '--format=', '--name-only', c.sha], { ...process.env, GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='false'" })).toBe(
      'feature.txt\n',
    );
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("S1 a repository a command makes inside the workspace (taken in by a task's commit as a submodule) runs none of its filter drivers in the worker's git", async () => {
    const ws = gitWorkspace(tmp('gm-sub-'));
    const marker = path.join(tmp('gm-marks-'), 'ran');
    const made = await prepareRunBranch({ runId: 'r6', workspace: ws });
    // All of it done by sandboxed commands: a nested repository whose config names a clean filter.
    const nested = await sh(
      ws,
      [
        'git init -q sub && cd sub',
        "echo hi > a.txt && echo '*.txt filter=evil' > .gitattributes",
        'git add -A && git -c user.name=a -c user.email=a@example.com commit -qm sub',
        `git config filter.evil.clean "sh -c 'echo ran >> ${marker}; cat'"`,
      ].join(' && '),
    );
    expect(nested.ok).toBe(true);
    const c1 = await commitRunTask({ runId: 'r6', workspace: ws, branch: made.branch, since: made.baseSha, taskId: 't1', title: 'sub', others: [] });
    expect(gitIn(ws, ['ls-tree', c1.sha, 'sub'])).toMatch(/^160000 commit /);
    // The next command touches the submodule's file and asks, in .gitmodules, for a look inside it.
    fs.writeFileSync(path.join(ws, 'modules.txt'), '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n');
    const touched = await sh(ws, 'sleep 1; touch sub/a.txt; mv modules.txt .gitmodules');
    expect(touched.ok).toBe(true);
    const c2 = await commitRunTask({ runId: 'r6', workspace: ws, branch: made.branch, since: c1.sha, taskId: 't2', title: 'modules', others: [] });
    expect(c2.created).toBe(true);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('S1 an ext:: remote URL (with protocol.ext.allow=always planted) is never run by the push', async () => {
    const ws = gitWorkspace(tmp('gm-ext-'));
    const marker = path.join(tmp('gm-marks-'), 'ran');
    gitIn(ws, ['remote', 'add', 'origin', `ext::sh -c touch% ${marker}`]);
    gitIn(ws, ['config', 'protocol.ext.allow', 'always']);
    const made = await prepareRunBranch({ runId: 'r2', workspace: ws, remote: 'origin' });
    fs.writeFileSync(path.join(ws, 'f.txt'), 'x\n');
    const c = await commitRunTask({ runId: 'r2', workspace: ws, branch: made.branch, since: made.baseSha, taskId: 't1', title: 'x', others: [] });
    const pushed = pushRunBranch({ workspace: ws, remote: 'origin', branch: made.branch, sha: c.sha });
    await pushed.catch(() => undefined);
    expect(fs.existsSync(marker)).toBe(false);
    await expect(pushed).rejects.toThrow(/transport 'ext' not allowed/);
  });

  it('S1 V3 replanner diff runs no diff.external or textconv driver planted in .git', async () => {
    const ws = gitWorkspace(tmp('gm-diff-'), { files: { 'a.txt': 'one\n' } });
    const marks = tmp('gm-marks-');
    const marker = path.join(marks, 'ran');
    const tool = tattler(marks, 'differ', marker);
    gitIn(ws, ['config', 'diff.external', tool]);
    gitIn(ws, ['config', 'diff.evil.textconv', tool]);
    fs.writeFileSync(path.join(ws, '.gitattributes'), '*.txt diff=evil\n');
    gitIn(ws, ['add', '.gitattributes']);
    gitIn(ws, ['-c', 'core.hooksPath=/dev/null', 'commit', '-qm', 'attributes']);
    const made = await prepareRunBranch({ runId: 'r3', workspace: ws });
    fs.writeFileSync(path.join(ws, 'a.txt'), 'two\n');
    const step = path.join(ws, '.replanner', 'runs', 'r3', 'tasks', 't1', 'iteration-1', 'step-1.json');
    fs.mkdirSync(path.dirname(step), { recursive: true });
    fs.writeFileSync(
      step,
      JSON.stringify({ calls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'two\n' }), ok: true }] }),
    );
    const [d] = runDiffs(ws, 'r3');
    expect(d?.gitDiff).toMatch(/^-one\n\+two$/m);
    const c = await commitRunTask({ runId: 'r3', workspace: ws, branch: made.branch, since: made.baseSha, taskId: 't1', title: 'two', others: [] });
    const view = { branch: made.branch, base: made.base, baseSha: made.baseSha, head: c.sha, commits: [{ taskId: 't1', sha: c.sha }] };
    expect(taskCommitPatch(ws, view, 't1')).toMatch(/^\+two$/m);
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('S1 G2 the push goes where the run was told when its branch was made', () => {
  it('S1 G2 a remote URL rewritten in .git/config after the branch was made does not redirect the push', async () => {
    const ws = gitWorkspace(tmp('gm-push-'));
    const origin = bareOrigin(ws);
    cleanup.push(origin);
    const elsewhere = tmp('gm-elsewhere-');
    execFileSync('git', ['init', '-q', '--bare', elsewhere]);
    const made = await prepareRunBranch({ runId: 'r4', workspace: ws, remote: 'origin' });
    expect(JSON.parse(read(pushRemoteFile(ws, 'r4')))).toEqual({ remote: 'origin', url: origin });
    gitIn(ws, ['remote', 'set-url', 'origin', elsewhere]);
    fs.writeFileSync(path.join(ws, 'f.txt'), 'x\n');
    const c = await commitRunTask({ runId: 'r4', workspace: ws, branch: made.branch, since: made.baseSha, taskId: 't1', title: 'x', others: [] });
    expect(await pushRunBranch({ workspace: ws, remote: 'origin', branch: made.branch, sha: c.sha })).toEqual({ pushed: c.sha });
    expect(gitIn(origin, ['rev-parse', `refs/heads/${made.branch}`]).trim()).toBe(c.sha);
    expect(gitIn(elsewhere, ['for-each-ref']).trim()).toBe('');
    // A run without the record (made before it existed) pushes by the remote's name, as before.
    fs.rmSync(pushRemoteFile(ws, 'r4'));
    expect(await pushRunBranch({ workspace: ws, remote: 'origin', branch: made.branch, sha: c.sha })).toEqual({ pushed: c.sha });
    expect(gitIn(elsewhere, ['rev-parse', `refs/heads/${made.branch}`]).trim()).toBe(c.sha);
  });

  it('S1 S4 a remote URL that may carry a token is never recorded (that run pushes by name)', async () => {
    const ws = gitWorkspace(tmp('gm-token-'));
    gitIn(ws, ['remote', 'add', 'origin', 'https://ghp_notARealToken123@github.com/o/r.git']);
    await prepareRunBranch({ runId: 'r5', workspace: ws, remote: 'origin' });
    expect(fs.existsSync(pushRemoteFile(ws, 'r5'))).toBe(false);
  });

  it('S1 hardenedGitArgs puts the settings first; diff, show and log get no external diff or textconv; those and status no look inside submodules', () => {
    expect(hardenedGitArgs(['-C', '/w', 'rev-parse', 'HEAD'])).toEqual([
      '-c',
      'core.hooksPath=/dev/null',
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.pager=cat',
      '-c',
      'protocol.ext.allow=never',
      '-c',
      'submodule.recurse=false',
      '-C',
      '/w',
      'rev-parse',
      'HEAD',
    ]);
    const own = (args: string[]) => hardenedGitArgs(args).slice(10);
    expect(own(['-C', '/w', '-c', 'a=b', 'show', '--stat', 'abc'])).toEqual([
      '-C',
      '/w',
      '-c',
      'a=b',
      'show',
      '--no-ext-diff',
      '--no-textconv',
      '--ignore-submodules=dirty',
      '--stat',
      'abc',
    ]);
    expect(own(['--literal-pathspecs', 'diff', 'HEAD'])).toEqual([
      '--literal-pathspecs',
      'diff',
      '--no-ext-diff',
      '--no-textconv',
      '--ignore-submodules=dirty',
      'HEAD',
    ]);
    expect(own(['status', '--porcelain'])).toEqual(['status', '--ignore-submodules=dirty', '--porcelain']);
  });
});
