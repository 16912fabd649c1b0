// O3 in the workflows: token leases (policy: src/domain/budget.ts), the children's side. The run
// is the ledger (run/budget-ledger.ts); each child that makes LLM calls gets an allowance with its
// input, which the first stage of its call gate (call-gate.ts) checks before every call (no signal
// per call: history stays ≤ 12 events per call); it asks its parent for more only when it is used
// up, and gives back what it did not use by ending (its result carries its usage). The execution
// phase lends to its tasks the same way. The run, with nothing left, pauses with the budget question.
//
// Forged messages (S2). Temporal does not say who sent a signal, and whatever a parent tells a child
// is visible in history, so a grant cannot be authenticated. What the protocol guarantees instead:
// - The run's ledger (RunState.budget) changes only by the run's own transitions: a grant is never
//   a message TO the run, and the limit is raised only by the answer to the budget question.
// - A request is served only when it names a running child of the receiver; what is lent comes out of
//   what is left, so a forged request at worst lends tokens to a real child (counted as lent) or
//   pauses the run with the question. It never makes the ledger allow more than the budget, and what
//   it claims (its largest call, what it spent) counts only within what that child was lent: a claimed
//   call larger than any budget would otherwise leave no room for a call, not even after a raise.
// - A child takes a grant only as the answer to its own open request (same number), once, and only
//   up to what it asked for, so a stray or replayed grant is ignored. Someone who can read the history
//   AND signal could still answer a child's open request before its parent; such a client can as well
//   answer the budget question or terminate the run: the budget guards against a runaway agent, and
//   who may write to Temporal is Temporal's authorization (namespaces, mTLS, authorizer plugins).
import { condition, getExternalWorkflowHandle, log, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { callEstimate, childCall, childEnded, boundedClaim, lend, leaseSize, leaseWant, mayCall, openBook, type LeaseBook } from '../domain/budget';
import { ZERO_USAGE, type TokenUsage } from '../domain/usage';
import type { BudgetStage } from './call-gate';
import { rootMessage } from './failures';
import { budgetGrantSignal, BudgetGrantSchema, budgetRequestSignal, BudgetRequestSchema, parsePayload, type BudgetRequestMessage } from './messages';

/**
 * A budget request is taken only within what the parent lent its sender (boundedClaim; the run's
 * side: noteBudgetRequest), S2. Runs recorded before it took the request's word; asked only when
 * that makes a difference, so a run whose requests fit their loans records no marker.
 */
export const BOUNDED_BUDGET_REQUESTS = 'bounded-budget-requests';

/** What a parent lends a child with its input. Absent: the run has no budget. */
export interface LeaseInput {
  tokens: number;
  /** The parent's estimate of one call (the largest it has seen). */
  estimate: number;
}

/** A child's (or the execution phase's) lease: its allowance from its parent, and its own loans to its children. */
export interface ChildLease extends BudgetStage {
  /** The lease to give a child starting now (undefined: no budget). */
  leaseFor(childId: string): LeaseInput | undefined;
  /** A child ended: its loan closes, its usage counts (undefined: it failed; its whole loan counts). */
  childEnded(childId: string, usage: TokenUsage | undefined): void;
  /** Serve requests from these children (the execution phase: its running tasks). */
  serveChildren(isChild: (id: string) => boolean): void;
}

/** Installs the lease of a child workflow (phase, execution, task), given with its input. */
export function installLease(input: LeaseInput | undefined): ChildLease {
  const limited = input !== undefined;
  let book: LeaseBook = limited ? openBook(input.tokens, input.estimate) : openBook(Infinity);
  const parentId = workflowInfo().parent?.workflowId;
  const self = workflowInfo().workflowId;
  let seq = 0;
  let open: { seq: number; want: number } | undefined;
  let calls = 0;
  const waiting = new Map<string, BudgetRequestMessage>();
  /** What running children said they spent (their requests), for the spent this workflow reports up. */
  const childSpent = new Map<string, number>();
  let isChild: ((id: string) => boolean) | undefined;

  setHandler(budgetGrantSignal, (payload: unknown) => {
    const p = parsePayload(BudgetGrantSchema, payload);
    // Only the answer to our own open request, once, and no more than we asked for (see the top).
    if (!p.ok || !open || p.value.seq !== open.seq || p.value.tokens > open.want) {
      log.warn(`ignored budgetGrant: ${p.ok ? `it answers no open request of ${self} within what it asked for` : p.reason}`);
      return;
    }
    open = undefined;
    book = { ...book, allowance: book.allowance + p.value.tokens };
    serve();
  });

  const askParent = (want: number) => {
    if (open || !parentId) return;
    seq += 1;
    open = { seq, want };
    const spent = book.spent + [...childSpent.values()].reduce((n, x) => n + x, 0);
    const msg: BudgetRequestMessage = { from: self, seq, want, largest: book.largest, spent };
    getExternalWorkflowHandle(parentId)
      .signal(budgetRequestSignal, msg)
      .catch((e: unknown) => log.warn(`could not ask ${parentId} for more tokens: ${rootMessage(e)}`));
  };

  const grant = (childId: string, m: BudgetRequestMessage, tokens: number) => {
    book = lend(book, childId, tokens);
    getExternalWorkflowHandle(childId)
      .signal(budgetGrantSignal, { seq: m.seq, tokens })
      .catch((e: unknown) => log.warn(`could not lend ${tokens} tokens to ${childId}: ${rootMessage(e)}`));
  };

  /** Serves waiting children from what is left; asks the parent when that is not enough. */
  const serve = () => {
    for (const [id, m] of [...waiting]) {
      if (!isChild?.(id)) {
        waiting.delete(id);
        continue;
      }
      const size = leaseSize(book, m.want, childCall(m.largest));
      if (size <= 0) break;
      waiting.delete(id);
      grant(id, m, size);
    }
    if (waiting.size) askParent(Math.max(...[...waiting.values()].map((m) => m.want), leaseWant(book)));
  };

  const before = async (): Promise<number> => {
    if (!limited) return 0;
    // Asks again when a grant came but still does not fit a call (never waits on an answered request).
    while (!mayCall(book)) {
      askParent(leaseWant(book));
      // (A workflow started without a parent has nobody to ask: it waits.)
      await condition(() => mayCall(book) || (parentId !== undefined && !open));
    }
    const key = ++calls;
    // Reserved until the call ends, so calls made side by side never share the same tokens.
    book = lend(book, `call-${key}`, callEstimate(book));
    return key;
  };
  const after = (key: number, usage: TokenUsage | undefined) => {
    if (!limited) return;
    book = childEnded(book, `call-${key}`, usage ?? ZERO_USAGE);
    serve();
  };

  return {
    limited,
    before,
    after,
    leaseFor(childId) {
      if (!limited) return undefined;
      const tokens = leaseSize(book, leaseWant(book));
      if (!Number.isFinite(tokens)) return undefined;
      if (tokens > 0) book = lend(book, childId, tokens);
      return { tokens: Math.max(0, tokens), estimate: callEstimate(book) };
    },
    childEnded(childId, usage) {
      if (!limited) return;
      book = childEnded(book, childId, usage);
      childSpent.delete(childId);
      serve();
    },
    serveChildren(f) {
      isChild = f;
      setHandler(budgetRequestSignal, (payload: unknown) => {
        const p = parsePayload(BudgetRequestSchema, payload);
        if (!p.ok || !f(p.value.from)) {
          log.warn(`ignored budgetRequest: ${p.ok ? `${p.value.from} is not a running child of ${self}` : p.reason}`);
          return;
        }
        if (!limited) return;
        // What a child says is taken only within what it was lent, as by the run (noteBudgetRequest).
        const { from, largest, spent } = p.value;
        const bounded = boundedClaim(book.largest, book.lent[from] ?? 0, { largest, spent });
        const taken = { largest: Math.max(book.largest, largest), spent };
        const differs = bounded.largest !== taken.largest || bounded.spent !== taken.spent;
        const use = differs && patched(BOUNDED_BUDGET_REQUESTS) ? bounded : taken;
        book = { ...book, largest: use.largest };
        childSpent.set(from, Math.max(childSpent.get(from) ?? 0, use.spent));
        waiting.set(p.value.from, p.value);
        serve();
      });
    },
  };
}
