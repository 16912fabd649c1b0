// G1: a run with a branch of its own (`pullRequest.branch`, the CLI's --branch) on a real git
// checkout: one commit per task that ends DONE, in one workspace where tasks run side by side.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { statusQuery } from '../../src/workflows/messages';
import { FAST, failureOf, runOutcome, type Harness } from '../support/harness';
import { harnessForSuite, tempDirsForSuite } from '../support/suite-hooks';
import { fileTask, scriptScenario } from '../support/scenario';
import { startRun } from '../support/start-run';
import { commitsAfter, filesOf, gitIn, gitWorkspace } from '../support/git-repos';

let h: Harness;
harnessForSuite((started) => (h = started));
const tempDir = tempDirsForSuite();

const BRANCH = { pullRequest: { branch: true } };

describe('a run that commits its tasks on its own branch', () => {
  it('G1 one commit per DONE task on replanner/<runId> from the base, trailers readable by git, author the user, nothing of .replanner', async () => {
    // a and b run side by side (each waits on its worker), c after a; b also runs a command that writes a file.
    const b = { id: 'b', title: 'write b', files: { 'b.txt': 'B', 'docs/b.md': 'bee' }, command: ['sh', '-c', 'echo made > made-by-b.txt'] };
    scriptScenario(h.fake, { workerDelayMs: 150, tasks: [fileTask('a'), b, fileTask('c', ['a'])] });
    const ws = gitWorkspace(tempDir('ws'));
    const base = gitIn(ws, ['rev-parse', 'main']).trim();
    const { runId, handle } = await startRun(h, { instruction: 'write a, b and c', workspace: ws, options: FAST, config: BRANCH });
    const result = await runOutcome(handle);
    expect(result.status).toBe('DONE');

    const branch = `replanner/${runId}`;
    expect(gitIn(ws, ['symbolic-ref', '--short', 'HEAD']).trim()).toBe(branch);
    expect(gitIn(ws, ['rev-parse', 'main']).trim()).toBe(base); // the base is untouched
    const commits = commitsAfter(ws, 'main', branch);
    const done = result.tasks.filter((t) => t.state === 'DONE').map((t) => t.id);
    expect(commits.map((c) => c.taskTrailer).sort()).toEqual([...done].sort());
    expect(commits.every((c) => c.runTrailer === runId && c.parents.length === 1)).toBe(true);
    expect(commits[0]!.parents[0]).toBe(base);
    for (let i = 1; i < commits.length; i++) expect(commits[i]!.parents[0]).toBe(commits[i - 1]!.sha); // each builds on the last
    const byTask = Object.fromEntries(commits.map((c) => [c.taskTrailer, c]));
    expect(byTask.a!.subject).toBe('write a');
    expect(byTask.a!.body).toContain('all acceptance criteria of a are met'); // the judge's summary
    expect(byTask.a!.author).toBe('Ada Reviewer <ada@example.com>');
    // Each task's files are in its own commit; the command's file goes with the first commit made when no other task is busy.
    expect(filesOf(ws, byTask.a!.sha)).toEqual(['a.txt']);
    expect(filesOf(ws, byTask.b!.sha)).toEqual(expect.arrayContaining(['b.txt', 'docs/b.md']));
    expect(filesOf(ws, byTask.c!.sha)).toContain('c.txt');
    const everything = commits.flatMap((c) => filesOf(ws, c.sha));
    expect(everything.filter((f) => f.startsWith('.replanner'))).toEqual([]);
    expect(everything).toContain('made-by-b.txt');
    // The working tree is clean afterwards (the run's records are left out of git's view).
    expect(gitIn(ws, ['status', '--porcelain']).trim()).toBe('');
    // The run's state: each task's commit, as `status` shows it.
    const status = await handle.query(statusQuery);
    expect(status.git).toMatchObject({ branch, base: 'main', baseSha: base, head: commits[commits.length - 1]!.sha });
    expect(Object.fromEntries(status.git!.commits.map((c) => [c.taskId, c.sha]))).toEqual(
      Object.fromEntries(commits.map((c) => [c.taskTrailer, c.sha])),
    );
    expect(status.git!.pushed).toBeUndefined();
  });

  it('G1 with no git identity the author is Replanner <replanner@localhost>', async () => {
    const saved = { global: process.env.GIT_CONFIG_GLOBAL, nosystem: process.env.GIT_CONFIG_NOSYSTEM };
    const empty = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'replanner-gitcfg-')), 'config');
    fs.writeFileSync(empty, '');
    process.env.GIT_CONFIG_GLOBAL = empty;
    process.env.GIT_CONFIG_NOSYSTEM = '1';
    try {
      scriptScenario(h.fake, { tasks: [fileTask('a')] });
      const ws = gitWorkspace(tempDir('ws'), { identity: null });
      const { runId, handle } = await startRun(h, { instruction: 'write a', workspace: ws, options: FAST, config: BRANCH });
      expect((await runOutcome(handle)).status).toBe('DONE');
      expect(commitsAfter(ws, 'main', `replanner/${runId}`).map((c) => c.author)).toEqual(['Replanner <replanner@localhost>']);
    } finally {
      process.env.GIT_CONFIG_GLOBAL = saved.global;
      if (saved.global === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      if (saved.nosystem === undefined) delete process.env.GIT_CONFIG_NOSYSTEM;
    }
  });

  it('G1 a workspace with uncommitted changes is refused at once, naming the files; nothing is made', async () => {
    scriptScenario(h.fake, { tasks: [fileTask('a')] });
    const ws = gitWorkspace(tempDir('ws'));
    fs.writeFileSync(path.join(ws, 'README.md'), 'changed\n');
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'mine\n');
    const { handle } = await startRun(h, { instruction: 'write a', workspace: ws, options: FAST, config: BRANCH });
    const failure = await failureOf(handle);
    expect(failure).toContain('README.md');
    expect(failure).toContain('notes.txt');
    expect(gitIn(ws, ['branch', '--list', 'replanner/*']).trim()).toBe('');
    expect(h.fake.requests).toHaveLength(0);
  });
});
