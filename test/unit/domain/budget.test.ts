// O3: the budget policy (src/domain/budget.ts), the run-state transitions of the budget pause and its
// question (src/domain/run/state.ts), and the config's `budget` section (src/domain/config.ts).
import {
  applyRaise,
  available,
  budgetConfigProblems,
  budgetQuestionText,
  budgetView,
  callEstimate,
  childEnded,
  costOf,
  boundedClaim,
  learnedLargest,
  lend,
  leaseSize,
  leaseWant,
  mayCall,
  openBook,
  parseBudgetAnswer,
  runBudgetOf,
  tokensLeft,
  type RunBudget,
  type LeaseBook,
} from '../../../src/domain/budget';
import { ConfigError, parseConfig } from '../../../src/domain/config';
import { answerProblem } from '../../../src/domain/replan/questions';
import { addPlanningUsage } from '../../../src/domain/run/phases';
import {
  applyBudgetAnswer,
  budgetUsage,
  budgetAnswerProblem,
  closeLoan,
  lendTokens,
  noteBudgetRequest,
  noteLargestCall,
  noteReportedSpend,
  pauseForBudget,
  setBudget,
} from '../../../src/domain/run/budget-ledger';
import { answerQuestion } from '../../../src/domain/run/questions';
import { displayStatus, isPaused, resumeRun } from '../../../src/domain/run/pause';
import { initialRunState, type RunState } from '../../../src/domain/run/state';
import { statusView } from '../../../src/domain/run/views';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetLine } from '../../../src/client/render';
import { loadConfig } from '../../../src/client/config-load';
import type { TokenUsage } from '../../../src/domain/usage';

const used = (totalTokens: number, promptTokens = totalTokens, calls = 1): TokenUsage => ({
  promptTokens,
  completionTokens: totalTokens - promptTokens,
  totalTokens,
  calls,
});
const PRICE = { model: 'gpt-4o-mini', inputPerMTok: 0.15, outputPerMTok: 0.6 };

describe('O3 cost and what is left', () => {
  it('O3 usage → cost from the per-model price', () => {
    expect(costOf(used(1_000_000, 600_000), PRICE)).toBeCloseTo(0.15 * 0.6 + 0.6 * 0.4);
  });

  it('O3 tokens left: the token limit, the cost limit at the dearer price, the smaller of both; no budget → Infinity', () => {
    expect(tokensLeft(undefined, used(10))).toBe(Infinity);
    expect(tokensLeft({ maxTokens: 5000 }, used(4200))).toBe(800);
    expect(tokensLeft({ maxTokens: 5000 }, used(5300))).toBe(0);
    // $0.006 left at $0.6 per million: 10,000 tokens.
    expect(tokensLeft({ maxCostUsd: 0.006, price: PRICE }, used(0))).toBe(10_000);
    expect(tokensLeft({ maxTokens: 5000, maxCostUsd: 0.006, price: PRICE }, used(0))).toBe(5000);
  });
});

/** The book after one call of `tokens` that the workflow itself made. */
const afterCall = (b: LeaseBook, tokens: number): LeaseBook => ({ ...b, spent: b.spent + tokens, largest: Math.max(b.largest, tokens) });

describe('O3 leases: admit a call only if one call of the estimated size fits', () => {
  it('O3 a call starts only while spent + lent + the largest call seen fit the allowance', () => {
    let b = openBook(1000);
    expect(callEstimate(b)).toBe(1);
    expect(mayCall(b)).toBe(true);
    b = afterCall(b, 300);
    b = afterCall(b, 300);
    expect(available(b)).toBe(400);
    expect(mayCall(b)).toBe(true);
    b = afterCall(b, 300);
    // 100 left < the 300 a call takes: no call starts.
    expect(mayCall(b)).toBe(false);
  });

  it('O3 a loan to a child is taken from what is left; its end closes the loan and counts what it used (all of it when unknown)', () => {
    let b = afterCall(openBook(2000), 100);
    b = lend(b, 'task-a', 800);
    expect(available(b)).toBe(1100);
    const ended = childEnded(b, 'task-a', used(350, 300, 2));
    expect(ended.lent).toEqual({});
    expect(available(ended)).toBe(1550);
    expect(ended.largest).toBe(175);
    expect(available(childEnded(b, 'task-a', undefined))).toBe(1100);
  });

  it('O3 lease size: at most what was asked, at most half of what is left, never less than one call, 0 when no call fits', () => {
    const b = afterCall(openBook(10_000), 200);
    expect(leaseWant(b)).toBe(800);
    expect(leaseSize(b, leaseWant(b))).toBe(800);
    expect(leaseSize(b, Infinity)).toBe(4900);
    expect(leaseSize(afterCall(openBook(500), 200), 800)).toBe(200);
    expect(leaseSize(afterCall(openBook(300), 200), 800)).toBe(0);
    expect(leaseSize(openBook(Infinity), 800)).toBe(Infinity);
  });

  it('O3 a grant never exceeds what the child asked for, even when the parent has seen larger calls than the child', () => {
    // The run saw 2,000-token planning calls; a task whose steps take 200 asks for 800.
    const run = afterCall(openBook(50_000), 2000);
    expect(leaseSize(run, 800, 200)).toBe(800);
    expect(leaseSize(afterCall(openBook(2300), 2000), 800, 200)).toBe(200);
    expect(leaseSize(afterCall(openBook(2150), 2000), 800, 200)).toBe(0);
  });

  it('O3 parallel children each stay within their loans: total ≤ allowance + overshoot of calls larger than the estimate', () => {
    // Three tasks borrow in turn until nothing fits; each then spends only what fits its loan.
    let run = afterCall(openBook(5000), 200);
    const loans: number[] = [];
    for (let i = 0; ; i++) {
      const n = leaseSize(run, leaseWant(run));
      if (n === 0) break;
      run = lend(run, `t${i % 3}-${i}`, n);
      loans.push(n);
    }
    const spent = loans.reduce((s, n) => s + Math.floor(n / 200) * 200, 0);
    expect(loans.reduce((s, n) => s + n, 0)).toBeLessThanOrEqual(5000 - 200);
    expect(spent + 200).toBeLessThanOrEqual(5000);
  });
});

describe('O3 the budget question and its answer', () => {
  const b: RunBudget = { maxTokens: 5000 };
  it('O3 the question says what was used and how to answer', () => {
    expect(budgetQuestionText(b, used(4980))).toBe(
      'The run\'s budget is used up: used 4,980 of 5,000 tokens. Raise the limit (answer "raise <tokens>") or stop the run (answer "stop").',
    );
    expect(budgetQuestionText({ maxCostUsd: 1, price: PRICE }, used(100))).toContain('"raise $<dollars>"');
  });

  it.each([
    ['stop', { action: 'stop' }],
    ['Stop.', { action: 'stop' }],
    ['raise 20000', { action: 'raise', maxTokens: 20000 }],
    ['raise to 20,000 tokens', { action: 'raise', maxTokens: 20000 }],
    ['20k', { action: 'raise', maxTokens: 20000 }],
    ['1.5M', { action: 'raise', maxTokens: 1_500_000 }],
  ])('O3 answer %p → %p', (text, answer) => {
    expect(parseBudgetAnswer(text, b, used(4980))).toEqual({ ok: true, answer });
  });

  it.each([
    ['more please', 'raise <tokens>'],
    ['raise 4000', 'above the 4,980 used'],
    ['raise 12.5', 'whole number'],
    ['raise $5', 'this run has no cost limit'],
    ['raise 1e13', 'raise <tokens>'],
  ])('O3 answer %p is refused (%s)', (text, why) => {
    const r = parseBudgetAnswer(text, b, used(4980));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(why);
  });

  it('O3 a cost raise on a priced budget', () => {
    const c: RunBudget = { maxCostUsd: 0.01, price: PRICE };
    expect(parseBudgetAnswer('raise $0.05', c, used(1000))).toEqual({ ok: true, answer: { action: 'raise', maxCostUsd: 0.05 } });
    expect(applyRaise(c, { action: 'raise', maxCostUsd: 0.05 })).toEqual({ maxCostUsd: 0.05, price: PRICE });
    expect(applyRaise(c, { action: 'raise', maxTokens: 900 })).toEqual({ maxCostUsd: 0.01, maxTokens: 900, price: PRICE });
  });
});

describe('O3 the run state: budget pause, question, raise and stop', () => {
  const budgeted = (): RunState => {
    let s = initialRunState({ runId: 'r1', instruction: 'do it', workspace: '/ws' });
    s = setBudget(s, { maxTokens: 5000 });
    return addPlanningUsage(s, used(4900));
  };
  const AT = '2026-01-01T00:00:00.000Z';

  it('O3 no budget configured: nothing to check', () => {
    expect(runBudgetOf(parseConfig({}).budget)).toBeUndefined();
    expect(statusView(initialRunState({ runId: 'r', instruction: 'x', workspace: '/ws' })).budget).toBeUndefined();
  });

  it('O3 used up: paused by the budget with one budget question (WAITING for its answer); status shows usage against the budget', () => {
    const s = pauseForBudget(budgeted(), AT);
    expect(isPaused(s)).toBe(true);
    // The run waits for the answer to its budget question: WAITING, its pause shown beside.
    expect(displayStatus(s)).toBe('WAITING');
    expect(s.questions).toHaveLength(1);
    expect(s.questions[0]).toMatchObject({ id: 'q1', kind: 'budget', status: 'pending', timeoutMinutes: null });
    // Asked once: a second request while waiting asks nothing new.
    expect(pauseForBudget(s, AT).questions).toHaveLength(1);
    const v = statusView(s);
    expect(v.pause).toMatchObject({ kind: 'budget', by: 'budget', since: AT });
    expect(v.pause!.reason).toContain('used 4,900 of 5,000 tokens');
    expect(v.budget).toEqual({ maxTokens: 5000, usedTokens: 4900 });
    expect(budgetLine(v.budget!)).toBe('Budget: 4,900 / 5,000 tokens (98.0%)');
    // `resume` does not end a budget pause: only the answer does.
    const r = resumeRun(s);
    expect(r.ok && isPaused(r.state)).toBe(true);
  });

  it('O3 the answer is checked against the budget before it is taken', () => {
    const s = pauseForBudget(budgeted(), AT);
    const a = { questionId: 'q1', answer: 'raise 4000' };
    expect(answerProblem(s.questions, a)).toBeUndefined();
    expect(budgetAnswerProblem(s, a)).toContain('above the 4,900 used');
    expect(budgetAnswerProblem(s, { questionId: 'q1', answer: 'raise 9000' })).toBeUndefined();
  });

  it('O3 raise: the new limit, no longer paused; the loans stay', () => {
    let s = lendTokens(pauseForBudget(budgeted(), AT), 'run-r1.execution-1', 100);
    expect(applyBudgetAnswer(s)).toBeUndefined();
    s = answerQuestion(s, { questionId: 'q1', answer: 'raise 9000' }, AT);
    const r = applyBudgetAnswer(s)!;
    expect(r.stopped).toBe(false);
    expect(isPaused(r.state)).toBe(false);
    expect(r.state.budget).toEqual({ limits: { maxTokens: 9000 }, lent: { 'run-r1.execution-1': 100 }, largest: 0 });
    expect(closeLoan(r.state, 'run-r1.execution-1', 250).budget).toEqual({ limits: { maxTokens: 9000 }, lent: {}, largest: 250 });
  });

  it('O3 a child that failed reported no usage: its whole loan stays counted as spent', () => {
    const s = lendTokens(budgeted(), 'run-r1.goal_understanding-1', 60);
    expect(closeLoan(s, 'run-r1.goal_understanding-1', 0, true).budget).toEqual({
      limits: { maxTokens: 5000 },
      lent: {},
      largest: 0,
      unreported: 60,
    });
  });

  it('O3 used tokens include what the running phase reported in its budget requests (tasks report usage only at their end), capped at its loans', () => {
    const exec = 'run-r1.execution-1';
    let s = lendTokens(budgeted(), exec, 50);
    s = noteLargestCall(s, 30);
    // 4,900 planning + 40 the execution said it spent.
    s = noteReportedSpend(s, exec, 40);
    expect(budgetUsage(s).totalTokens).toBe(4940);
    // A forged request cannot make the run look spent beyond the loan plus one call.
    expect(budgetUsage(noteReportedSpend(s, exec, 1_000_000)).totalTokens).toBe(4900 + 50 + 30);
    expect(pauseForBudget(s, AT).questions[0]!.text).toContain('used 4,940 of 5,000 tokens');
    // The phase failed: what it said it spent stays shown as used.
    expect(budgetUsage(closeLoan(s, exec, 0, true)).totalTokens).toBe(4940);
  });

  it("S2 O3 a forged budget request naming the running phase (a call of 10^12 tokens, as much spent) counts only within that phase's loan; after it a raise leaves room for calls again", () => {
    const phase = 'run-r1.goal_understanding-1';
    let s = noteLargestCall(lendTokens(budgeted(), phase, 50), 30);
    const forged = noteBudgetRequest(s, phase, 1e12, 1e12);
    // The estimate of one call at most the loan; the used tokens at most the loan plus one call of the estimate before.
    expect(forged.budget!.largest).toBe(50);
    expect(budgetUsage(forged).totalTokens).toBe(4900 + 50 + 30);
    // The phase ends (its loan closes); after a raise to 20,000 a call fits again.
    s = closeLoan(forged, phase, 30);
    const raised = { allowance: tokensLeft({ maxTokens: 20_000 }, budgetUsage(s)), spent: 0, lent: {}, largest: s.budget!.largest };
    expect(mayCall(raised)).toBe(true);
    // What a real phase reports within its loan is taken as it is.
    expect(noteBudgetRequest(noteLargestCall(lendTokens(budgeted(), phase, 50), 30), phase, 40, 45).budget).toMatchObject({
      largest: 40,
      reported: { [phase]: 45 },
    });
  });

  it('S2 O3 the largest call a request teaches: what the child says, within what it was lent, never below the estimate before', () => {
    expect(learnedLargest(30, 50, 40)).toBe(40);
    expect(learnedLargest(30, 50, 1e12)).toBe(50);
    // The execution phase's rule for its tasks: spent at most the loan plus one call.
    expect(boundedClaim(30, 50, { largest: 1e12, spent: 1e12 })).toEqual({ largest: 50, spent: 80 });
    expect(boundedClaim(30, 50, { largest: 40, spent: 20 })).toEqual({ largest: 40, spent: 20 });
    expect(learnedLargest(30, 10, 1e12)).toBe(30);
    expect(learnedLargest(30, 50, 0)).toBe(30);
  });

  it('O3 stop: the run ends STOPPED with the reason; open tasks are cancelled', () => {
    let s = pauseForBudget(budgeted(), AT);
    s = {
      ...s,
      tasks: [
        {
          id: 'a',
          title: 'a',
          description: '',
          acceptanceCriteria: [],
          dependencies: [],
          scopePaths: [],
          profile: 'FILE_OPERATION',
          state: 'DONE',
        },
        {
          id: 'b',
          title: 'b',
          description: '',
          acceptanceCriteria: [],
          dependencies: [],
          scopePaths: [],
          profile: 'FILE_OPERATION',
          state: 'RUNNING',
        },
      ],
    };
    s = answerQuestion(s, { questionId: 'q1', answer: 'stop' }, AT);
    const r = applyBudgetAnswer(s)!;
    expect(r.stopped).toBe(true);
    expect(r.state.status).toBe('STOPPED');
    expect(r.state.phase).toBe('finished');
    expect(r.state.error).toBe('stopped by its budget: used 4,900 of 5,000 tokens');
    expect(r.state.tasks.map((t) => t.state)).toEqual(['DONE', 'CANCELLED']);
    expect(displayStatus(r.state)).toBe('STOPPED');
    expect(statusView(r.state).budget).toEqual({ maxTokens: 5000, usedTokens: 4900 });
  });

  it('O3 status with a price shows the cost', () => {
    expect(budgetView({ maxTokens: 5000, maxCostUsd: 0.01, price: PRICE }, used(1000, 800))).toEqual({
      maxTokens: 5000,
      usedTokens: 1000,
      maxCostUsd: 0.01,
      costUsd: 0.00024,
      model: 'gpt-4o-mini',
    });
    expect(budgetLine({ maxTokens: 5000, usedTokens: 1000, maxCostUsd: 0.01, costUsd: 0.00024, model: 'gpt-4o-mini' })).toBe(
      'Budget: 1,000 / 5,000 tokens (20.0%) · $0.0002 / $0.0100 (gpt-4o-mini)',
    );
  });
});

describe('O3 config: budget', () => {
  const errorOf = (raw: unknown): ConfigError => {
    try {
      parseConfig(raw);
    } catch (e) {
      if (e instanceof ConfigError) return e;
      throw e;
    }
    throw new Error('expected a ConfigError');
  };

  it('O3 absent: no budget; maxTokens alone; a cost limit with its price', () => {
    expect(parseConfig({}).budget).toEqual({});
    expect(runBudgetOf(parseConfig({ budget: { maxTokens: 5000 } }).budget)).toEqual({ maxTokens: 5000 });
    const cfg = parseConfig({ budget: { maxCostUsd: 2, prices: { 'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 } } } });
    expect(runBudgetOf(cfg.budget)).toEqual({ maxCostUsd: 2, price: PRICE });
    const two = { a: { inputPerMTok: 1, outputPerMTok: 2 }, b: { inputPerMTok: 3, outputPerMTok: 4 } };
    expect(runBudgetOf(parseConfig({ budget: { maxCostUsd: 2, model: 'b', prices: two } }).budget)).toEqual({
      maxCostUsd: 2,
      price: { model: 'b', inputPerMTok: 3, outputPerMTok: 4 },
    });
  });

  it.each([
    [{ maxTokens: 0 }, 'budget.maxTokens: must be a whole number of tokens > 0'],
    [{ maxTokens: 12.5 }, 'budget.maxTokens: must be a whole number of tokens > 0'],
    [{ maxTokens: '5000' }, 'budget.maxTokens: must be a whole number of tokens > 0'],
    [{ maxTokens: 1e13 }, 'budget.maxTokens: must be at most'],
    [{ maxCostUsd: -1 }, 'budget.maxCostUsd: must be a number of US dollars > 0'],
    [{ maxCostUsd: 1 }, 'budget.prices: budget.maxCostUsd needs a price'],
    [{ maxTokenz: 5 }, 'budget.maxTokenz: unknown key (did you mean "maxTokens"?)'],
    [{ prices: { m: { inputPerMTok: -1, outputPerMTok: 1 } } }, 'budget.prices.m.inputPerMTok: must be a number ≥ 0'],
    [{ prices: { m: { input: 1 } } }, 'budget.prices.m'],
    [{ model: 'x', prices: { m: { inputPerMTok: 1, outputPerMTok: 1 } } }, 'budget.model: "x" has no entry in budget.prices (m)'],
    [
      { maxCostUsd: 1, prices: { a: { inputPerMTok: 1, outputPerMTok: 1 }, b: { inputPerMTok: 1, outputPerMTok: 1 } } },
      "budget.model: budget.maxCostUsd needs to know the run's model",
    ],
  ])('O3 S3 budget %p → %s', (budget, message) => {
    expect(errorOf({ budget }).message).toContain(message);
  });

  it("O3 a price table of several models that names none: the run uses this shell's REPLANNER_MODEL when the table prices it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'replanner-budget-'));
    const file = join(dir, 'replanner.yaml');
    writeFileSync(
      file,
      'budget:\n  maxCostUsd: 2\n  prices:\n    gpt-4o-mini: { inputPerMTok: 0.15, outputPerMTok: 0.6 }\n    big: { inputPerMTok: 5, outputPerMTok: 15 }\n',
    );
    expect(loadConfig({ path: file, env: { REPLANNER_MODEL: 'big' } }).budget.model).toBe('big');
    expect(loadConfig({ path: file, env: {} }).budget.model).toBe('gpt-4o-mini');
    expect(() => loadConfig({ path: file, env: { REPLANNER_MODEL: 'other' } })).toThrow(
      /budget\.model: budget\.maxCostUsd needs to know the run's model/,
    );
  });

  it('O3 budgetConfigProblems: a well-formed budget has none', () => {
    expect(budgetConfigProblems({ maxTokens: 1 })).toEqual([]);
  });
});
