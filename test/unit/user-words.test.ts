// Issue 28, words for users: the README's user part (everything before its "## For developers"
// heading) and every `--help` of the CLI speak plainly: no requirement code (X12, O3, V2, …) and no
// reference to the design documents ("seed 004 §12.1", SPEC, DESIGN). Developer material lives in
// docs/. The README's YAML examples are what the config parser accepts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { parseDocument } from 'yaml';
import { commandPaths, main } from '../../src/client/cli';
import { parseConfig } from '../../src/domain/config';
import { ID_PATTERN, NOT_IDS } from '../../scripts/figures-ids';

const README = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
/** Where the README's user part ends: developer material follows (and links to docs/). */
const DEVELOPER_HEADING = '\n## For developers\n';

/** What in `text` speaks in codes: requirement IDs and references to the design documents. */
export function codesIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(ID_PATTERN)) if (!NOT_IDS.has(m[1]!)) found.push(m[1]!);
  for (const m of text.matchAll(/\bseeds? \d{3}\b|§\s*\d+(?:\.\d+)*|\b(?:SPEC|DESIGN)\b/g)) found.push(m[0]);
  return found;
}

async function help(argv: string[]): Promise<string> {
  let out = '';
  let err = '';
  const code = await main([...argv, '--help'], { write: (s: string) => (out += s) }, { write: (s: string) => (err += s) }, new PassThrough());
  expect({ argv, code, err }).toEqual({ argv, code: 0, err: '' });
  return out;
}

describe('words for users', () => {
  it('the detector finds requirement codes and design-document references, and nothing in plain words', () => {
    expect(codesIn('config (X12), a budget (O3), watch (V2), doctor (SPEC M2), R2.3')).toEqual(['X12', 'O3', 'V2', 'M2', 'R2.3', 'SPEC']);
    expect(codesIn('the keys of seed 004 §12.1, as seeds 002 say')).toEqual(['seed 004', '§12.1', 'seeds 002']);
    expect(codesIn('exit 2 · q1 · task t2 · UTF-8 · V8 · 0xB1 · P50 · sha256 · 128 activities')).toEqual([]);
  });

  it("the README's user part has no requirement code and no design-document reference", () => {
    const end = README.indexOf(DEVELOPER_HEADING);
    expect(end).toBeGreaterThan(0);
    const user = README.slice(0, end);
    // The user part is the README: the developer part is a few links.
    expect(user.length / README.length).toBeGreaterThan(0.9);
    const lines = user.split('\n');
    const coded = lines.map((l, i) => ({ line: i + 1, codes: codesIn(l), text: l })).filter((x) => x.codes.length);
    expect(coded).toEqual([]);
  });

  it('`replanner --help` and every `replanner <command> --help` have none either', async () => {
    const paths = await commandPaths();
    // Every command the program has, subcommands too: a new one is checked without being listed here.
    expect(paths.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['run', 'watch', 'worker stop', 'scripted-model', 'temporal', 'doctor']));
    for (const argv of [[], ...paths]) {
      const text = await help(argv);
      expect({ argv, codes: codesIn(text) }).toEqual({ argv, codes: [] });
    }
  });

  it('V8 docs/reference.md is a user document too: no requirement code, no design-document or issue citation, no "rung"', () => {
    const reference = fs.readFileSync(path.resolve(__dirname, '../../docs/reference.md'), 'utf8');
    const cited = reference
      .split('\n')
      .map((text, i) => ({
        line: i + 1,
        codes: [...codesIn(text), ...(text.match(/\b(?:in|see|from|since|as of) issues? \d+\b|(?<!`)\brungs?\b(?!`)|\bsession \d+\b/gi) ?? [])],
      }))
      .filter((x) => x.codes.length);
    expect(cited).toEqual([]);
  });

  it('V8 `--help` says in plain words what a task asking how to go on is; the README says what Duck Pacemaker is', async () => {
    const text = [await help([]), await help(['consult'])].join('\n');
    expect(text).not.toMatch(/consultation/i);
    expect(text).toContain('answer a task that asks how to go on');
    const end = README.indexOf(DEVELOPER_HEADING);
    expect(README.slice(0, end)).toMatch(/Each task has a pacer, called Duck Pacemaker \(🦆\): it sets how\s+many attempts/);
  });

  it("the README's configuration examples are what the config parser accepts", () => {
    const blocks = [...README.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const yaml of blocks) {
      const doc = parseDocument(yaml);
      expect(doc.errors).toEqual([]);
      expect(() => parseConfig(doc.toJS())).not.toThrow();
    }
  });
});
