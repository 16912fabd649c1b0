// The run's replanning layer (SPEC §1): asks the replan-decision LLM, applies the pure policy
// (X6/X7), asks the user when the policy says so (X7 confirm, X8 escalate, X14 clarify), records
// every decision (X9), and tells the run where to jump (X3). Counters, the decision log and the
// questions are part of the run's one RunState (src/domain/run/state).
import { ApplicationFailure, condition, log, proxyActivities } from '@temporalio/workflow';
import type { ReplannerConfig } from '../domain/config';
import {
  escalate,
  evaluateReplanDecision,
  loopWarningForPrompt,
  parseYesNo,
  type CompletionInput,
  type DecisionRecord,
  type EscalationStep,
  type EscalationTrigger,
  type PolicyOutcome,
  type Question,
  type QuestionKind,
  type ReplanDecision,
  type ReplanType,
} from '../domain/replan';
import { addAssumptions, planSummary, type Jump } from '../domain/run/plan';
import {
  addNotes,
  completeReplan,
  countReplan,
  endReplan,
  markAlternativesAsked,
  markExecuted,
  recordDecision,
  startReplan,
} from '../domain/run/decisions';
import { addPlanningUsage } from '../domain/run/phases';
import { allAnswered, askQuestions, timeOutQuestions } from '../domain/run/questions';
import { isPaused } from '../domain/run/pause';
import type { RunState } from '../domain/run/state';
import type { Phase } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import type { ReplanContext } from '../domain/replan/prompt-context';
import type { ExecutionReplanInput } from './execution';
import { rootMessage } from './failures';
import { llmActivityOptions, type RunOptions } from './options';
import type { Budgeted } from './budget-lease';
import { touchesWorkspace } from '../domain/workspace-host';
import { gateOn, type PauseGate } from './pause-gate';
import { clipCounted } from '../domain/text';

export type { Jump } from '../domain/run/plan';

/** How many decisions the prompt's "Replan History" shows. */
const HISTORY_LINES = 6;

/** The run entity as the replanning layer sees it: the one state, changed only by transitions. */
export interface RunEntity {
  readonly state: RunState;
  apply(t: (s: RunState) => RunState): void;
}

export interface ReplanningDeps {
  run: RunRef;
  options: RunOptions;
  config: ReplannerConfig;
  entity: RunEntity;
  /** O1/O2: the run's gate: no call starts while paused, and LLM trouble pauses the run instead of failing. */
  gate?: PauseGate;
  /** O3: the run's budget ledger; every replan-decision call waits until it fits. */
  budget?: Pick<Budgeted, 'before' | 'after' | 'limited'>;
}

/**
 * The replanning steps the run calls: they read the run's state and change it only through the
 * transitions of src/domain/run/state. No handlers here: RunWorkflow registers them all.
 */
export function createReplanning(deps: ReplanningDeps) {
  const { config, entity } = deps;
  const s = () => entity.state;
  const now = () => new Date().toISOString();

  // ---------------------------------------------------------------- the LLM
  const history = () =>
    s()
      .log.records.slice(-HISTORY_LINES)
      .map(
        (r) =>
          `${r.replan_id} after ${r.phase}: ${r.replan_type ?? 'no replan'} → ${r.outcome}${r.override_reason ? ` (${r.override_reason})` : ''}, result ${r.result}`,
      );
  const promptExtras = (): ExecutionReplanInput => {
    const loopWarning = loopWarningForPrompt(s().counters, config);
    return {
      ...(loopWarning ? { loopWarning } : {}),
      ...(s().log.records.length ? { history: history() } : {}),
      ...(s().notes.length ? { userAnswers: s().notes.slice(-10) } : {}),
    };
  };
  const askLlm = async (phase: Phase, context: ReplanContext, escalation?: string) => {
    // O1: no LLM call starts while the run is paused; O2: an LLM outage pauses the run.
    const gate = deps.gate ?? gateOn(() => isPaused(s()));
    await gate.ready();
    // O3: and none starts that the budget cannot pay for (the run pauses with its budget question).
    const budgeted = deps.budget?.limited === true;
    const key = budgeted ? await deps.budget!.before() : 0;
    const r = await gate
      .gated(
        proxyActivities<Activities>(
          llmActivityOptions(
            deps.options,
            escalation ? `replan alternatives? (${phase})` : `replan? after ${phase}`,
            // The goal phase's decision lists the workspace (decideReplan): on its host.
            touchesWorkspace('decideReplan', {
              instructionFile: deps.run.instructionFile !== undefined,
              listsWorkspace: context.phase === 'goal_understanding' && context.workspaceListing === undefined,
            }),
          ),
        ),
      )
      .decideReplan({ ...deps.run, ...promptExtras(), ...(escalation ? { escalation } : {}), context });
    entity.apply((st) => addPlanningUsage(st, r.usage));
    if (budgeted) deps.budget!.after(key, r.usage);
    return r;
  };

  // ---------------------------------------------------------------- the log
  function record(phase: Phase, decision: ReplanDecision, outcome: PolicyOutcome, context: ReplanContext): DecisionRecord {
    // Every execution decision names the task it was about.
    const taskId = context.phase === 'execution' ? context.executed.taskId : undefined;
    // The plan is worth keeping only when something was proposed (keeps the log small).
    const planBefore = outcome.action === 'none' ? undefined : planSummary(s());
    let rec: DecisionRecord | undefined;
    entity.apply((st) => {
      const r = recordDecision(st, {
        phase,
        decision,
        outcome,
        timestamp: now(),
        ...(planBefore ? { planBefore } : {}),
        ...(taskId !== undefined ? { taskId } : {}),
      });
      rec = r.record;
      return r.state;
    });
    const r = { record: rec! };
    log.info(
      `replan decision ${r.record.replan_id} after ${phase}${taskId !== undefined ? ` (task ${taskId})` : ''}: ${outcome.action}${r.record.message ? ` — ${r.record.message}` : ''}`,
    );
    return r.record;
  }
  const complete = (id: string, c: CompletionInput) => entity.apply((st) => completeReplan(st, id, c));

  // ---------------------------------------------------------------- questions
  /** Asks the user and waits durably for all answers or the timeout; unanswered ones time out. */
  async function ask(
    kind: QuestionKind,
    phase: Phase,
    replanId: string,
    texts: string[],
    assumptions: string[],
    timeoutMinutes: number | null,
  ): Promise<Question[]> {
    let ids: string[] = [];
    entity.apply((st) => {
      const r = askQuestions(st, { kind, phase, replanId, texts, assumptions, timeoutMinutes, askedAt: now() });
      ids = r.ids;
      return r.state;
    });
    // Answers arrive through the run's answerClarification handlers, which change the state.
    const answered = () => allAnswered(s(), ids);
    if (timeoutMinutes === null) await condition(answered);
    else await condition(answered, Math.max(1, Math.round(timeoutMinutes * 60_000)));
    entity.apply((st) => timeOutQuestions(st, ids));
    return s().questions.filter((q) => ids.includes(q.id));
  }

  // ---------------------------------------------------------------- outcomes
  type Runnable = Extract<PolicyOutcome, { action: 'replan' | 'clarify' }>;
  /** X5: a replan (or a clarification) is counted when it is carried out. */
  function count(phase: Phase, o: Runnable): void {
    entity.apply((st) => countReplan(st, o.countedAs, o.triggerKey, phase));
  }
  /** The replan is under way: its jump back to the target phase (X3). */
  function jump(phase: Phase, o: Runnable, rec: DecisionRecord, d: ReplanDecision, context: ReplanContext, extra = ''): Jump {
    entity.apply((st) =>
      startReplan(st, { replanId: rec.replan_id, startedMs: Date.now(), decidedIn: phase, target: o.targetPhase, decision: d, context }),
    );
    return {
      target: o.targetPhase,
      type: o.type,
      keepsCompletedWork: o.keepsCompletedWork,
      feedback: feedbackOf(phase, o.type, d, extra),
      reason: clipCounted(d.reasoning, 300),
      ...(context.phase === 'execution' ? { taskId: context.executed.taskId } : {}),
      ...(o.type === 'plan_revision' && d.additional_actions?.length ? { additionalActions: d.additional_actions } : {}),
    };
  }
  function start(phase: Phase, o: Runnable, rec: DecisionRecord, d: ReplanDecision, context: ReplanContext): Jump {
    count(phase, o);
    return jump(phase, o, rec, d, context);
  }

  async function clarify(
    phase: Phase,
    o: Extract<PolicyOutcome, { action: 'clarify' }>,
    rec: DecisionRecord,
    d: ReplanDecision,
    context: ReplanContext,
  ): Promise<Jump | undefined> {
    count(phase, o);
    const qs = await ask('clarification', phase, rec.replan_id, o.questions, o.assumptions, o.autoAssume ? o.timeoutMinutes : null);
    const answered = qs.filter((q) => q.status === 'answered');
    const assumed = o.assumptions.length ? o.assumptions : ['the most common interpretation of the instruction'];
    if (answered.length === 0) {
      // X14: nobody answered; go on with the LLM's assumptions, and say so.
      const message = `No answer within ${o.timeoutMinutes} min; continuing on these assumptions: ${assumed.join('; ')}`;
      entity.apply((st) =>
        addAssumptions(addNotes(st, [`Assumed (no answer to ${qs.map((q) => q.id).join(', ')}): ${assumed.join('; ')}`]), assumed),
      );
      complete(rec.replan_id, { result: 'success', overrideReason: 'no_response_assumed', planAfter: planSummary(s(), message) });
      log.info(message);
      return undefined;
    }
    const qa = qs.map((q) =>
      q.status === 'answered' ? `Q: ${q.text}\nA: ${q.answer}` : `Q: ${q.text}\nA: (no answer; assume ${assumed.join('; ')})`,
    );
    entity.apply((st) =>
      addNotes(
        st,
        qa.map((x) => x.replace('\n', ' ')),
      ),
    );
    return jump(phase, o, rec, d, context, `THE USER ANSWERED:\n${qa.join('\n')}`);
  }

  async function confirm(
    phase: Phase,
    o: Extract<PolicyOutcome, { action: 'confirm' }>,
    rec: DecisionRecord,
    d: ReplanDecision,
    context: ReplanContext,
  ): Promise<Jump | undefined> {
    const ga = config.replanning.goal_understanding;
    const [q] = await ask(
      'confirmation',
      phase,
      rec.replan_id,
      [`${o.message} (answer yes or no)`],
      ['the current plan is kept'],
      ga.auto_assume_on_no_response ? ga.auto_assume_timeout_minutes : null,
    );
    const yes = q?.status === 'answered' && parseYesNo(q.answer ?? '') === true;
    if (!yes) {
      complete(rec.replan_id, { result: 'skipped', executed: false, overrideReason: q?.status === 'answered' ? 'user_declined' : 'no_confirmation' });
      return undefined;
    }
    const again = evaluateReplanDecision({ phase, decision: d, counters: s().counters, config, userConfirmed: true });
    if (again.action !== 'replan') {
      complete(rec.replan_id, { result: 'skipped', executed: false, overrideReason: `confirmed but ${again.action}` });
      return undefined;
    }
    // Confirmed: the record stays pending until the replan's phase finishes, now as executed.
    entity.apply((st) => markExecuted(st, rec.replan_id));
    return start(phase, again, rec, d, context);
  }

  async function escalation(e: EscalationCase): Promise<Jump | undefined> {
    const { phase, context, decision: d, trigger, detail, replanType, triggerKey: key, replanId, depth } = e;
    const base = { trigger, phase, decision: d, detail, config, ...(replanType ? { replanType } : {}) };
    let step: EscalationStep = escalate({
      ...base,
      stage: trigger === 'replan_failed' ? 'failed' : 'refused',
      alternativesAsked: depth > 0 || s().alternativesAsked.includes(key),
    });
    if (step.action === 'ask_llm_alternatives') {
      entity.apply((st) => markAlternativesAsked(st, key));
      const alt = await askLlm(phase, context, step.prompt);
      return handle(phase, context, alt.value, depth + 1, alt.parseError);
    }
    if (step.action === 'notify_user_and_wait') {
      const [q] = await ask('escalation', phase, replanId, [step.message], step.assumptions, step.waitMinutes);
      if (q?.status === 'answered') {
        entity.apply((st) => addNotes(st, [`User instruction after a replan could not run: ${q.answer}`]));
        return undefined;
      }
      step = escalate({ ...base, stage: 'no_user_response' });
    }
    if (step.action === 'abort') throw ApplicationFailure.nonRetryable(step.message, 'ReplanAborted');
    if (step.action === 'continue_with_assumptions') {
      const assumed = step.assumptions;
      entity.apply((st) => addAssumptions(addNotes(st, [`Assumed (no answer): ${assumed.join('; ')}`]), assumed));
      log.info(step.message);
    }
    return undefined;
  }

  async function handle(phase: Phase, context: ReplanContext, d: ReplanDecision, depth = 0, parseError?: string): Promise<Jump | undefined> {
    const o: PolicyOutcome = parseError
      ? { action: 'none', reason: `unparseable reply: ${parseError}` }
      : evaluateReplanDecision({ phase, decision: d, counters: s().counters, config });
    const rec = record(phase, d, o, context);
    switch (o.action) {
      case 'none':
        return undefined;
      case 'ignore':
        log.warn(o.message);
        return undefined;
      case 'replan':
        return start(phase, o, rec, d, context);
      case 'clarify':
        return clarify(phase, o, rec, d, context);
      case 'confirm':
        return confirm(phase, o, rec, d, context);
      case 'override':
        if (!o.escalate) return undefined;
        return escalation({
          phase,
          context,
          decision: d,
          trigger: o.reason as EscalationTrigger,
          detail: o.message,
          replanType: o.type,
          triggerKey: o.triggerKey,
          replanId: rec.replan_id,
          depth,
        });
    }
  }

  return {
    /**
     * X1: the decision at the end of `phase`. The execution phase asks its own decisions (after each
     * action) and brings them in its result: they come here as `brought`, the same single route.
     */
    async afterPhase(phase: Phase, context: ReplanContext, brought?: { decision: ReplanDecision; parseError?: string }): Promise<Jump | undefined> {
      if (!config.replanning.enabled) return undefined;
      if (brought) return handle(phase, context, brought.decision, 0, brought.parseError);
      const r = await askLlm(phase, context);
      return handle(phase, context, r.value, 0, r.parseError);
    },
    /** For the execution phase's own per-action prompts. */
    executionPromptInput: promptExtras,
    /** The target phase of the replan under way finished: the replan succeeded. */
    phaseFinished(phase: Phase): void {
      const p = s().inProgress;
      if (!p || p.target !== phase) return;
      const planAfter = planSummary(s());
      entity.apply((st) => endReplan(completeReplan(st, p.replanId, { result: 'success', durationMs: Date.now() - p.startedMs, planAfter })));
    },
    /** X13: the replan under way failed (its phase threw): record, then escalate. */
    async replanFailed(err: unknown): Promise<{ resumeAfter: Phase; jump?: Jump }> {
      const p = s().inProgress!;
      const detail = rootMessage(err);
      // The run restores the plan before the replan: that is the plan after, with why.
      const before = s().log.records.find((r) => r.replan_id === p.replanId)?.plan_before ?? { tasks: [] };
      entity.apply((st) =>
        completeReplan(endReplan(st), p.replanId, {
          result: 'failure',
          durationMs: Date.now() - p.startedMs,
          planAfter: { ...before, note: `failed: ${clipCounted(detail, 500)}` },
        }),
      );
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

/** X8 / X13: a replan that cannot run (a limit refused it) or failed, as escalation walks it through. */
interface EscalationCase {
  phase: Phase;
  context: ReplanContext;
  decision: ReplanDecision;
  trigger: EscalationTrigger;
  /** The override message or the failure detail. */
  detail: string;
  replanType: ReplanType | undefined;
  /** The LLM is asked for alternatives once per trigger key. */
  triggerKey: string;
  replanId: string;
  /** 0: the first decision; 1 and more: an alternative the LLM proposed. */
  depth: number;
}

/** What the target phase is told about why it runs again. */
function feedbackOf(phase: Phase, type: ReplanType, d: ReplanDecision, extra: string): string {
  const issues = [...d.issues_found, ...(d.issues_identified ?? []), ...(d.missing_steps ?? []), ...(d.additional_actions ?? [])];
  return [
    `REPLAN (${type}) decided after the ${phase} phase: ${clipCounted(d.reasoning, 1500)}`,
    issues.length
      ? `Issues:\n${issues
          .slice(0, 20)
          .map((i) => `- ${clipCounted(i, 300)}`)
          .join('\n')}`
      : '',
    d.recommended_actions.length
      ? `Recommended:\n${d.recommended_actions
          .slice(0, 20)
          .map((i) => `- ${clipCounted(i, 300)}`)
          .join('\n')}`
      : '',
    extra,
  ]
    .filter(Boolean)
    .join('\n');
}
