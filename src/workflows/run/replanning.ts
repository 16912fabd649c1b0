// The run's replanning layer. After each phase it asks the replan-decision LLM
// (./replanning-llm.ts) and applies the policy of src/domain/replan; it confirms a low-confidence
// replan with the user or asks the LLM's clarification questions (./replanning-questions.ts),
// escalates a wanted replan that cannot run or that failed (./replanning-escalation.ts), records
// every decision and tells the run where to jump.
// Counters, the decision log and the questions are part of the run's one RunState; no handlers
// here: RunWorkflow registers them all.
import { log } from '@temporalio/workflow';
import { decisionOutcome, escalationTrigger, type DecisionRecord, type PolicyOutcome, type ReplanDecision } from '../../domain/replan';
import type { ReplanContext } from '../../domain/replan/prompt-context';
import { countReplan, failReplan, finishReplan, recordReplanDecision, replanJump, startReplan } from '../../domain/run/decisions';
import type { Jump } from '../../domain/run/plan';
import type { Phase } from '../../domain/types';
import { replanFeedback } from '../../llm/prompts/replan-feedback';
import { rootMessage } from '../failures';
import type { ReplanningDeps } from './replanning-entity';
import { escalateReplan, type EscalationCase } from './replanning-escalation';
import { askReplanDecision, promptExtrasOf, type DecisionReply } from './replanning-llm';
import { clarify, confirm } from './replanning-questions';

/** An outcome that runs a replan (a clarification's rerun included). */
type Runnable = Extract<PolicyOutcome, { action: 'replan' | 'clarify' }>;

/**
 * The replanning steps the run calls: they read the run's state and change it only through the
 * transitions of src/domain/run. Every `entity.apply` publishes the state, so none runs idle.
 */
export function createReplanning(deps: ReplanningDeps) {
  const { config, entity } = deps;
  const s = () => entity.state;

  /** Every decision enters the log, whatever comes of it. */
  function record(phase: Phase, decision: ReplanDecision, outcome: PolicyOutcome, context: ReplanContext): DecisionRecord {
    let rec: DecisionRecord | undefined;
    entity.apply((st) => {
      const r = recordReplanDecision(st, { phase, decision, outcome, context, timestamp: new Date().toISOString() });
      rec = r.record;
      return r.state;
    });
    const { replan_id: id, task_id: taskId, message } = rec!;
    log.info(
      `replan decision ${id} after ${phase}${taskId !== undefined ? ` (task ${taskId})` : ''}: ${outcome.action}${message ? ` — ${message}` : ''}`,
    );
    return rec!;
  }

  /** A replan (or a clarification) is counted against its limits when it is carried out. */
  const count = (phase: Phase, o: Runnable) => entity.apply((st) => countReplan(st, o.countedAs, o.triggerKey, phase));

  /** The replan is under way: the run jumps back to its target phase, which is told why. */
  function jump(phase: Phase, o: Runnable, rec: DecisionRecord, d: ReplanDecision, context: ReplanContext, extra = ''): Jump {
    entity.apply((st) =>
      startReplan(st, { replanId: rec.replan_id, startedMs: Date.now(), decidedIn: phase, target: o.targetPhase, decision: d, context }),
    );
    return replanJump({ phase, outcome: o, decision: d, context, feedback: replanFeedback(phase, o.type, d, extra) });
  }

  /**
   * What comes of one decision (`depth` > 0: an alternative the LLM proposed when a replan could not run).
   * `escalate` false: a refused replan ends here (the run asks on its pull request instead).
   */
  async function decide(phase: Phase, context: ReplanContext, reply: DecisionReply, depth = 0, escalate = true): Promise<Jump | undefined> {
    const d = reply.value;
    const o = decisionOutcome({ phase, decision: d, counters: s().counters, config, parseError: reply.parseError });
    const rec = record(phase, d, o, context);
    switch (o.action) {
      case 'none':
        return undefined;
      case 'ignore':
        log.warn(o.message);
        return undefined;
      case 'replan':
        count(phase, o);
        return jump(phase, o, rec, d, context);
      case 'clarify': {
        count(phase, o);
        const answered = await clarify(entity, { phase, replanId: rec.replan_id, outcome: o });
        return answered === undefined ? undefined : jump(phase, o, rec, d, context, answered);
      }
      case 'confirm': {
        const confirmed = await confirm(entity, { phase, replanId: rec.replan_id, decision: d, outcome: o }, config);
        if (!confirmed) return undefined;
        count(phase, confirmed);
        return jump(phase, confirmed, rec, d, context);
      }
      case 'override': {
        const trigger = escalationTrigger(o);
        if (!trigger || !escalate) return undefined;
        const { message: detail, type: replanType, triggerKey } = o;
        return escalation({ phase, context, decision: d, trigger, detail, replanType, triggerKey, replanId: rec.replan_id, depth });
      }
    }
  }

  /** The LLM's alternative is decided like any decision, one level deeper. */
  async function escalation(e: EscalationCase): Promise<Jump | undefined> {
    const end = await escalateReplan(deps, e);
    return end.kind === 'alternative' ? decide(e.phase, e.context, end.reply, e.depth + 1) : undefined;
  }

  return {
    /**
     * The decision at the end of `phase`. The execution phase asks its own decisions (after each
     * action) and brings them in its result: they come here as `brought`, the same single route.
     */
    async afterPhase(
      phase: Phase,
      context: ReplanContext,
      brought?: { decision: ReplanDecision; parseError?: string },
      opts: { escalate?: boolean } = {},
    ): Promise<Jump | undefined> {
      if (!config.replanning.enabled) return undefined;
      if (brought) return decide(phase, context, { value: brought.decision, parseError: brought.parseError }, 0, opts.escalate ?? true);
      return decide(phase, context, await askReplanDecision(deps, phase, context));
    },
    /** For the execution phase's own per-action prompts. */
    executionPromptInput: () => promptExtrasOf(deps),
    /** The target phase of the replan under way finished: the replan succeeded. */
    phaseFinished(phase: Phase): void {
      if (s().inProgress?.target === phase) entity.apply((st) => finishReplan(st, Date.now()));
    },
    /** The replan under way failed (its phase threw): record, then escalate. */
    async replanFailed(err: unknown): Promise<{ resumeAfter: Phase; jump?: Jump }> {
      const p = s().inProgress!;
      const detail = rootMessage(err);
      entity.apply((st) => failReplan(st, detail, Date.now()));
      const jump = await escalation({
        phase: p.decidedIn,
        context: p.context,
        decision: p.decision,
        trigger: 'replan_failed',
        detail,
        replanType: p.decision.replan_type ?? undefined,
        triggerKey: `failed|${p.replanId}`,
        replanId: p.replanId,
        depth: 0,
      });
      return { resumeAfter: p.decidedIn, ...(jump ? { jump } : {}) };
    },
    inProgress: () => s().inProgress,
  };
}
