// The one text-clipping module (src/domain/text.ts): each clip keeps the exact form it had where it
// came from (texts already in histories, memos and tests read the same).
import {
  clip,
  clipAfter,
  clipCounted,
  clipJsonUtf8,
  clipLine,
  clipLineAfter,
  clipMiddle,
  clipOutput,
  clipUtf8,
  joinOutputEnds,
  jsonBytes,
  oneLine,
  utf8Bytes,
} from '../../../src/domain/text';

describe('text clipping', () => {
  it('clip keeps a text within max characters, the ellipsis included; clipAfter adds it after max', () => {
    expect(clip('abcdef', 6)).toBe('abcdef');
    expect(clip('abcdefg', 6)).toBe('abcde…');
    expect(clip('a'.repeat(70), 60, '...')).toBe(`${'a'.repeat(57)}...`);
    expect(clipAfter('abcdef', 6)).toBe('abcdef');
    expect(clipAfter('abcdefg', 6)).toBe('abcdef…');
    expect(clipAfter('abcdefg', 3, ' …')).toBe('abc …');
  });

  it('one line: whitespace runs become one space, then clipped', () => {
    expect(oneLine('  a\n\n b\tc  ')).toBe('a b c');
    expect(clipLine('a\n  b c d e', 6)).toBe('a b c…');
    expect(clipLineAfter('a\n  b c d e', 5)).toBe('a b c…');
  });

  it('clipCounted counts code points and says how many were cut, never splitting a surrogate pair', () => {
    expect(clipCounted('abc', 3)).toBe('abc');
    expect(clipCounted('😀😀😀😀', 2)).toBe('😀😀 …[truncated 2 chars]');
  });

  it('clipMiddle keeps head and tail around the count of cut characters', () => {
    const text = `${'h'.repeat(50)}${'m'.repeat(100)}${'t'.repeat(50)}`;
    expect(clipMiddle(text, 140)).toBe(`${'h'.repeat(50)}\n[… 100 chars cut …]\n${'t'.repeat(50)}`);
    expect(clipMiddle('short', 140)).toBe('short');
  });

  it('tool output: the head with what was dropped, or head and tail of a stream', () => {
    expect(clipOutput('abcdef', 4)).toBe('abcd\n[truncated: 2 more chars]');
    expect(joinOutputEnds('abcdef', 'uvwxyz', 26, 5)).toBe('abc\n[truncated: 21 chars omitted]\nyz');
    expect(joinOutputEnds('abc', 'abc', 3, 5)).toBe('abc');
  });

  it('UTF-8 bytes: the text, or its JSON, within a byte limit with "…", never splitting a character', () => {
    expect(utf8Bytes('aé日😀')).toBe(1 + 2 + 3 + 4);
    expect(clipUtf8('日本語日本語', 10)).toBe('日本…');
    expect(jsonBytes('a"b')).toBe(6);
    expect(clipJsonUtf8('a"b"c"d', 9)).toBe('a"b…');
    expect(jsonBytes(clipJsonUtf8('日本語'.repeat(50), 40))).toBeLessThanOrEqual(40);
  });
});
