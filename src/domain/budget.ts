// A durable per-run token budget, and optional cost budget (O3). Pure policy: usage → cost, how many
// tokens may still be spent, whether one more LLM call may start, how much to lend a child
// workflow, the budget question and its answer. The workflows only call these (the run:
// src/workflows/run/budget-ledger.ts; its children: src/workflows/token-loans.ts).
//
// Leases: the run is the ledger. Every workflow that makes LLM calls holds an allowance (the run: the
// budget itself; a child: what its parent lent it). A call starts only when what the workflow spent,
// plus what it lent to children still running, plus an estimate of one call (the largest call seen
// so far) fits its allowance. A child whose allowance is used up asks its parent for more; a parent
// that has nothing left asks its own parent; the run, with nothing left, pauses and asks the user.
// What a child did not spend comes back when it ends (its result carries its usage). So usage never
// exceeds the budget by more than what calls larger than the estimate add.
import type { TokenUsage } from './usage';

export interface ModelPrice {
  /** US dollars per million prompt (input) tokens. */
  inputPerMTok: number;
  /** US dollars per million completion (output) tokens. */
  outputPerMTok: number;
}

/** The config's `budget` section, validated (src/domain/config.ts). */
export interface BudgetConfig {
  maxTokens?: number;
  maxCostUsd?: number;
  /** Which entry of `prices` the run's model is (absent: the only entry). */
  model?: string;
  prices?: Record<string, ModelPrice>;
}

/** The run's budget as RunState keeps it: the limits (raised by the user's answer) and the price used. */
export interface RunBudget {
  maxTokens?: number;
  maxCostUsd?: number;
  price?: ModelPrice & { model: string };
}

/** The price of `budget.model` (or of the only entry), or undefined when none applies. */
export function priceOf(cfg: BudgetConfig): (ModelPrice & { model: string }) | undefined {
  const prices = cfg.prices ?? {};
  const names = Object.keys(prices);
  const model = cfg.model ?? (names.length === 1 ? names[0] : undefined);
  const p = model !== undefined ? prices[model] : undefined;
  return p && model !== undefined ? { model, ...p } : undefined;
}

/** Why a budget section cannot work (path relative to `budget`), or nothing. */
export function budgetConfigProblems(cfg: BudgetConfig): { path: string; message: string }[] {
  const names = Object.keys(cfg.prices ?? {});
  const out: { path: string; message: string }[] = [];
  if (cfg.model !== undefined && !names.includes(cfg.model)) {
    out.push({ path: 'model', message: `"${cfg.model}" has no entry in budget.prices (${names.length ? names.join(', ') : 'none given'})` });
  }
  if (cfg.maxCostUsd !== undefined && cfg.model === undefined && names.length !== 1) {
    out.push({
      path: names.length ? 'model' : 'prices',
      message: names.length
        ? "budget.maxCostUsd needs to know the run's model: set budget.model to one of budget.prices"
        : 'budget.maxCostUsd needs a price: add budget.prices: { "<model>": { inputPerMTok, outputPerMTok } }',
    });
  }
  return out;
}

export function runBudgetOf(cfg: BudgetConfig | undefined): RunBudget | undefined {
  if (!cfg || (cfg.maxTokens === undefined && cfg.maxCostUsd === undefined)) return undefined;
  const price = priceOf(cfg);
  return {
    ...(cfg.maxTokens !== undefined ? { maxTokens: cfg.maxTokens } : {}),
    ...(cfg.maxCostUsd !== undefined ? { maxCostUsd: cfg.maxCostUsd } : {}),
    ...(price ? { price } : {}),
  };
}

/** US dollars of `usage` at `price`. */
export function costOf(usage: Pick<TokenUsage, 'promptTokens' | 'completionTokens'>, price: ModelPrice): number {
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1e6;
}

/**
 * Tokens the run may still spend after `used`: the token limit's rest, and the cost limit's rest at
 * the dearer of the two prices (so a grant in tokens never costs more than is left). Infinity: no limit.
 */
export function tokensLeft(b: RunBudget | undefined, used: TokenUsage): number {
  if (!b) return Infinity;
  let left = b.maxTokens !== undefined ? b.maxTokens - used.totalTokens : Infinity;
  if (b.maxCostUsd !== undefined && b.price) {
    const perToken = Math.max(b.price.inputPerMTok, b.price.outputPerMTok) / 1e6;
    const rest = b.maxCostUsd - costOf(used, b.price);
    left = Math.min(left, perToken > 0 ? Math.floor(rest / perToken) : Infinity);
  }
  return Math.max(0, left);
}

// ---------------------------------------------------------------- one workflow's lease book

/** One workflow's view of its allowance: own calls, children's loans, the estimate of one call. */
export interface LeaseBook {
  /** Tokens this workflow may use (Infinity: no budget). */
  allowance: number;
  /** Tokens spent: its own calls and the usage of children that ended. */
  spent: number;
  /** Outstanding loans to running children, by child id. */
  lent: Record<string, number>;
  /** The largest single call seen: the estimate of the next one. */
  largest: number;
}

export const openBook = (allowance: number, largest = 0): LeaseBook => ({ allowance, spent: 0, lent: {}, largest });

const lentSum = (b: LeaseBook) => Object.values(b.lent).reduce((n, x) => n + x, 0);

/** Tokens neither spent nor lent. */
export const available = (b: LeaseBook): number => b.allowance - b.spent - lentSum(b);

/** The estimate of one call: the largest seen (at least 1 token). */
export const callEstimate = (b: LeaseBook): number => Math.max(1, b.largest);

/** May one more call start? Only when one call of the estimated size fits what is left. */
export const mayCall = (b: LeaseBook): boolean => available(b) >= callEstimate(b);

/** Calls per loan: a child asks again only after about this many calls. */
export const CALLS_PER_LEASE = 4;

/** What a workflow asks its parent for when its allowance is used up: a few calls' worth. */
export const leaseWant = (b: LeaseBook): number => CALLS_PER_LEASE * callEstimate(b);

/**
 * What to lend a child (at start or on its request): at most `want` (a child takes no more than it
 * asked for), at most half of what is left when siblings may need some too, never less than one of
 * the child's calls (`one`: the largest call it reported; default this workflow's estimate); 0 when
 * not even that fits.
 */
export function leaseSize(b: LeaseBook, want: number, one = callEstimate(b)): number {
  const left = available(b);
  const call = Math.max(1, Math.min(one, want));
  if (left < call) return 0;
  if (left === Infinity) return Infinity;
  return Math.min(want, Math.max(call, Math.floor(left / 2)));
}

/** One call of a child that asked: the largest call it reported (at least 1 token). */
export const childCall = (largest: number): number => Math.max(1, largest);

/**
 * The largest call a child's budget request teaches its parent: what the child reports, but never
 * more than the parent lent it (`lentToChild`), and never less than the parent's own estimate
 * (`prior`). Anyone can send a request naming a running child: one claiming a call larger than any
 * budget would leave no room for a single call ever again, not even after a raise.
 */
export const learnedLargest = (prior: number, lentToChild: number, reported: number): number => Math.max(prior, Math.min(reported, lentToChild));

/**
 * What a parent takes from a child's budget request (the execution phase's rule for its tasks): the
 * largest call as learnedLargest, and what the child spent at most its loan plus one call (`prior`).
 */
export function boundedClaim(prior: number, lentToChild: number, claim: { largest: number; spent: number }): { largest: number; spent: number } {
  return { largest: learnedLargest(prior, lentToChild, claim.largest), spent: Math.min(claim.spent, lentToChild + prior) };
}

export function lend(b: LeaseBook, childId: string, tokens: number): LeaseBook {
  return { ...b, lent: { ...b.lent, [childId]: (b.lent[childId] ?? 0) + tokens } };
}

/**
 * A child ended: its loan closes and what it really used counts. A child whose usage is unknown
 * (it failed) counts as having used its whole loan (never less than it may have spent).
 */
export function childEnded(b: LeaseBook, childId: string, used: TokenUsage | undefined): LeaseBook {
  const loan = b.lent[childId] ?? 0;
  const lent = { ...b.lent };
  delete lent[childId];
  const tokens = used ? used.totalTokens : loan;
  const perCall = used && used.calls > 0 ? Math.ceil(used.totalTokens / used.calls) : 0;
  return { ...b, lent, spent: b.spent + tokens, largest: Math.max(b.largest, perCall) };
}

// ---------------------------------------------------------------- the question and its answer

/** The budget question's text: what was used and how to answer. */
export function budgetQuestionText(b: RunBudget, used: TokenUsage): string {
  return `The run's budget is used up: ${usageAgainst(b, used)}. Raise the limit (answer "raise <tokens>"${
    b.maxCostUsd !== undefined ? ', or "raise $<dollars>" for the cost limit' : ''
  }) or stop the run (answer "stop").`;
}

/** "4,980 of 5,000 tokens" (+ ", $0.0120 of $0.0500"). */
export function usageAgainst(b: RunBudget, used: TokenUsage): string {
  const parts: string[] = [];
  if (b.maxTokens !== undefined) parts.push(`used ${fmt(used.totalTokens)} of ${fmt(b.maxTokens)} tokens`);
  else parts.push(`used ${fmt(used.totalTokens)} tokens`);
  if (b.maxCostUsd !== undefined && b.price) parts.push(`$${costOf(used, b.price).toFixed(4)} of $${b.maxCostUsd.toFixed(4)}`);
  return parts.join(', ');
}

const fmt = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export type BudgetAnswer = { action: 'stop' } | { action: 'raise'; maxTokens?: number; maxCostUsd?: number };

/** The most a limit may be raised to (every setting is bounded). */
export const MAX_BUDGET_TOKENS = 1e12;
export const MAX_BUDGET_USD = 1e6;

/**
 * Reads an answer to the budget question: "stop", or "raise N" / "N" (tokens, also 20k / 1.5M,
 * commas allowed) / "raise $N" (dollars). A raise must be above what was used.
 */
export function parseBudgetAnswer(text: string, b: RunBudget, used: TokenUsage): { ok: true; answer: BudgetAnswer } | { ok: false; reason: string } {
  const a = text.trim().toLowerCase();
  if (/^(stop|no|end|quit|abort)[.!]?$/.test(a)) return { ok: true, answer: { action: 'stop' } };
  const m = /^(?:raise(?:\s+(?:it|the\s+limit))?(?:\s+to)?\s+)?(\$)?\s*([0-9][0-9,_]*(?:\.[0-9]+)?)\s*(k|m)?\s*(tokens?|usd|dollars?)?$/.exec(a);
  const how = `answer "raise <tokens>" (e.g. raise 20000)${b.maxCostUsd !== undefined ? ', "raise $<dollars>"' : ''} or "stop"`;
  if (!m) return { ok: false, reason: `the budget question takes a new limit or stop: ${how}` };
  const n = Number(m[2]!.replace(/[,_]/g, '')) * (m[3] === 'k' ? 1e3 : m[3] === 'm' ? 1e6 : 1);
  const dollars = m[1] === '$' || m[4] === 'usd' || m[4]?.startsWith('dollar') === true;
  if (dollars) {
    if (b.maxCostUsd === undefined || !b.price) return { ok: false, reason: `this run has no cost limit: ${how}` };
    const spent = costOf(used, b.price);
    if (!(n > spent) || n > MAX_BUDGET_USD)
      return { ok: false, reason: `the new cost limit must be above the $${spent.toFixed(4)} used and at most $${MAX_BUDGET_USD}` };
    return { ok: true, answer: { action: 'raise', maxCostUsd: n } };
  }
  if (!Number.isInteger(n) || n <= used.totalTokens || n > MAX_BUDGET_TOKENS) {
    return {
      ok: false,
      reason: `the new limit must be a whole number of tokens above the ${fmt(used.totalTokens)} used and at most ${MAX_BUDGET_TOKENS}`,
    };
  }
  return { ok: true, answer: { action: 'raise', maxTokens: n } };
}

/** The budget after a raise: the named limit replaced (a token raise on a cost-only budget adds a token limit). */
export function applyRaise(b: RunBudget, a: Extract<BudgetAnswer, { action: 'raise' }>): RunBudget {
  return {
    ...b,
    ...(a.maxTokens !== undefined ? { maxTokens: a.maxTokens } : {}),
    ...(a.maxCostUsd !== undefined ? { maxCostUsd: a.maxCostUsd } : {}),
  };
}

/** The final reason of a run stopped by its budget. */
export function stoppedReason(b: RunBudget, used: TokenUsage): string {
  return `stopped by its budget: ${usageAgainst(b, used)}`;
}

/** What `status` shows of the budget. */
export interface BudgetView {
  maxTokens?: number;
  usedTokens: number;
  maxCostUsd?: number;
  costUsd?: number;
  model?: string;
}

export function budgetView(b: RunBudget, used: TokenUsage): BudgetView {
  return {
    ...(b.maxTokens !== undefined ? { maxTokens: b.maxTokens } : {}),
    usedTokens: used.totalTokens,
    ...(b.maxCostUsd !== undefined ? { maxCostUsd: b.maxCostUsd } : {}),
    ...(b.price ? { costUsd: Number(costOf(used, b.price).toFixed(6)), model: b.price.model } : {}),
  };
}
