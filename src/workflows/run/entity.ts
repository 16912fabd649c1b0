// The run entity (docs/architecture.md, "The workflows of one run"): the run's one RunState, changed only through the pure
// transitions of src/domain/run, and what each of the run's messages does with it. RunWorkflow's
// handlers are one line each, delegating here (the entity pattern of temporalio/samples-typescript
// message-passing/safe-message-handlers). Every change is published: the search attributes, the
// memo and the Web UI's current details.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  log,
  setCurrentDetails,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { z } from 'zod';
import { answerProblem, planChangesMade, type QuestionAnswer } from '../../domain/replan';
import { budgetAnswerProblem } from '../../domain/run/budget-ledger';
import { checklistMemoDue, runChecklist, runDetails } from '../../domain/run/checklist';
import { eventsView, withEvents } from '../../domain/run/events';
import type { RunEventsPage } from '../../domain/run/event-log';
import { activePauses, applyLlmTrouble, displayStatus, isPaused, pauseRun, resumeRun, type PauseApplied } from '../../domain/run/pause';
import { answerQuestion, pendingQuestions } from '../../domain/run/questions';
import type { Applied, RunState } from '../../domain/run/state';
import { decisionsView, inspectionMemo, MEMO_CHECKLIST, memoProgressKey, progressMemo, statusView, type DecisionsView } from '../../domain/run/views';
import { taskWorkflowIdOf, waitingMarkdown } from '../../domain/run/waiting';
import { validateConsultationAnswer } from '../../domain/pacemaker/consultation';
import {
  answerConsultationSignal,
  ClarificationAnswerSchema,
  LlmTroubleSchema,
  parsePayload,
  PauseInputSchema,
  ResumeInputSchema,
  RunAnswerSchema,
  type ClarificationAnswerAck,
  type Parsed,
  type PauseAck,
  type RunStatus,
} from '../messages';
import { PHASE_KEY, REPLAN_COUNT_KEY, STATUS_KEY } from '../search-attributes';

/** Workflow time (deterministic in the sandbox), as the state records it. */
export const isoNow = (): string => new Date().toISOString();

/** What the user asks of the run's pause: pause or resume. */
type PauseChange = 'pause' | 'resume';

const throwIfRefused = (r: { ok: true } | { ok: false; reason: string }): void => {
  if (!r.ok) throw new Error(r.reason);
};

/**
 * An update refused by its handler, after its validator took it: the update fails with the reason.
 * A handler's plain Error would fail the run's workflow task instead, again on every retry (the
 * update comes back with each), so the run would be stuck for good.
 */
const refusedUpdate = (reason: string): ApplicationFailure => ApplicationFailure.create({ type: 'Refused', message: reason, nonRetryable: true });

/**
 * Writes what the run shows outside its history. Each write is a history event carrying
 * the whole memo, so each is written only when what it shows changed, and at most once per
 * workflow activation (RunEntity.apply publishes when the activation's work is done).
 */
class Publisher {
  private searched = '';
  private memoized = '';
  private progress = '';
  private checklist = '';
  private checklistAt = 0;
  private details = '';
  /** Told of every published state (the run's notifications). */
  observer: ((s: RunState) => void) | undefined;

  /** `final`: the run ends or continues as new (everything is written). */
  write(state: RunState, final: boolean): void {
    const status = displayStatus(state);
    const key = `${state.phase}|${status}|${state.counters.total}`;
    if (key !== this.searched) {
      this.searched = key;
      upsertSearchAttributes([
        { key: PHASE_KEY, value: state.phase },
        { key: STATUS_KEY, value: status },
        // V8: the plan changes carried out (a clarification is a question, not a change). The key above
        // keeps the total, so the attributes are written at the same points as before.
        { key: REPLAN_COUNT_KEY, value: planChangesMade(state.counters) },
      ]);
    }
    // What `status` and `decisions` answer, kept in the memo whenever a phase, the status (also
    // PAUSED), a decision, a question or a consultation changes, so a run can be inspected with no worker.
    // A notification given up shows there too (its count; deliveries alone do not rewrite the memo),
    const n = state.notifications;
    // And a delivery that starts or stops waiting, is refused for good or is left at the end.
    const delivery = n && (n.waiting || n.refused || n.left) ? `|${n.waiting ? 'w' : ''}${n.refused ?? 0}/${n.left ?? 0}` : '';
    const memoKey = `${key}|${state.log.records.length}|${state.questions.map((q) => q.status).join()}|${state.consultations.map((c) => c.id).join()}|${n?.failed ?? 0}${delivery}`;
    // And every task that ends, so the memo's progress never lags behind: then only the status and
    // the checklist are written (the decisions did not change; a memo write replaces only the keys
    // it names, and the run's history carries each write whole).
    const progress = memoProgressKey(state);
    // The plan checklist in the memo too, written only when its text changed (each write is a
    // history event; the text is bounded by runChecklist).
    const text = runChecklist(state);
    if (memoKey !== this.memoized || progress !== this.progress) {
      const whole = memoKey !== this.memoized;
      this.memoized = memoKey;
      this.progress = progress;
      this.checklist = text;
      this.checklistAt = Date.now();
      upsertMemo(whole ? inspectionMemo(state) : progressMemo(state));
    } else if (checklistMemoDue({ changed: text !== this.checklist, sinceLastMs: Date.now() - this.checklistAt, final })) {
      this.checklist = text;
      this.checklistAt = Date.now();
      upsertMemo({ [MEMO_CHECKLIST]: text });
    }
    // The Web UI's "Current Details" (answered by a worker; no history event).
    const details = runDetails(state, status, waitingMarkdown(state));
    if (details !== this.details) {
      this.details = details;
      setCurrentDetails(details);
    }
    this.observer?.(state);
  }
}

export class RunEntity {
  private current: RunState;
  private readonly publisher = new Publisher();
  private publishPending = false;
  private resumed: (() => void) | undefined;

  constructor(initial: RunState) {
    this.current = initial;
  }

  get state(): RunState {
    return this.current;
  }

  /** The one way the state changes: a pure transition. */
  apply(t: (s: RunState) => RunState): void {
    // Every change's events join the run's event log (workflow time; no history event).
    this.current = withEvents(this.current, t(this.current), isoNow());
    this.publishLater();
  }

  /** Writes everything at once: the run calls it before it ends or continues as new. */
  publish(): void {
    this.publisher.write(this.current, true);
  }

  onPublish(f: (s: RunState) => void): void {
    this.publisher.observer = f;
  }

  /** Runs on every accepted resume (the run then tells every child again: undoes a pause forged on a child). */
  whenResumed(f: () => void): void {
    this.resumed = f;
  }

  /** Publishes when this activation's work is done: a condition is evaluated only after the microtasks ran. */
  private publishLater(): void {
    if (this.publishPending) return;
    this.publishPending = true;
    let asked = false;
    // Not cancellable: a change made while the run is being cancelled is still published.
    void CancellationScope.nonCancellable(() =>
      condition(() => {
        // false when first asked (condition() evaluates at once), true on the activation's next check
        const ready = asked;
        asked = true;
        return ready;
      }),
    ).then(() => {
      this.publishPending = false;
      this.publisher.write(this.current, false);
    });
  }

  // ---------------------------------------------------------------- the run's public messages
  // Payloads are parsed by their schema, then checked against the state; a refused update throws in
  // its validator (nothing is written to history), a refused signal is logged and changes nothing.

  status(): RunStatus {
    return statusView(this.current);
  }

  decisions(): DecisionsView {
    return decisionsView(this.current);
  }

  /** The `events` query (no history event); any argument that is not a seq reads from the start. */
  events(afterSeq: unknown): RunEventsPage {
    return eventsView(this.current, typeof afterSeq === 'number' ? afterSeq : 0);
  }

  /** answerClarification's validator. */
  refuseAnswer(payload: unknown): void {
    throwIfRefused(this.checkAnswer(payload));
  }

  /**
   * A question answered (validated). Checked again: the update takes effect after the completions
   * of its activation (afterCompletions), and meanwhile another answer may have come in the same
   * activation, or the question timed out; the first answer wins, a later one fails its update.
   */
  answer(a: QuestionAnswer): ClarificationAnswerAck {
    const c = this.checkAnswer(a);
    if (!c.ok) throw refusedUpdate(c.reason);
    this.apply((s) => answerQuestion(s, c.value, isoNow()));
    return { questionId: a.questionId, stillPending: pendingQuestions(this.current).map((q) => q.id) };
  }

  /**
   * An answer read from a reply on the run's issue (its author may write there): checked and
   * recorded exactly as the CLI's (the first answer wins), with who gave it.
   */
  answerFromThread(a: QuestionAnswer, by: string): { ok: true } | { ok: false; reason: string } {
    const c = this.checkAnswer(a);
    if (!c.ok) return c;
    this.apply((s) => answerQuestion(s, c.value, isoNow(), by));
    return { ok: true };
  }

  answerSignalled(payload: unknown): void {
    const c = this.checkAnswer(payload);
    if (c.ok) this.apply((s) => answerQuestion(s, c.value, isoNow()));
    else log.warn(`ignored answerClarificationSignal: ${c.reason}`);
  }

  /**
   * The Web UI's `answer` signal: a question's answer is taken like answerClarificationSignal; a
   * consultation's is checked against the consultation the run knows is open on that task and passed
   * to the task, which takes the first answer from wherever it comes (a later one is ignored there).
   */
  async answerFromWebUi(payload: unknown): Promise<void> {
    const p = parsePayload(RunAnswerSchema, payload);
    if (!p.ok) return log.warn(`ignored answer: ${p.reason}`);
    if ('questionId' in p.value) return this.answerSignalled(p.value);
    const { taskId, choice, guidance, consultationId } = p.value;
    const open = this.current.consultations.find((c) => c.taskId === taskId);
    const answer = { consultationId: open?.id, choice, ...(guidance !== undefined ? { guidance } : {}) };
    const v = consultationId !== undefined && consultationId !== open?.id ? undefined : validateConsultationAnswer(open, answer);
    if (!v?.ok) return log.warn(`ignored answer to task ${taskId}: ${v?.error ?? `consultation "${consultationId}" is not open`}`);
    const task = getExternalWorkflowHandle(taskWorkflowIdOf(`run-${this.current.runId}`, taskId, this.current.phaseRuns.execution ?? 1));
    await task.signal(answerConsultationSignal, answer).catch((e: unknown) => log.warn(`could not pass the answer to task ${taskId}: ${String(e)}`));
  }

  private checkAnswer(payload: unknown): Parsed<QuestionAnswer> {
    const p = parsePayload(ClarificationAnswerSchema, payload);
    const problem = p.ok ? (answerProblem(this.current.questions, p.value) ?? budgetAnswerProblem(this.current, p.value)) : undefined;
    return problem ? { ok: false, reason: problem } : p;
  }

  // Pause / resume. The validator refuses a bad payload or a finished run (with its status); a
  // repeated pause or resume is acknowledged (changed: false).

  /** The validator of `pause` / `resume`. */
  refusePauseOrResume(change: PauseChange, payload: unknown): void {
    throwIfRefused(this.checkPauseOrResume(change, payload));
  }

  /**
   * The run paused or resumed (validated); its acknowledgement. Checked again (the run may have
   * ended since its validator ran, in the same activation): a refusal fails the update.
   */
  pauseOrResume(change: PauseChange, payload: unknown): PauseAck {
    const r = this.checkPauseOrResume(change, payload);
    if (!r.ok) throw refusedUpdate(r.reason);
    return this.paused(r, change === 'resume');
  }

  pauseOrResumeSignalled(change: PauseChange, payload: unknown): void {
    const r = this.checkPauseOrResume(change, payload);
    if (r.ok) this.paused(r, change === 'resume');
    else log.warn(`ignored ${change}Signal: ${r.reason}`);
  }

  private checkPauseOrResume(change: PauseChange, payload: unknown): PauseApplied {
    if (change === 'resume') {
      const p = parsePayload(ResumeInputSchema, payload);
      return p.ok ? resumeRun(this.current) : p;
    }
    const p = parsePayload(PauseInputSchema, payload);
    return p.ok ? pauseRun(this.current, { ...(p.value?.reason ? { reason: p.value.reason } : {}), at: isoNow() }) : p;
  }

  private paused(r: PauseApplied, resumed: boolean): PauseAck {
    if (!r.ok) throw new Error(r.reason);
    if (r.changed) this.apply(() => r.state);
    if (resumed) this.resumed?.();
    const s = this.current;
    const pauses = activePauses(s);
    return { runId: s.runId, status: isPaused(s) ? 'PAUSED' : 'RUNNING', changed: r.changed, ...(pauses[0] ? { pause: pauses[0], pauses } : {}) };
  }

  // ---------------------------------------------------------------- what the run learns from its workflows

  /** What the run read from one of its children, applied only when it fits the run's state. */
  applyRead<T>(name: string, schema: z.ZodType<T>, transition: (s: RunState, m: T) => Applied, payload: unknown): void {
    const p = parsePayload(schema, payload);
    if (p.ok) this.applyParsed(name, transition, p.value);
    else log.warn(`ignored ${name}: ${p.reason}`);
  }

  /** The same for a message parsed already. */
  applyParsed<T>(name: string, transition: (s: RunState, m: T) => Applied, m: T): void {
    const r = transition(this.current, m);
    if (r.ok) this.apply(() => r.state);
    else log.warn(`ignored ${name}: ${r.reason}`);
  }

  /** LLM trouble in any workflow of the run pauses it (outage / rejected access) or ends the outage pause. */
  llmTrouble(payload: unknown): void {
    this.applyRead('llmTrouble', LlmTroubleSchema, (s, m) => applyLlmTrouble(s, m, isoNow()), payload);
  }
}
