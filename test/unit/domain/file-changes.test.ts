// V3: the files a task changed, counted from its worker's tool calls.
import { fileChangesOf, renderFileChanges } from '../../../src/domain/file-changes';

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
