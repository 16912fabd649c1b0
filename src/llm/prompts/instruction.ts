// The pieces every planning and replanning prompt opens with: the user's
// original instruction (never dropped, bounded by a token budget) and, for a replan, the Coverage
// criterion (a replanned plan must still cover the whole instruction).

export const EMPTY_INSTRUCTION_MARKER = '(empty instruction)';

/** CJK scripts (and full-width forms): about one token per character. */
const CJK =
  /[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3200-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\u{20000}-\u{3134f}]/u;

/** Token cost of one code point: ASCII 1/4, CJK 1, other astral (emoji…) 2, other non-ASCII 1/2. */
function charCost(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x80) return 0.25;
  if (CJK.test(ch)) return 1;
  return cp > 0xffff ? 2 : 0.5;
}

/** Token estimate — ASCII chars/4, one token per CJK character (see charCost). */
export function estimateTokens(text: string): number {
  let cost = 0;
  for (const ch of text) cost += charCost(ch);
  return Math.ceil(cost);
}

/**
 * The user's instruction as it goes into a prompt. Never dropped: an empty one becomes
 * "(empty instruction)"; one over `maxTokens` keeps its head (~70%) and tail (~30%) around a
 * "[truncated N chars]" marker, the whole staying within the budget. Characters are code points,
 * so Japanese and emoji are never split.
 */
export function instructionForPrompt(instruction: string, maxTokens = 2000): string {
  if (instruction.trim() === '') return EMPTY_INSTRUCTION_MARKER;
  if (estimateTokens(instruction) <= maxTokens) return instruction;

  const chars = Array.from(instruction);
  const markerFor = (n: number) => `\n…[truncated ${n} chars]…\n`;
  const budget = maxTokens - estimateTokens(markerFor(chars.length)); // worst-case marker length
  if (budget <= 0) return markerFor(chars.length).trim();
  const headBudget = budget * 0.7;
  const tailBudget = budget - headBudget;

  let head = 0;
  let cost = 0;
  while (head < chars.length && cost + charCost(chars[head]!) <= headBudget) cost += charCost(chars[head++]!);
  let tail = 0;
  cost = 0;
  while (tail < chars.length - head && cost + charCost(chars[chars.length - 1 - tail]!) <= tailBudget) {
    cost += charCost(chars[chars.length - 1 - tail++]!);
  }
  const cut = chars.length - head - tail;
  return chars.slice(0, head).join('') + markerFor(cut) + chars.slice(chars.length - tail).join('');
}

/** The block that opens every planning/replanning prompt. */
export function userInstructionSection(instruction: string, maxTokens = 2000): string {
  return `USER INSTRUCTION:\n${instructionForPrompt(instruction, maxTokens)}`;
}

/**
 * The Coverage criterion (a critical one: do the tasks together cover the whole instruction?), with
 * the rule that tags coverage issues `[Coverage]`.
 */
export const COVERAGE_CRITERION = [
  '**Coverage**: Do all tasks together fully satisfy the original instruction?',
  '   - All explicit requirements must be addressed by at least one task',
  '   - Implicit requirements (e.g., if adding interface, must also use it) must be considered',
  '   - No aspect of the instruction should be left unaddressed',
  '   - Example: If instruction says "implement authentication and update orchestrate.ts to use it",',
  '     there must be tasks for BOTH implementing auth AND updating orchestrate.ts',
  '   - Report every requirement of the instruction that no task covers as an issue starting with "[Coverage]"',
].join('\n');

/** Instruction + Coverage criterion, for every replanning prompt (task re-decomposition, phase replans). */
export function replanningContext(instruction: string, maxTokens = 2000): string {
  return [
    userInstructionSection(instruction, maxTokens),
    '',
    'The replanned tasks must still cover the whole instruction above:',
    COVERAGE_CRITERION,
  ].join('\n');
}
