// V3 `replanner diff <runId> [taskId]`: the files each task changed, from the worker's transcripts;
// in a git repository with git's diff against HEAD, in a plain directory the file list with line counts.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../src/client/cli';
import { cli } from '../support/cli';
import { uniqueId, type Harness } from '../support/harness';
import { harnessForCli } from '../support/suite-hooks';
import { scriptScenario } from '../support/scenario';

let h: Harness;
harnessForCli((x) => (h = x));
beforeEach(() => h.fake.reset());

const git = (ws: string, ...args: string[]) =>
  execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' });

describe('replanner diff and the files in status', () => {
  it("V3 a git workspace: each task lists its files with +added −removed and git's diff against HEAD (a new file as new)", async () => {
    const ws = h.workspace({ 'notes.txt': 'old line\n' });
    git(ws, 'init', '-q');
    git(ws, 'add', 'notes.txt');
    git(ws, 'commit', '-qm', 'start');
    scriptScenario(h.fake, {
      tasks: [
        { id: 'notes', title: 'rewrite the notes', files: { 'notes.txt': 'new line\nsecond line\n' } },
        { id: 'readme', title: 'write a readme', dependencies: ['notes'], files: { 'README.md': '# Title\n' } },
      ],
    });
    const id = uniqueId('diff');
    expect((await cli('run', 'rewrite the notes and add a readme', '--workspace', ws, '--wait', '--id', id)).code).toBe(0);

    const all = await cli('diff', id);
    expect(all.code).toBe(EXIT.OK);
    expect(all.out).toContain('Task notes: 1 file(s) written or edited by the worker');
    expect(all.out).toContain('  +2 −0  notes.txt (1 write)');
    expect(all.out).toContain('-old line');
    expect(all.out).toContain('+new line');
    expect(all.out).toContain('Task readme: 1 file(s)');
    expect(all.out).toMatch(/new file mode[\s\S]*\+# Title/);

    const one = await cli('diff', id, 'readme', '--json');
    expect(one.code).toBe(EXIT.OK);
    const view = JSON.parse(one.out);
    expect(view.tasks.map((t: { taskId: string }) => t.taskId)).toEqual(['readme']);
    expect(view.tasks[0].files).toEqual([{ path: 'README.md', added: 1, removed: 0, writes: 1, edits: 0 }]);

    // status lists them under each task too.
    const status = await cli('status', id);
    expect(status.out).toContain('[x] notes: rewrite the notes');
    expect(status.out).toContain('      files: notes.txt +2 −0');
    expect(status.out).toContain('      files: README.md +1 −0');
    expect(JSON.parse((await cli('status', id, '--json')).out).files.notes).toEqual([
      { path: 'notes.txt', added: 2, removed: 0, writes: 1, edits: 0 },
    ]);

    const unknown = await cli('diff', id, 'nope');
    expect(unknown.code).toBe(EXIT.USAGE);
    expect(unknown.err).toContain('run ' + id + ' has no task "nope" that worked (tasks: notes, readme)');
  });

  it('V3 a plain directory: the file list with line counts, no git diff', async () => {
    const ws = h.workspace();
    scriptScenario(h.fake, { tasks: [{ id: 'two', title: 'write two files', files: { 'a.txt': '1\n2\n3\n', 'b/c.txt': 'x' } }] });
    const id = uniqueId('diff');
    expect((await cli('run', 'write two files', '--workspace', ws, '--wait', '--id', id)).code).toBe(0);
    expect(fs.existsSync(path.join(ws, '.git'))).toBe(false);
    const r = await cli('diff', id);
    expect(r.code).toBe(EXIT.OK);
    expect(r.out.trimEnd().split('\n')).toEqual([
      'Task two: 2 file(s) written or edited by the worker',
      '  +3 −0  a.txt (1 write)',
      '  +1 −0  b/c.txt (1 write)',
    ]);
  });
});
