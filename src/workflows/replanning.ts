// The run's replanning layer (SPEC §1): asks the replan-decision LLM, applies the pure policy
// (X6/X7), asks the user when the policy says so (X7 confirm, X8 escalate, X14 clarify), records
// every decision (X9), and tells the run where to jump (X3). Counters, the decision log and the
// questions live in `ReplanningState`, which the run carries across continue-as-new.
import { ApplicationFailure, condition, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ReplannerConfig } from '../domain/config';
import {
  answerProblem,
  appendDecision,
  completeDecision,
  emptyCounters,
  emptyDecisionLog,
  escalate,
  evaluateReplanDecision,
  latestDecision,
  loopWarningForPrompt,
  parseYesNo,
  recordReplan,
  truncateText,
  type DecisionLog,
  type DecisionRecord,
  type EscalationStep,
  type EscalationTrigger,
  type PlanSnapshot,
  type PolicyOutcome,
  type Question,
  type QuestionAnswer,
  type QuestionKind,
  type ReplanCounters,
  type ReplanDecision,
  type ReplanType,
} from '../domain/replan';
import type { Phase } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import type { ReplanContext } from '../llm/prompts/replan';
import type { TokenUsage } from '../llm/usage';
import type { ExecutionReplanInput } from './execution';
import { rootMessage } from './failures';
import { answerClarificationSignal, answerClarificationUpdate, decisionsQuery, executionDecisionSignal, type DecisionsView } from './messages';
import { llmActivityOptions, type RunOptions } from './options';

export interface ReplanningState {
  counters: ReplanCounters;
  log: DecisionLog;
  questions: Question[];
  nextQuestion: number;
  /** What the user said (answers, instructions) and assumptions made: told to later prompts. */
  notes: string[];
  /** X8: triggers for which the LLM was already asked for alternatives. */
  alternativesAsked: string[];
  /** The replan under way: completed when its target phase finishes, or failed. */
  inProgress?: InProgress;
}

interface InProgress {
  replanId: string;
  startedMs: number;
  decidedIn: Phase;
  target: Phase;
  decision: ReplanDecision;
  context: ReplanContext;
}

/** X3: where the run goes after a replan decision. */
export interface Jump {
  target: Phase;
  /** Why, for the target phase's prompt. */
  feedback: string;
  type: ReplanType;
  /** The action (task) the decision is about, for a retry. */
  taskId?: string;
  keepsCompletedWork: boolean;
  /** X3: a plan revision's additional actions, which become new tasks. */
  additionalActions?: string[];
}

export function initialReplanningState(): ReplanningState {
  return { counters: emptyCounters(), log: emptyDecisionLog(), questions: [], nextQuestion: 1, notes: [], alternativesAsked: [] };
}

/** How many decisions the prompt's "Replan History" shows. */
const HISTORY_LINES = 6;

export interface ReplanningDeps {
  run: RunRef;
  options: RunOptions;
  config: ReplannerConfig;
  carried?: ReplanningState;
  /** The current plan, for plan_before / plan_after (X9). */
  planSummary: () => PlanSnapshot;
  /** Called after every change a `status` reader would want to see. */
  onChange: () => void;
  addUsage: (u: TokenUsage) => void;
  /** X14: assumptions the run goes on with (nobody answered). */
  addAssumptions: (a: string[]) => void;
}

export function createReplanning(deps: ReplanningDeps) {
  const { config } = deps;
  const s: ReplanningState = deps.carried ?? initialReplanningState();
  const now = () => new Date().toISOString();
  const changed = () => deps.onChange();

  // ---------------------------------------------------------------- answers (X14 Update + Signal)
  const accept = (a: QuestionAnswer) => {
    s.questions = s.questions.map((q) => (q.id === a.questionId ? { ...q, status: 'answered', answer: a.answer.trim(), answeredAt: now() } : q));
    changed();
  };
  const pendingIds = () => s.questions.filter((q) => q.status === 'pending').map((q) => q.id);
  setHandler(
    answerClarificationUpdate,
    (a) => {
      const problem = answerProblem(s.questions, a);
      if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidAnswer');
      accept(a);
      return { questionId: a.questionId, stillPending: pendingIds() };
    },
    {
      validator: (a) => {
        const problem = answerProblem(s.questions, a);
        if (problem) throw new Error(problem);
      },
    },
  );
  setHandler(answerClarificationSignal, (a) => {
    const problem = answerProblem(s.questions, a);
    if (problem) log.warn(`ignored an invalid answerClarificationSignal: ${problem}`);
    else accept(a);
  });
  setHandler(decisionsQuery, (): DecisionsView => ({
    records: s.log.records,
    dropped: s.log.dropped,
    counters: s.counters,
    questions: s.questions,
  }));
  // Decisions the execution phase asked after each action that want no replan: logged here.
  setHandler(executionDecisionSignal, ({ decision, parseError }) => {
    record('execution', decision, { action: 'none', reason: parseError ? `unparseable reply: ${parseError}` : decision.reasoning });
  });

  // ---------------------------------------------------------------- the LLM
  const history = () =>
    s.log.records
      .slice(-HISTORY_LINES)
      .map(
        (r) =>
          `${r.replan_id} after ${r.phase}: ${r.replan_type ?? 'no replan'} → ${r.outcome}${r.override_reason ? ` (${r.override_reason})` : ''}, result ${r.result}`,
      );
  const promptExtras = (): ExecutionReplanInput => {
    const loopWarning = loopWarningForPrompt(s.counters, config);
    return {
      ...(loopWarning ? { loopWarning } : {}),
      ...(s.log.records.length ? { history: history() } : {}),
      ...(s.notes.length ? { userAnswers: s.notes.slice(-10) } : {}),
    };
  };
  const askLlm = async (phase: Phase, context: ReplanContext, escalation?: string) => {
    const r = await proxyActivities<Activities>(
      llmActivityOptions(deps.options, escalation ? `replan alternatives? (${phase})` : `replan? after ${phase}`),
    ).decideReplan({ ...deps.run, ...promptExtras(), ...(escalation ? { escalation } : {}), context });
    deps.addUsage(r.usage);
    return r;
  };

  // ---------------------------------------------------------------- the log
  function record(phase: Phase, decision: ReplanDecision, outcome: PolicyOutcome): DecisionRecord {
    // The plan is worth keeping only when something was proposed (keeps the log small).
    const planBefore = outcome.action === 'none' ? undefined : deps.planSummary();
    const r = appendDecision(s.log, { phase, decision, outcome, timestamp: now(), ...(planBefore ? { planBefore } : {}) });
    s.log = r.log;
    changed();
    log.info(`replan decision ${r.record.replan_id} after ${phase}: ${outcome.action}${r.record.message ? ` — ${r.record.message}` : ''}`);
    return r.record;
  }
  const complete = (id: string, c: Parameters<typeof completeDecision>[2]) => {
    s.log = completeDecision(s.log, id, c);
    changed();
  };

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
    const asked: Question[] = texts.map((text) => ({
      id: `q${s.nextQuestion++}`,
      kind,
      phase,
      replanId,
      text,
      assumptions,
      timeoutMinutes,
      askedAt: now(),
      status: 'pending',
    }));
    s.questions = [...s.questions, ...asked];
    changed();
    const ids = new Set(asked.map((q) => q.id));
    const allAnswered = () => s.questions.every((q) => !ids.has(q.id) || q.status !== 'pending');
    if (timeoutMinutes === null) await condition(allAnswered);
    else await condition(allAnswered, Math.max(1, Math.round(timeoutMinutes * 60_000)));
    s.questions = s.questions.map((q) => (ids.has(q.id) && q.status === 'pending' ? { ...q, status: 'timed_out' } : q));
    changed();
    return s.questions.filter((q) => ids.has(q.id));
  }

  // ---------------------------------------------------------------- outcomes
  type Runnable = Extract<PolicyOutcome, { action: 'replan' | 'clarify' }>;
  /** X5: a replan (or a clarification) is counted when it is carried out. */
  function count(phase: Phase, o: Runnable): void {
    s.counters = recordReplan(s.counters, o.countedAs, o.triggerKey, phase);
    changed();
  }
  /** The replan is under way: its jump back to the target phase (X3). */
  function jump(phase: Phase, o: Runnable, rec: DecisionRecord, d: ReplanDecision, context: ReplanContext, extra = ''): Jump {
    s.inProgress = { replanId: rec.replan_id, startedMs: Date.now(), decidedIn: phase, target: o.targetPhase, decision: d, context };
    return {
      target: o.targetPhase,
      type: o.type,
      keepsCompletedWork: o.keepsCompletedWork,
      feedback: feedbackOf(phase, o.type, d, extra),
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
      s.notes = [...s.notes, `Assumed (no answer to ${qs.map((q) => q.id).join(', ')}): ${assumed.join('; ')}`];
      deps.addAssumptions(assumed);
      complete(rec.replan_id, { result: 'success', overrideReason: 'no_response_assumed', planAfter: { ...deps.planSummary(), note: message } });
      log.info(message);
      return undefined;
    }
    const qa = qs.map((q) =>
      q.status === 'answered' ? `Q: ${q.text}\nA: ${q.answer}` : `Q: ${q.text}\nA: (no answer; assume ${assumed.join('; ')})`,
    );
    s.notes = [...s.notes, ...qa.map((x) => x.replace('\n', ' '))];
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
    const again = evaluateReplanDecision({ phase, decision: d, counters: s.counters, config, userConfirmed: true });
    if (again.action !== 'replan') {
      complete(rec.replan_id, { result: 'skipped', executed: false, overrideReason: `confirmed but ${again.action}` });
      return undefined;
    }
    // Confirmed: the record stays pending until the replan's phase finishes, now as executed.
    s.log = { ...s.log, records: s.log.records.map((r) => (r.replan_id === rec.replan_id ? { ...r, executed: true } : r)) };
    return start(phase, again, rec, d, context);
  }

  async function escalation(
    phase: Phase,
    context: ReplanContext,
    d: ReplanDecision,
    trigger: EscalationTrigger,
    detail: string,
    replanType: ReplanType | undefined,
    key: string,
    replanId: string,
    depth: number,
  ): Promise<Jump | undefined> {
    const base = { trigger, phase, decision: d, detail, config, ...(replanType ? { replanType } : {}) };
    let step: EscalationStep = escalate({
      ...base,
      stage: trigger === 'replan_failed' ? 'failed' : 'refused',
      alternativesAsked: depth > 0 || s.alternativesAsked.includes(key),
    });
    if (step.action === 'ask_llm_alternatives') {
      s.alternativesAsked = [...s.alternativesAsked, key];
      const alt = await askLlm(phase, context, step.prompt);
      return handle(phase, context, alt.value, depth + 1, alt.parseError);
    }
    if (step.action === 'notify_user_and_wait') {
      const [q] = await ask('escalation', phase, replanId, [step.message], step.assumptions, step.waitMinutes);
      if (q?.status === 'answered') {
        s.notes = [...s.notes, `User instruction after a replan could not run: ${q.answer}`];
        return undefined;
      }
      step = escalate({ ...base, stage: 'no_user_response' });
    }
    if (step.action === 'abort') throw ApplicationFailure.nonRetryable(step.message, 'ReplanAborted');
    if (step.action === 'continue_with_assumptions') {
      s.notes = [...s.notes, `Assumed (no answer): ${step.assumptions.join('; ')}`];
      deps.addAssumptions(step.assumptions);
      log.info(step.message);
    }
    return undefined;
  }

  async function handle(phase: Phase, context: ReplanContext, d: ReplanDecision, depth = 0, parseError?: string): Promise<Jump | undefined> {
    const o: PolicyOutcome = parseError
      ? { action: 'none', reason: `unparseable reply: ${parseError}` }
      : evaluateReplanDecision({ phase, decision: d, counters: s.counters, config });
    const rec = record(phase, d, o);
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
        return escalation(phase, context, d, o.reason as EscalationTrigger, o.message, o.type, o.triggerKey, rec.replan_id, depth);
    }
  }

  return {
    state: s,
    /** X1: the decision at the end of `phase` (or the one the execution phase brought back). */
    async afterPhase(phase: Phase, context: ReplanContext, brought?: ReplanDecision): Promise<Jump | undefined> {
      if (!config.replanning.enabled) return undefined;
      if (brought) return handle(phase, context, brought);
      const r = await askLlm(phase, context);
      return handle(phase, context, r.value, 0, r.parseError);
    },
    /** For the execution phase's own per-action prompts. */
    executionPromptInput: promptExtras,
    /** The target phase of the replan under way finished: the replan succeeded. */
    phaseFinished(phase: Phase, planAfter: PlanSnapshot): void {
      const p = s.inProgress;
      if (!p || p.target !== phase) return;
      complete(p.replanId, { result: 'success', durationMs: Date.now() - p.startedMs, planAfter });
      s.inProgress = undefined;
    },
    /** X13: the replan under way failed (its phase threw): record, then escalate. */
    async replanFailed(err: unknown): Promise<{ resumeAfter: Phase; jump?: Jump }> {
      const p = s.inProgress!;
      s.inProgress = undefined;
      const detail = rootMessage(err);
      // The run restores the plan before the replan: that is the plan after, with why.
      const before = s.log.records.find((r) => r.replan_id === p.replanId)?.plan_before ?? { tasks: [] };
      complete(p.replanId, {
        result: 'failure',
        durationMs: Date.now() - p.startedMs,
        planAfter: { ...before, note: `failed: ${truncateText(detail, 500)}` },
      });
      const jump = await escalation(
        p.decidedIn,
        p.context,
        p.decision,
        'replan_failed',
        detail,
        p.decision.replan_type ?? undefined,
        `failed|${p.replanId}`,
        p.replanId,
        0,
      );
      return { resumeAfter: p.decidedIn, ...(jump ? { jump } : {}) };
    },
    inProgress: () => s.inProgress,
    pendingQuestions: () => s.questions.filter((q) => q.status === 'pending'),
    latest: () => latestDecision(s.log),
  };
}

/** What the target phase is told about why it runs again. */
function feedbackOf(phase: Phase, type: ReplanType, d: ReplanDecision, extra: string): string {
  const issues = [...d.issues_found, ...(d.issues_identified ?? []), ...(d.missing_steps ?? []), ...(d.additional_actions ?? [])];
  return [
    `REPLAN (${type}) decided after the ${phase} phase: ${truncateText(d.reasoning, 1500)}`,
    issues.length
      ? `Issues:\n${issues
          .slice(0, 20)
          .map((i) => `- ${truncateText(i, 300)}`)
          .join('\n')}`
      : '',
    d.recommended_actions.length
      ? `Recommended:\n${d.recommended_actions
          .slice(0, 20)
          .map((i) => `- ${truncateText(i, 300)}`)
          .join('\n')}`
      : '',
    extra,
  ]
    .filter(Boolean)
    .join('\n');
}
