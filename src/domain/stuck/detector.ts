// The stuck detector (P9), fed each worker step as it finishes (its small fingerprints only, see
// fingerprint.ts). It watches the task's stream of tool calls and replies across steps and
// iterations and names the first pattern that shows the worker going round in circles. The window
// is part of the task workflow's state: a worker crash mid-pattern does not reset it. Pure.
import type { StuckConfig } from '../config/stuck';
import { type CallPrint, failureReason } from './fingerprint';

export const STUCK_PATTERNS = ['same_failure', 'same_result', 'alternation', 'failing_calls', 'repeated_messages', 'idle_steps'] as const;
export type StuckPattern = (typeof STUCK_PATTERNS)[number];

/** One finished worker step as the detector is fed it (from the step's report). */
export interface StuckStepInput {
  /** The step's call fingerprints; absent in reports from before the detector existed (such a step is skipped). */
  prints?: readonly CallPrint[];
  toolCalls: number;
  /** replyPrint of the reply when the step called no tool. */
  reply?: string;
  /** The step wrote or edited a file. */
  changedFiles: boolean;
  /** The step's tokens (its LLM request). */
  tokens: number;
}

interface SeenCall extends CallPrint {
  /** The step it came from (serial within the window) and that step's tokens. */
  step: number;
  tokens: number;
}

/** The detector's window: small and bounded (tens of entries). */
export interface StuckWindow {
  /** Steps fed so far (the serial of the newest). */
  steps: number;
  /** The newest calls, as many as the longest call pattern needs. */
  calls: SeenCall[];
  /** Replies in a row with no tool call: their prints and tokens. */
  replies: { print: string; tokens: number }[];
  /** Steps in a row with no file change and nothing new, and their tokens. */
  idle: { steps: number; tokens: number };
  /** `call:out` of the calls seen lately: what the worker already knows. */
  known: string[];
}

export interface StuckFinding {
  pattern: StuckPattern;
  /** One line naming the pattern: "list_dir output.txt failed (not found) 3 times in a row". */
  summary: string;
  /** What the tools answered, one line per distinct call (`label → said`), at most 3. */
  answers: string[];
  /** Calls (replies, steps for idle_steps) in the pattern. */
  count: number;
  /** Steps spent repeating: the pattern's steps after its first occurrence(s). */
  wastedSteps: number;
  wastedTokens: number;
}

export const EMPTY_STUCK_WINDOW: Readonly<StuckWindow> = Object.freeze({
  steps: 0,
  calls: [],
  replies: [],
  idle: { steps: 0, tokens: 0 },
  known: [],
});

const KNOWN_KEPT = 64;
const key = (c: CallPrint) => `${c.call}:${c.out}`;

/**
 * Feed one finished step. Returns the new window and, when a pattern shows, what it found; the
 * window then starts afresh (what the worker already knows is kept). Patterns, first match:
 * same_failure, same_result, alternation, failing_calls (tool calls in a row), repeated_messages
 * (replies without a tool call), idle_steps (steps with no file change and nothing new).
 */
export function feedStep(w: StuckWindow, input: StuckStepInput, config: StuckConfig): { window: StuckWindow; finding?: StuckFinding } {
  if (!config.enabled) return { window: w };
  // A report from before the detector existed carries no prints: nothing to compare it with.
  if (input.toolCalls > 0 && !input.prints) return { window: w };
  const step = w.steps + 1;
  const prints = input.prints ?? [];
  const longest = Math.max(config.same_failure, config.same_result, config.alternation, config.failing_calls);
  const calls = [...w.calls, ...prints.map((p) => ({ ...p, step, tokens: input.tokens }))].slice(-longest);
  const replies = input.toolCalls === 0 && input.reply !== undefined ? [...w.replies, { print: input.reply, tokens: input.tokens }] : [];
  const learned = input.changedFiles || prints.some((p) => !w.known.includes(key(p)));
  const idle = learned ? { steps: 0, tokens: 0 } : { steps: w.idle.steps + 1, tokens: w.idle.tokens + input.tokens };
  const known = [...w.known.filter((k) => !prints.some((p) => key(p) === k)), ...new Set(prints.map(key))].slice(-KNOWN_KEPT);
  const next: StuckWindow = { steps: step, calls, replies: replies.slice(-config.repeated_messages), idle, known };
  const finding = (prints.length > 0 ? callPattern(calls, config) : undefined) ?? repeatedMessages(replies, config) ?? idleSteps(idle, config);
  return finding ? { window: { ...EMPTY_STUCK_WINDOW, steps: step, known }, finding } : { window: next };
}

/** The newest run of calls for which `same(prev, cur)` holds between neighbours. */
function tailRun(calls: readonly SeenCall[], same: (a: SeenCall, b: SeenCall) => boolean): SeenCall[] {
  let i = calls.length - 1;
  while (i > 0 && same(calls[i - 1]!, calls[i]!)) i -= 1;
  return calls.slice(i);
}

/** Steps of `calls` after the first `free` distinct steps, and their tokens. */
function waste(calls: readonly SeenCall[], free: number): { wastedSteps: number; wastedTokens: number } {
  const steps = new Map<number, number>();
  for (const c of calls) steps.set(c.step, c.tokens);
  const wasted = [...steps.entries()].sort(([a], [b]) => a - b).slice(free);
  return { wastedSteps: wasted.length, wastedTokens: wasted.reduce((n, [, t]) => n + t, 0) };
}

const answer = (c: CallPrint) => `${c.label} → ${c.said || '(no output)'}`;

function callPattern(calls: readonly SeenCall[], config: StuckConfig): StuckFinding | undefined {
  const last = calls[calls.length - 1];
  if (!last) return undefined;
  const same = tailRun(calls, (a, b) => a.call === b.call && a.out === b.out && a.ok === b.ok);
  if (!last.ok && same.length >= config.same_failure) {
    const summary = `${last.label} failed (${failureReason(last.said)}) ${same.length} times in a row`;
    return { pattern: 'same_failure', summary, answers: [answer(last)], count: same.length, ...waste(same, 1) };
  }
  if (last.ok && same.length >= config.same_result) {
    const summary = `${last.label} returned the same result ${same.length} times in a row`;
    return { pattern: 'same_result', summary, answers: [answer(last)], count: same.length, ...waste(same, 1) };
  }
  const alt = alternation(calls, config.alternation);
  if (alt) return alt;
  const failing = tailRun(calls, (a, b) => !a.ok && !b.ok);
  if (!last.ok && failing.length >= config.failing_calls) {
    const distinct = [...new Map(failing.map((c) => [c.call, c])).values()];
    const named = distinct
      .slice(0, 3)
      .map((c) => `${c.label} (${failureReason(c.said)})`)
      .join(', ');
    const summary = `${failing.length} tool calls failed in a row: ${named}${distinct.length > 3 ? ', …' : ''}`;
    return { pattern: 'failing_calls', summary, answers: distinct.slice(-3).map(answer), count: failing.length, ...waste(failing, 1) };
  }
  return undefined;
}

/** A B A B …: the newest `n` calls alternate between two different calls, each with its same output. */
function alternation(calls: readonly SeenCall[], n: number): StuckFinding | undefined {
  if (calls.length < n) return undefined;
  const tail = calls.slice(-n);
  const [a, b] = tail as [SeenCall, SeenCall];
  if (a.call === b.call) return undefined;
  for (let i = 2; i < n; i += 1) {
    const x = tail[i]!;
    const y = tail[i - 2]!;
    if (x.call !== y.call || x.out !== y.out || x.ok !== y.ok) return undefined;
  }
  const summary = `alternated between ${a.label} and ${b.label} ${n} times with the same results`;
  return { pattern: 'alternation', summary, answers: [answer(a), answer(b)], count: n, ...waste(tail, 2) };
}

function repeatedMessages(replies: readonly { print: string; tokens: number }[], config: StuckConfig): StuckFinding | undefined {
  const n = config.repeated_messages;
  if (replies.length < n) return undefined;
  const tail = replies.slice(-n);
  // Nothing new: every reply after the first says what an earlier one said.
  if (!tail.every((r, i) => i === 0 || tail.slice(0, i).some((e) => e.print === r.print))) return undefined;
  const wasted = tail.slice(1);
  return {
    pattern: 'repeated_messages',
    summary: `replied ${n} times in a row without calling a tool, saying nothing new`,
    answers: [],
    count: n,
    wastedSteps: wasted.length,
    wastedTokens: wasted.reduce((s, r) => s + r.tokens, 0),
  };
}

function idleSteps(idle: StuckWindow['idle'], config: StuckConfig): StuckFinding | undefined {
  if (idle.steps < config.idle_steps) return undefined;
  return {
    pattern: 'idle_steps',
    summary: `${idle.steps} steps in a row changed no file and learned nothing new`,
    answers: [],
    count: idle.steps,
    wastedSteps: idle.steps,
    wastedTokens: idle.tokens,
  };
}

/** The note shown for a finding (status, watch, the details, the judge): the pattern and what it cost. */
export function stuckNote(f: StuckFinding): string {
  return `stuck: ${f.summary} (${f.wastedSteps} wasted step${f.wastedSteps === 1 ? '' : 's'}, ${f.wastedTokens} tokens)`;
}
