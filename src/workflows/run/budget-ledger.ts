// The run's side of the token leases (the children's side: ../token-loans.ts). The run is the
// ledger: its book is RunState.budget (limits, loans) and planningUsage (spent), changed only by
// the run's own transitions (src/domain/run/budget-ledger.ts). It lends each phase child an
// allowance with its input, serves the running phase's requests for more, and with nothing left
// pauses with the budget question, whose answer raises the limit or stops the run.
import { condition, getExternalWorkflowHandle, log, patched } from '@temporalio/workflow';
import { callEstimate, childCall, leaseSize, mayCall, tokensLeft, type LeaseBook } from '../../domain/budget';
import {
  applyBudgetAnswer,
  budgetPaused,
  closeLoan,
  lendTokens,
  noteBudgetRequest,
  noteLargestCall,
  noteReportedSpend,
  pauseForBudget,
} from '../../domain/run/budget-ledger';
import type { RunState } from '../../domain/run/state';
import type { TokenUsage } from '../../domain/usage';
import type { BudgetStage } from '../call-gate';
import { BOUNDED_BUDGET_REQUESTS, type LeaseInput } from '../token-loans';
import { rootMessage } from '../failures';
import { budgetGrantSignal, BudgetRequestSchema, parsePayload, type BudgetRequestMessage } from '../messages';

export interface RunLedgerDeps {
  entity: { readonly state: RunState; apply(t: (s: RunState) => RunState): void };
  now: () => string;
  /** The phase child running now (the only one that may ask), if any. */
  currentChild: () => string | undefined;
  /** The user answered "stop": end the run. */
  onStop: () => void;
}

/** The budget stage of the run's call gate (its own replan decisions), and its loans to its phases. */
export interface RunLedger extends BudgetStage {
  leaseFor(childId: string): LeaseInput | undefined;
  /** A phase child ended (its usage already joined planningUsage); undefined: it failed, its loan counts as spent. */
  childEnded(childId: string, usage: TokenUsage | undefined): void;
  /** The budgetRequest signal: the running phase child asks for more (anyone else is ignored). */
  requested(payload: unknown): void;
}

/** The run's side of the leases: its book is RunState.budget (limits, loans) and planningUsage (spent). */
export function startRunLedger(deps: RunLedgerDeps): RunLedger {
  const { entity } = deps;
  const s = () => entity.state;
  const waiting = new Map<string, BudgetRequestMessage>();
  /** The run's book: what the budget leaves after planningUsage, minus the loans. */
  const book = (): LeaseBook => {
    const b = s().budget!;
    return { allowance: tokensLeft(b.limits, s().planningUsage), spent: b.unreported ?? 0, lent: b.lent, largest: b.largest };
  };
  const grant = (childId: string, m: BudgetRequestMessage, tokens: number) => {
    entity.apply((st) => lendTokens(st, childId, tokens));
    getExternalWorkflowHandle(childId)
      .signal(budgetGrantSignal, { seq: m.seq, tokens })
      .catch((e: unknown) => log.warn(`could not lend ${tokens} tokens to ${childId}: ${rootMessage(e)}`));
  };
  const serve = () => {
    if (!s().budget || budgetPaused(s()) || s().status !== 'RUNNING') return;
    for (const [id, m] of [...waiting]) {
      if (id !== deps.currentChild()) {
        waiting.delete(id);
        continue;
      }
      const size = leaseSize(book(), m.want, childCall(m.largest));
      if (size <= 0) {
        entity.apply((st) => pauseForBudget(st, deps.now()));
        return;
      }
      waiting.delete(id);
      grant(id, m, size);
    }
  };

  // The budget question's answer: raise → the loans waiting are served; stop → the run ends.
  const answers = async () => {
    for (;;) {
      await condition(() => applyBudgetAnswer(s()) !== undefined);
      let stopped = false;
      entity.apply((st) => {
        const r = applyBudgetAnswer(st)!;
        stopped = r.stopped;
        return r.state;
      });
      if (stopped) {
        deps.onStop();
        return;
      }
      serve();
    }
  };
  answers().catch(() => undefined);

  const before = async (): Promise<number> => {
    if (!s().budget) return 0;
    // The run's own calls (replan decisions) run between phases: nothing else runs meanwhile.
    while (!mayCall(book())) {
      entity.apply((st) => pauseForBudget(st, deps.now()));
      await condition(() => !budgetPaused(s()) || s().status !== 'RUNNING');
      if (s().status !== 'RUNNING') await condition(() => false);
    }
    return 0;
  };
  const after = (_key: number, usage: TokenUsage | undefined) => {
    // The usage itself joins planningUsage where the caller records it; the estimate learns its size.
    if (usage) entity.apply((st) => noteLargestCall(st, usage.totalTokens));
  };
  const ledger: RunLedger = {
    get limited() {
      return s().budget !== undefined;
    },
    before,
    after,
    leaseFor(childId) {
      if (!s().budget) return undefined;
      const b = book();
      const tokens = leaseSize(b, Infinity);
      if (!Number.isFinite(tokens)) return undefined;
      if (tokens > 0) entity.apply((st) => lendTokens(st, childId, tokens));
      return { tokens: Math.max(0, tokens), estimate: callEstimate(b) };
    },
    childEnded(childId, usage) {
      if (!s().budget) return;
      const perCall = usage && usage.calls > 0 ? Math.ceil(usage.totalTokens / usage.calls) : 0;
      entity.apply((st) => closeLoan(st, childId, perCall, usage === undefined));
      waiting.delete(childId);
    },
    requested(payload) {
      const p = parsePayload(BudgetRequestSchema, payload);
      if (!p.ok || p.value.from !== deps.currentChild()) {
        log.warn(`ignored budgetRequest: ${p.ok ? `${p.value.from} is not the run's running phase` : p.reason}`);
        return;
      }
      if (!s().budget) return;
      const { from, largest, spent } = p.value;
      const bounded = noteBudgetRequest(s(), from, largest, spent);
      const taken = noteReportedSpend(noteLargestCall(s(), largest), from, spent);
      const differs = JSON.stringify(bounded.budget) !== JSON.stringify(taken.budget);
      entity.apply(() => (differs && patched(BOUNDED_BUDGET_REQUESTS) ? bounded : taken));
      waiting.set(p.value.from, p.value);
      serve();
    },
  };
  return ledger;
}
