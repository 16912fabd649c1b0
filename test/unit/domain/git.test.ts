// G1 / G3: the pure rules of a run's branch: names, the commit message and its trailers, what a
// task's commit takes, when to commit and push, and the repository a remote's URL names.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { baseProblem, branchNameProblem, dirtyWorkspaceMessage, remoteNameProblem, runBranchOf } from '../../../src/domain/git/branch';
import { commitMessage, pathsToCommit } from '../../../src/domain/git/commit';
import { forgeProjectOfRemote } from '../../../src/domain/git/remote';
import { forgetReopened, nextToCommit, othersUncommitted, pushDue, recordCommit, recordPush, startRunGit } from '../../../src/domain/git/run-git';
import { TaskState } from '../../../src/domain/types';
import { taskRecord } from '../../support/tasks';

const task = taskRecord;

describe('the run branch (G1)', () => {
  it('G1 names: replanner/<runId>; bad branch and remote names refused; a run branch is no base', () => {
    expect(runBranchOf('ab12')).toBe('replanner/ab12');
    for (const ok of ['main', 'release/1.2', 'feature_x']) expect(branchNameProblem(ok)).toBeUndefined();
    for (const bad of ['', 'a b', 'a..b', '-x', 'x/', 'x.lock', 'a/.b', 'a~1', 'a:b', '@']) expect(branchNameProblem(bad)).toBeDefined();
    expect(remoteNameProblem('origin')).toBeUndefined();
    expect(remoteNameProblem('https://x')).toBeDefined();
    expect(baseProblem('replanner/other', 'r1')).toMatch(/a run's branch/);
    expect(baseProblem('main', 'r1')).toBeUndefined();
  });

  it('G1 a dirty workspace is named file by file; the run records alone are no change', () => {
    expect(dirtyWorkspaceMessage('/w', ['.replanner/runs/x/instruction.md'])).toBeUndefined();
    const m = dirtyWorkspaceMessage('/w', ['README.md', '.replanner', 'src/a.ts'])!;
    expect(m).toContain('README.md, src/a.ts');
    expect(m).not.toContain('.replanner');
    expect(
      dirtyWorkspaceMessage(
        '/w',
        Array.from({ length: 25 }, (_, i) => `f${i}`),
      ),
    ).toContain('and 5 more');
  });

  it('G1 the commit message: subject, body, then trailers git reads (a body line like a trailer cannot pass for one)', () => {
    const msg = commitMessage({ title: 'Add the\nparser', summary: 'Done.\nSigned-off-by: someone', runId: 'r1', taskId: 't-2' });
    expect(msg).toBe('Add the parser\n\nDone.\n  Signed-off-by: someone\n\nReplanner-Run: r1\nReplanner-Task: t-2\n');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-trailers-'));
    try {
      const trailers = execFileSync('git', ['-C', dir, 'interpret-trailers', '--parse'], { input: msg, encoding: 'utf8' });
      expect(trailers).toBe('Replanner-Run: r1\nReplanner-Task: t-2\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(commitMessage({ title: '', runId: 'r', taskId: 't' }).split('\n')[0]).toBe('task t');
  });

  it("G1 a commit takes only the task's own files while another task is busy; everything else once none is; never .replanner", () => {
    const changed = ['a.txt', 'b.txt', 'out.log', '.replanner/runs/x/y.json'];
    expect(pathsToCommit(changed, ['a.txt', 'gone.txt'], true)).toEqual(['a.txt']);
    expect(pathsToCommit(changed, ['a.txt'], false)).toEqual(['a.txt', 'b.txt', 'out.log']);
  });

  it('G1 which task commits next, who is still busy, and when to push', () => {
    let g = startRunGit({ branch: 'replanner/r', base: 'main', baseSha: 'b0', remote: 'origin' });
    const tasks = [task('a', TaskState.DONE), task('b', TaskState.RUNNING), task('c', TaskState.BLOCKED), task('d', TaskState.DONE)];
    expect(nextToCommit(g, tasks)?.id).toBe('a');
    expect(othersUncommitted(g, tasks, 'a')).toEqual(['b', 'd']);
    expect(pushDue(g)).toBe(false);
    g = recordCommit(g, 'a', 'c1');
    expect(nextToCommit(g, tasks)?.id).toBe('d');
    expect(pushDue(g)).toBe(true);
    g = recordPush(g, 'c1');
    expect(pushDue(g)).toBe(false);
    // a retried task commits again once DONE
    expect(forgetReopened(g, [task('a', TaskState.READY)]).commits).toEqual({});
    expect(forgetReopened(g, tasks)).toBe(g);
    expect(pushDue({ ...startRunGit({ branch: 'x', base: 'm', baseSha: 'b' }), head: 'c' })).toBe(false); // no remote: --branch alone
  });
});

describe('the repository of a remote URL (G3)', () => {
  it.each([
    ['https://github.com/octo/app.git', { service: 'github', repo: 'octo/app' }],
    ['git@github.com:octo/app.git', { service: 'github', repo: 'octo/app' }],
    ['https://x-access-token:secret@github.com/octo/app', { service: 'github', repo: 'octo/app' }],
    ['ssh://git@gitlab.example.com:2222/group/sub/proj.git', { service: 'gitlab', project: 'group/sub/proj', url: 'https://gitlab.example.com' }],
    ['https://gitlab.com/group/proj.git', { service: 'gitlab', project: 'group/proj' }],
  ])('G3 %s', (url, value) => {
    expect(forgeProjectOfRemote(url)).toEqual({ ok: true, value });
  });

  it('G3 a local path or another host needs a flag, and the reason never repeats a password', () => {
    expect(forgeProjectOfRemote('/tmp/origin.git')).toMatchObject({ ok: false });
    const r = forgeProjectOfRemote('https://user:hunter22@code.example.com/a/b.git');
    expect(r).toMatchObject({ ok: false });
    expect(JSON.stringify(r)).not.toContain('hunter22');
  });
});
