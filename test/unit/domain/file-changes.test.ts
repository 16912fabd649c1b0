// V3: the files a task changed, counted from its worker's tool calls.
import { addFileChanges, fileChangesOf, MAX_LISTED_FILES, renderFileChanges, stepFileChanges } from '../../../src/domain/file-changes';

const call = (name: string, args: Record<string, unknown>, ok = true) => ({ name, arguments: JSON.stringify(args), ok });

describe('V3 fileChangesOf', () => {
  it('V3 write_file adds its lines, edit_file removes old_string lines and adds new_string lines; per file, in first-touched order', () => {
    const changes = fileChangesOf([
      call('write_file', { path: 'src/a.ts', content: 'one\ntwo\nthree\n' }),
      call('read_file', { path: 'src/a.ts' }),
      call('write_file', { path: './b.md', content: 'doc' }),
      call('edit_file', { path: 'src/a.ts', old_string: 'two\n', new_string: 'TWO\nand more\n' }),
      call('run_command', { argv: ['npm', 'test'] }),
    ]);
    expect(changes).toEqual([
      { path: 'src/a.ts', added: 5, removed: 1, writes: 1, edits: 1 },
      { path: 'b.md', added: 1, removed: 0, writes: 1, edits: 0 },
    ]);
    expect(renderFileChanges(changes)).toEqual(['  +5 −1  src/a.ts (1 write, 1 edit)', '  +1 −0  b.md (1 write)']);
  });

  it('V3 failed calls, unparseable arguments and calls without a path change nothing', () => {
    expect(
      fileChangesOf([
        call('write_file', { path: 'x.txt', content: 'x' }, false),
        { name: 'write_file', arguments: '{not json', ok: true },
        call('edit_file', { old_string: 'a', new_string: 'b' }),
      ]),
    ).toEqual([]);
    expect(renderFileChanges([])).toEqual(['  (no file written or edited by the worker)']);
  });
});

describe('V3 a task’s running total of changed files (its current details)', () => {
  it('V3 addFileChanges sums each path’s lines over the steps, in first-touched order', () => {
    const s1 = stepFileChanges([call('write_file', { path: 'a.ts', content: 'x\ny\n' }), call('write_file', { path: 'b.ts', content: 'z' })]);
    const s2 = stepFileChanges([
      call('edit_file', { path: 'a.ts', old_string: 'y\n', new_string: 'Y\nW\n' }),
      call('write_file', { path: 'c.ts', content: '' }, false),
    ]);
    let total = addFileChanges({ files: [], unlisted: 0 }, s1.files, s1.more);
    total = addFileChanges(total, s2.files, s2.more);
    expect(total).toEqual({
      files: [
        { path: 'a.ts', added: 4, removed: 1, writes: 1, edits: 1 },
        { path: 'b.ts', added: 1, removed: 0, writes: 1, edits: 0 },
      ],
      unlisted: 0,
    });
    // The step's own lists are not changed by the total.
    expect(s1.files[0]).toEqual({ path: 'a.ts', added: 2, removed: 0, writes: 1, edits: 0 });
  });

  it('V3 bounded: a step lists at most MAX_LISTED_FILES files with clipped paths, the total counts the rest as unlisted', () => {
    const many = Array.from({ length: MAX_LISTED_FILES + 5 }, (_, i) => call('write_file', { path: `f${i}-${'p'.repeat(300)}`, content: 'x' }));
    const step = stepFileChanges(many);
    expect(step.files).toHaveLength(MAX_LISTED_FILES);
    expect(step.more).toBe(5);
    expect(Math.max(...step.files.map((f) => f.path.length))).toBeLessThanOrEqual(200);
    let total = addFileChanges({ files: [], unlisted: 0 }, step.files, step.more);
    expect(total.files).toHaveLength(MAX_LISTED_FILES);
    expect(total.unlisted).toBe(5);
    // A new path past the listed ones is counted; a listed path still sums.
    total = addFileChanges(total, [
      { path: 'new.ts', added: 1, removed: 0, writes: 1, edits: 0 },
      { ...step.files[0]!, added: 2 },
    ]);
    expect(total.unlisted).toBe(6);
    expect(total.files[0]!.added).toBe(3);
  });
});
