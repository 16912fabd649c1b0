// C1 / C2 / C5: the instruction and the Coverage criterion in every prompt (src/llm/prompts/instruction.ts);
// X4: the execution progress a decision keeps (src/domain/replan/prompt-context.ts) and how its prompt shows it.
import { emptyProgress, recordActionResult, remainingForPrompt } from '../../src/domain/replan/prompt-context';
import {
  COVERAGE_CRITERION,
  EMPTY_INSTRUCTION_MARKER,
  estimateTokens,
  instructionForPrompt,
  replanningContext,
  userInstructionSection,
} from '../../src/llm/prompts/instruction';
import { progressForPrompt } from '../../src/llm/prompts/replan';

describe('C5 instruction in prompts', () => {
  it.each<[string, string]>([
    ['empty', ''],
    ['whitespace only', '  \n\t '],
  ])('C5 an %s instruction becomes an explicit marker, never dropped', (_n, text) => {
    expect(instructionForPrompt(text)).toBe(EMPTY_INSTRUCTION_MARKER);
    expect(userInstructionSection(text)).toBe(`USER INSTRUCTION:\n${EMPTY_INSTRUCTION_MARKER}`);
  });

  it('C5 a short instruction is kept verbatim', () => {
    expect(instructionForPrompt('add input validation to the signup API')).toBe('add input validation to the signup API');
  });

  it('C5 a Japanese instruction within budget is kept verbatim', () => {
    const ja = '認証機能とバリデーションを実装して';
    expect(instructionForPrompt(ja)).toBe(ja);
  });

  it.each<[string, string, number]>([
    ['ASCII', 'a'.repeat(4000), 4000 / 4],
    ['Japanese', 'あ'.repeat(100), 100],
    ['mixed', 'abcd認証', 3],
  ])('C5 token estimate for %s text', (_n, text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it('C5 Japanese and very long instructions are kept within the token budget', () => {
    const ja = '最初の要件：認証機能。' + '詳細な説明です。'.repeat(2000) + '最後の要件：テストを書くこと。';
    const en = 'FIRST REQUIREMENT. ' + 'lorem ipsum dolor sit amet '.repeat(5000) + 'LAST REQUIREMENT.';
    for (const [text, budget] of [
      [ja, 2000],
      [en, 2000],
      [ja, 300],
      [en, 100],
    ] as const) {
      const out = instructionForPrompt(text, budget);
      expect(estimateTokens(out)).toBeLessThanOrEqual(budget);
      expect(out).toMatch(/\[truncated \d+ chars\]/);
      // head and tail are both kept
      expect(out.startsWith(text.slice(0, 5))).toBe(true);
      expect(out.endsWith(text.slice(-5))).toBe(true);
      // the marker's count is exact (in characters / code points)
      const n = Number(/\[truncated (\d+) chars\]/.exec(out)![1]);
      const kept = Array.from(out.replace(/\n…\[truncated \d+ chars\]…\n/, '')).length;
      expect(kept + n).toBe(Array.from(text).length);
    }
  });

  it('C5 truncation never splits a surrogate pair (emoji, rare kanji)', () => {
    const text = '𠮷😀'.repeat(3000);
    const out = instructionForPrompt(text, 500);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(estimateTokens(out)).toBeLessThanOrEqual(500);
  });

  it('C5 a tiny budget still yields the marker (the instruction is never silently empty)', () => {
    expect(instructionForPrompt('x'.repeat(1000), 3)).toMatch(/truncated 1000 chars/);
  });
});

describe('C2/C4 coverage', () => {
  it('C2 the replanning context carries the instruction first and the Coverage criterion', () => {
    const ctx = replanningContext('implement auth and validation');
    expect(ctx.startsWith('USER INSTRUCTION:\nimplement auth and validation')).toBe(true);
    expect(ctx).toContain(COVERAGE_CRITERION);
    expect(COVERAGE_CRITERION).toContain('Do all tasks together fully satisfy the original instruction?');
    expect(COVERAGE_CRITERION).toContain('[Coverage]');
  });

  it('C2 the replanning context with an empty instruction still says so', () => {
    expect(replanningContext('')).toContain(EMPTY_INSTRUCTION_MARKER);
  });
});

describe('X4 execution progress in the execution prompt', () => {
  it('X4 progress carries completed/total, error count, consecutive errors and remaining actions', () => {
    let p = emptyProgress(3, ['write code', 'run tests', 'commit']);
    p = recordActionResult(p, true);
    p = recordActionResult(p, false);
    p = recordActionResult(p, false);
    expect(p).toMatchObject({ completed: 1, errorCount: 2, consecutiveErrors: 2, remaining: ['run tests', 'commit'] });
    const text = progressForPrompt(p);
    expect(text).toContain('Completed actions: 1/3');
    expect(text).toContain('Error count: 2');
    expect(text).toContain('Consecutive errors: 2');
    expect(text).toContain('- run tests');
    p = recordActionResult(p, true);
    expect(p.consecutiveErrors).toBe(0);
  });
});

describe('X4 remaining actions kept for a decision (issue 11: history not quadratic in the plan)', () => {
  const all = Array.from({ length: 200 }, (_, i) => `t${i}: task ${i}`);

  it('X4 a short list is kept whole; a long one is the first 19 and "… N more", which the prompt shows as is', () => {
    expect(remainingForPrompt(all.slice(0, 20))).toEqual(all.slice(0, 20));
    const kept = remainingForPrompt(all);
    expect(kept).toHaveLength(20);
    expect(kept.slice(0, 19)).toEqual(all.slice(0, 19));
    expect(kept[19]).toBe('… 181 more');
    const prompt = progressForPrompt({ ...emptyProgress(200), remaining: kept });
    expect(prompt).toContain('- t18: task 18\n- … 181 more');
    expect(prompt).not.toContain('t19: task 19');
    // The same lines the whole list gave before, except the count line's wording.
    expect(progressForPrompt({ ...emptyProgress(200), remaining: all })).toContain('- t19: task 19\n- … 180 more');
  });
});
