import { parseConfig } from '../../../src/domain/config';
import {
  callPrint,
  DEFAULT_STUCK_CONFIG,
  EMPTY_STUCK_WINDOW,
  failureReason,
  feedStep,
  normaliseArgs,
  replyPrint,
  stuckNote,
  type StuckConfig,
  type StuckFinding,
  type StuckStepInput,
  type StuckWindow,
} from '../../../src/domain/stuck';
import { DEFAULT_PACEMAKER_CONFIG, initialPacemakerState, paceAfterIteration, stuckVitals } from '../../../src/domain/pacemaker';

/** One tool call: name, arguments (object or raw text), ok, output. */
type Call = [string, Record<string, unknown> | string, boolean, string];

const step = (calls: Call[], opts: { changedFiles?: boolean; tokens?: number } = {}): StuckStepInput => ({
  prints: calls.map(([n, a, ok, out]) => callPrint(n, typeof a === 'string' ? a : JSON.stringify(a), ok, out)),
  toolCalls: calls.length,
  changedFiles: opts.changedFiles ?? false,
  tokens: opts.tokens ?? 100,
});
const talk = (text: string, tokens = 100): StuckStepInput => ({ toolCalls: 0, reply: replyPrint(text), changedFiles: false, tokens });

/** Feeds the steps in order; returns the 1-based step at which the detector fired and its finding. */
function run(steps: StuckStepInput[], config: StuckConfig = DEFAULT_STUCK_CONFIG): { at?: number; finding?: StuckFinding; window: StuckWindow } {
  let w: StuckWindow = EMPTY_STUCK_WINDOW;
  for (const [i, s] of steps.entries()) {
    const r = feedStep(w, s, config);
    w = r.window;
    if (r.finding) return { at: i + 1, finding: r.finding, window: w };
  }
  return { window: w };
}

const missing: Call = ['list_dir', { path: 'output.txt' }, false, 'not found: output.txt'];
const write = (path: string, content: string): Call => ['write_file', { path, content }, true, `wrote ${content.length} bytes to ${path}`];
const read = (path: string, content: string): Call => ['read_file', { path }, true, content];
const tests = (out: string, ok = false): Call => ['run_command', { argv: ['npm', 'test'] }, ok, `exit code ${ok ? 0 : 1}\n${out}`];

describe('P9 fingerprints', () => {
  it('P9 arguments are normalised: whitespace, HTML-escaped quotes, key order, ./ prefix', () => {
    const base = normaliseArgs('{"path":"output.txt"}');
    expect(normaliseArgs('{ "path" : "  output.txt " }')).toBe(base);
    expect(normaliseArgs('{"path":"output.txt&#34;"}')).toBe(base);
    expect(normaliseArgs('{"path":"&quot;output.txt&quot;"}')).toBe(base);
    expect(normaliseArgs('{"path":"./output.txt"}')).toBe(base);
    expect(normaliseArgs('{"b":1,"a":"x"}')).toBe(normaliseArgs('{"a":"x","b":1}'));
    expect(normaliseArgs('{"path":"output2.txt"}')).not.toBe(base);
    // Raw text that is not JSON is compared normalised too.
    expect(normaliseArgs('{"path": "out')).toBe(normaliseArgs('{"path":  "out'));
  });

  it('P9 a call print is small: hashes, a label, the first line of the answer', () => {
    const p = callPrint('list_dir', '{"path":"output.txt&#34;"}', false, 'not found: output.txt\nmore\nlines');
    expect(p).toEqual({
      call: expect.stringMatching(/^[0-9a-f]{8}$/),
      out: expect.stringMatching(/^[0-9a-f]{8}$/),
      ok: false,
      label: 'list_dir output.txt',
      said: 'not found: output.txt',
    });
    expect(JSON.stringify(callPrint('run_command', JSON.stringify({ argv: ['x'.repeat(5000)] }), true, 'y'.repeat(50_000))).length).toBeLessThan(300);
    expect(callPrint('run_command', '{"argv":["npm","test"]}', true, 'exit code 0').label).toBe('run_command npm test');
  });

  it('P9 a failure that echoes the escaped argument is the same failure; the tool name prefix is dropped', () => {
    const a = callPrint('list_dir', '{"path":"output.txt"}', false, 'list_dir: not found: output.txt');
    const b = callPrint('list_dir', '{"path":"output.txt&#34;"}', false, 'list_dir: not found: output.txt&#34;');
    const c = callPrint('list_dir', '{"path":" output.txt"}', false, 'list_dir: not found:  output.txt');
    const same = ({ call, out, ok, label }: typeof a) => ({ call, out, ok, label });
    expect(same(b)).toEqual(same(a));
    expect(same(c)).toEqual(same(a));
    expect(a.said).toBe('not found: output.txt');
    expect(failureReason(a.said)).toBe('not found');
  });

  it('P9 durations do not make a rerun look new; failure reasons in a few words', () => {
    expect(callPrint('run_command', '{}', false, 'exit code 1\nRan 3 tests in 0.012s').out).toBe(
      callPrint('run_command', '{}', false, 'exit code 1\nRan 3 tests in 0.250s').out,
    );
    expect(failureReason('not found: output.txt')).toBe('not found');
    expect(failureReason('exit code 2')).toBe('exit code 2');
    expect(failureReason('')).toBe('no output');
  });
});

describe('P9 the patterns fire at their thresholds', () => {
  it('P9 same call, same failure: fires at the 3rd (default), names the call and the reason', () => {
    const r = run([
      step([missing]),
      step([missing]),
      step([['list_dir', '{"path":"output.txt&#34;"}', false, 'not found: output.txt']]),
      step([missing]),
    ]);
    expect(r.at).toBe(3);
    expect(r.finding).toMatchObject({ pattern: 'same_failure', count: 3, wastedSteps: 2, wastedTokens: 200 });
    expect(r.finding!.summary).toBe('list_dir output.txt failed (not found) 3 times in a row');
    expect(r.finding!.answers).toEqual(['list_dir output.txt → not found: output.txt']);
    expect(stuckNote(r.finding!)).toBe('stuck: list_dir output.txt failed (not found) 3 times in a row (2 wasted steps, 200 tokens)');
  });

  it('P9 same call, same result: fires at the 4th, not the 3rd', () => {
    const r = run([1, 2, 3, 4].map(() => step([read('a.txt', 'hello')])));
    expect(r.at).toBe(4);
    expect(r.finding).toMatchObject({ pattern: 'same_result', count: 4, wastedSteps: 3 });
    expect(r.finding!.summary).toBe('read_file a.txt returned the same result 4 times in a row');
  });

  it('P9 A-B-A-B alternation over 6 calls', () => {
    const a = read('a.txt', 'A');
    const b: Call = ['list_dir', { path: '.' }, true, 'a.txt\nb.txt'];
    const r = run([a, b, a, b, a, b, a].map((c) => step([c])));
    expect(r.at).toBe(6);
    expect(r.finding).toMatchObject({ pattern: 'alternation', count: 6, wastedSteps: 4 });
    expect(r.finding!.summary).toBe('alternated between read_file a.txt and list_dir . 6 times with the same results');
  });

  it('P9 failing calls in a row whatever their arguments: fires at the 5th', () => {
    const calls: Call[] = ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt', 'f.txt'].map((p) => ['read_file', { path: p }, false, `not found: ${p}`]);
    const r = run(calls.map((c) => step([c])));
    expect(r.at).toBe(5);
    expect(r.finding).toMatchObject({ pattern: 'failing_calls', count: 5, wastedSteps: 4 });
    expect(r.finding!.summary).toBe(
      '5 tool calls failed in a row: read_file a.txt (not found), read_file b.txt (not found), read_file c.txt (not found), …',
    );
  });

  it('P9 replies without a tool call that say nothing new: fires at the 3rd', () => {
    const r = run([talk('I will now create the file.'), talk('I will now create the file!'), talk('i will NOW create the file')]);
    expect(r.at).toBe(3);
    expect(r.finding).toMatchObject({ pattern: 'repeated_messages', count: 3, wastedSteps: 2, wastedTokens: 200 });
  });

  it('P9 steps with no file change and nothing new: fires at idle_steps (8)', () => {
    const a = read('a.txt', 'A');
    const b = read('b.txt', 'B');
    const c = read('c.txt', 'C');
    // a, b, c are new; then the same three again and again (no pattern of calls in a row).
    const seq = [a, b, c, a, c, b, a, c, b, a, c, b].map((x) => step([x]));
    const r = run(seq);
    expect(r.at).toBe(3 + 8);
    expect(r.finding).toMatchObject({ pattern: 'idle_steps', count: 8, wastedSteps: 8, wastedTokens: 800 });
  });

  it('P9 thresholds come from config (pacemaker.stuck), with documented defaults', () => {
    expect(DEFAULT_STUCK_CONFIG).toEqual({
      enabled: true,
      same_failure: 3,
      same_result: 4,
      alternation: 6,
      failing_calls: 5,
      repeated_messages: 3,
      idle_steps: 8,
      consult: true,
    });
    const cfg = parseConfig({ pacemaker: { stuck: { same_failure: 2 } } }).pacemaker.stuck;
    expect(run([step([missing]), step([missing])], cfg).at).toBe(2);
    expect(
      run(
        [1, 2, 3].map(() => step([missing])),
        { ...cfg, enabled: false },
      ).at,
    ).toBeUndefined();
    expect(() => parseConfig({ pacemaker: { stuck: { same_failure: 1 } } })).toThrow(/pacemaker\.stuck\.same_failure/);
    expect(() => parseConfig({ pacemaker: { stuck: { typo: 1 } } })).toThrow(/pacemaker\.stuck\.typo/);
  });

  it('P9 after firing the window starts afresh: the next repeat needs the full count again', () => {
    const r = run([1, 2, 3].map(() => step([missing])));
    let w = r.window;
    for (const n of [1, 2]) {
      const f = feedStep(w, step([missing]), DEFAULT_STUCK_CONFIG);
      expect(f.finding).toBeUndefined();
      w = f.window;
      expect(w.calls).toHaveLength(n);
    }
    expect(feedStep(w, step([missing]), DEFAULT_STUCK_CONFIG).finding?.pattern).toBe('same_failure');
  });

  it('P9 a step report from before the detector (no prints) is skipped, not counted', () => {
    const old: StuckStepInput = { toolCalls: 1, changedFiles: false, tokens: 5 };
    const r = run([step([missing]), old, step([missing]), old, step([missing])]);
    expect(r.at).toBe(5);
  });
});

describe('P9 near misses that must not fire', () => {
  it('P9 edit → run tests → edit, making progress (the failure changes, files change)', () => {
    const seq: StuckStepInput[] = [];
    for (let i = 0; i < 10; i += 1) {
      seq.push(
        step([['edit_file', { path: 'src/a.ts', old_string: `v${i}`, new_string: `v${i + 1}` }, true, 'edited src/a.ts']], { changedFiles: true }),
      );
      seq.push(step([tests(`${10 - i} tests failing`)]));
    }
    expect(run(seq).finding).toBeUndefined();
  });

  it('P9 edit → run tests, the same failure each time but a different edit: no alternation, no idle', () => {
    const seq: StuckStepInput[] = [];
    for (let i = 0; i < 8; i += 1) {
      seq.push(
        step([['edit_file', { path: 'src/a.ts', old_string: `x${i}`, new_string: `x${i + 1}` }, true, 'edited src/a.ts']], { changedFiles: true }),
      );
      seq.push(step([tests('1 test failing')]));
    }
    expect(run(seq).finding).toBeUndefined();
  });

  it('P9 re-reading a file after it changed', () => {
    const r = run([
      step([read('a.txt', 'old')]),
      step([write('a.txt', 'new')], { changedFiles: true }),
      step([read('a.txt', 'new')]),
      step([write('a.txt', 'newer')], { changedFiles: true }),
      step([read('a.txt', 'newer')]),
      step([read('a.txt', 'newer')]),
    ]);
    expect(r.finding).toBeUndefined();
  });

  it('P9 two failures of the same call, then success; different replies; one final answer', () => {
    expect(
      run([step([missing]), step([missing]), step([write('output.txt', 'x')], { changedFiles: true }), step([missing]), step([missing])]).finding,
    ).toBeUndefined();
    expect(
      run([talk('Created hello.txt.'), talk('The file hello.txt now contains hello.'), talk('Verified with cat: hello.')]).finding,
    ).toBeUndefined();
    // Replies with tool calls between them are not "in a row".
    expect(run([talk('done'), step([read('a', 'A')]), talk('done'), step([read('b', 'B')]), talk('done')]).finding).toBeUndefined();
  });

  it('P9 four failing calls then a success: the failing run is broken', () => {
    const calls: Call[] = ['a', 'b', 'c', 'd'].map((p) => ['read_file', { path: p }, false, `not found: ${p}`]);
    expect(run([...calls.map((c) => step([c])), step([read('e', 'E')]), ...calls.map((c) => step([c]))]).finding).toBeUndefined();
  });
});

describe('P9 → P2 / P7: the pacemaker takes a finding in', () => {
  it('P9 P2 focus drops on repetition, stamina on wasted steps', () => {
    const v = { mood: 0.7, focus: 0.9, stamina: 0.8 };
    expect(stuckVitals(v, { pattern: 'same_failure', wastedSteps: 6 }, 24)).toEqual({
      mood: 0.7,
      focus: expect.closeTo(0.5, 10),
      stamina: expect.closeTo(0.55, 10),
    });
    expect(stuckVitals(v, { pattern: 'idle_steps', wastedSteps: 48 }, 24)).toEqual({ mood: 0.7, focus: expect.closeTo(0.7, 10), stamina: 0 });
  });

  it('P9 P7 a stuck iteration opens the no-progress consultation at once, with the note and the seed choices', () => {
    const state = initialPacemakerState(8, { mood: 0.7, focus: 1, stamina: 1 });
    const s = { ...state, iteration: 1 };
    const note = 'stuck: list_dir output.txt failed (not found) 3 times in a row (2 wasted steps, 200 tokens)';
    const step1 = paceAfterIteration(s, DEFAULT_PACEMAKER_CONFIG, note);
    expect(step1.action).toBe('consult');
    if (step1.action !== 'consult') return;
    expect(step1.intervention.kind).toBe('no_progress');
    expect(step1.intervention.trigger).toBe(note);
    expect(step1.intervention.message.en).toContain(note);
    expect(step1.intervention.choices.map((c) => c.key)).toEqual(['stop', 'guidance', 'continue', 'different_approach']);
    // Without a note: the usual rules (min_iteration 2: nothing yet); with consult off: the same.
    expect(paceAfterIteration(s, DEFAULT_PACEMAKER_CONFIG).action).toBe('continue');
    expect(paceAfterIteration(s, { ...DEFAULT_PACEMAKER_CONFIG, stuck: { ...DEFAULT_STUCK_CONFIG, consult: false } }, note).action).toBe('continue');
    // At the limit, the limit's consultation comes first.
    const atLimit = paceAfterIteration({ ...s, iteration: 8 }, DEFAULT_PACEMAKER_CONFIG, note);
    expect(atLimit.action === 'consult' && atLimit.intervention.kind).toBe('too_many_attempts');
  });
});
