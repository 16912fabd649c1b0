// Workspace affinity (issue 23): which host owns a workspace, what a worker's identity says, and
// which activities must run on the workspace's host.
import {
  chooseWorkspaceHost,
  chooseWorkspaceHostAt,
  hostNameProblem,
  hostQueueOf,
  parseWorkerIdentity,
  parseWorkspaceRoots,
  rootHolding,
  touchesWorkspace,
  workerIdentity,
} from '../../../src/domain/workspace-host';

describe('workspace affinity', () => {
  it('B1 roots: absent is "/", several by the delimiter, relative ones refused, trailing slashes dropped', () => {
    expect(parseWorkspaceRoots(undefined, ':')).toEqual({ roots: ['/'] });
    expect(parseWorkspaceRoots('  ', ':')).toEqual({ roots: ['/'] });
    expect(parseWorkspaceRoots('/srv/a/:/srv/b::/srv/a', ':')).toEqual({ roots: ['/srv/a', '/srv/b'] });
    expect(parseWorkspaceRoots('/srv/a:repos', ':')).toEqual({ problem: expect.stringContaining('"repos" is not an absolute path') });
  });

  it('B1 a root holds its own path and what is below it, not a sibling with the same prefix', () => {
    expect(rootHolding(['/srv/a'], '/srv/a')).toBe('/srv/a');
    expect(rootHolding(['/srv/a'], '/srv/a/x')).toBe('/srv/a');
    expect(rootHolding(['/srv/a'], '/srv/ab')).toBeUndefined();
    expect(rootHolding(['/', '/srv'], '/srv/x')).toBe('/srv');
  });

  it('B1 identity names the host and roots; the SDK default identity owns its host’s "/"; a forged host is ignored', () => {
    const id = workerIdentity(42, 'host-a', ['/srv/a', '/srv/my repos']);
    expect(id).toBe('42@host-a roots=/srv/a:/srv/my repos');
    expect(parseWorkerIdentity(id)).toEqual({ host: 'host-a', roots: ['/srv/a', '/srv/my repos'] });
    expect(parseWorkerIdentity('77@box.example')).toEqual({ host: 'box.example', roots: ['/'] });
    expect(parseWorkerIdentity('someone')).toBeUndefined();
    expect(parseWorkerIdentity('1@-bad')).toBeUndefined();
    expect(hostNameProblem('a'.repeat(101))).toContain('REPLANNER_HOST');
    expect(hostNameProblem("x'; drop")).toBeDefined();
    expect(hostQueueOf('replanner-abc', 'host-a')).toBe('replanner-abc@host-a');
  });

  const own = { host: 'laptop', roots: ['/'] };
  it('B1 the worker whose root holds the workspace most specifically owns it', () => {
    const workers = [
      { host: 'a', roots: ['/srv'] },
      { host: 'b', roots: ['/srv/b'] },
    ];
    expect(chooseWorkspaceHost({ workspace: '/srv/b/repo', queue: 'q', workers, own })).toEqual({ host: 'b', from: 'workers' });
    expect(chooseWorkspaceHost({ workspace: '/srv/c', queue: 'q', workers, own })).toEqual({ host: 'a', from: 'workers' });
  });

  it('O2 no worker yet: this shell’s own settings decide (the worker `run` starts has them)', () => {
    expect(chooseWorkspaceHost({ workspace: '/home/me/repo', queue: 'q', workers: [], own })).toEqual({ host: 'laptop', from: 'own settings' });
    const refused = chooseWorkspaceHost({ workspace: '/home/me/repo', queue: 'q', workers: [], own: { host: 'laptop', roots: ['/srv'] } });
    expect(refused).toEqual({ problem: expect.stringContaining('no worker owns the workspace /home/me/repo') });
    expect((refused as { problem: string }).problem).toContain('REPLANNER_WORKSPACE_ROOTS=/home/me npx replanner worker');
  });

  it('O2 live workers none of which holds the workspace: refused with the fix, naming what they hold', () => {
    const r = chooseWorkspaceHost({ workspace: '/data/x', queue: 'q', workers: [{ host: 'a', roots: ['/srv/a'] }], own });
    expect(r).toEqual({ problem: expect.stringContaining('the workers on task queue "q" hold a: /srv/a') });
    expect((r as { problem: string }).problem).toContain('REPLANNER_WORKSPACE_ROOTS=/data npx replanner worker');
  });

  it('O2 two hosts claiming a workspace alike: this shell’s host if it is one, else refused as ambiguous', () => {
    const workers = [
      { host: 'a', roots: ['/'] },
      { host: 'b', roots: ['/'] },
    ];
    expect(chooseWorkspaceHost({ workspace: '/w', queue: 'q', workers, own: { host: 'b', roots: ['/'] } })).toEqual({ host: 'b', from: 'workers' });
    expect(chooseWorkspaceHost({ workspace: '/w', queue: 'q', workers, own })).toEqual({ problem: expect.stringContaining('hosts a, b alike') });
    // Two workers of one host are one host.
    expect(chooseWorkspaceHost({ workspace: '/w', queue: 'q', workers: [workers[0]!, workers[0]!], own })).toEqual({ host: 'a', from: 'workers' });
  });

  it('B1 a workspace reached through a symlink: its real path under a worker root finds the owner; the refusal names the path as given', () => {
    const workers = [{ host: 'a', roots: ['/private/tmp/ws'] }];
    const own = { host: 'me', roots: ['/srv'] };
    expect(chooseWorkspaceHostAt({ given: '/tmp/ws/x', real: '/private/tmp/ws/x' }, { queue: 'q', workers, own })).toEqual({
      host: 'a',
      from: 'workers',
    });
    expect(chooseWorkspaceHostAt({ given: '/private/tmp/ws/x', real: '/private/tmp/ws/x' }, { queue: 'q', workers, own })).toEqual({
      host: 'a',
      from: 'workers',
    });
    const refused = chooseWorkspaceHostAt({ given: '/tmp/other', real: '/private/tmp/other' }, { queue: 'q', workers, own });
    expect(refused).toEqual({ problem: expect.stringContaining('no worker owns the workspace /tmp/other:') });
    expect(chooseWorkspaceHostAt({ given: '/tmp/ws/x' }, { queue: 'q', workers, own })).toEqual({ problem: expect.stringContaining('/tmp/ws/x') });
  });

  it('B1 what runs on the workspace host: the worker step, the goal, the task judge, a re-decomposition with its log, the goal decision listing the workspace, and everything of a file instruction', () => {
    for (const a of ['workerStep', 'understandGoal', 'judgeTask'] as const) expect(touchesWorkspace(a)).toBe(true);
    for (const a of ['decomposeTasks', 'judgePlanQuality', 'planActions', 'reflect', 'decideReplan', 'replanTask', 'notification'] as const) {
      expect(touchesWorkspace(a)).toBe(false);
    }
    expect(touchesWorkspace('replanTask', { readsRunLog: true })).toBe(true);
    expect(touchesWorkspace('decideReplan', { listsWorkspace: true })).toBe(true);
    expect(touchesWorkspace('reflect', { instructionFile: true })).toBe(true);
    expect(touchesWorkspace('notification', { instructionFile: true })).toBe(false);
  });
});
