// The run's event log (V2), what `watch` and the demo print. Bounded and sequence-numbered, kept in
// the run's state (carried across continue-as-new, so sequence numbers never restart) and read by
// the `events` query with a cursor: every event exactly once, in order, or "N events dropped" when
// the reader fell behind the window. The events are not written anywhere by themselves (no history
// event, no memo write): they are derived from what the run's state already records, by comparing
// the state before and after each change (runEventsBetween), so no call site can forget one.
import { newGitNotes } from '../git/run-git';
import { TaskState, type Phase } from '../types';
import type { DecisionRecord } from '../replan/decision-log';
import { runLanguage } from '../language';
import { decisionFactsOf } from '../words/decisions';
import { clipLine } from '../text';

/** The newest events the run keeps (a reader polling every second never falls this far behind). */
export const MAX_RUN_EVENTS = 300;
/** Events one `events` query answers at most (the reader asks again from the last one). */
export const MAX_EVENTS_PER_READ = 200;
const TEXT_CHARS = 300;

/** An event's text: one line of at most `max` characters (absent stays absent). */
const lineOf = (s: string | undefined, max = TEXT_CHARS): string | undefined => (s === undefined ? undefined : clipLine(s, max));

export type { RunEvent, RunEventBody } from './event-types';
import type { RunEvent, RunEventBody } from './event-types';

export interface RunEventLog {
  /** The seq the next event gets (1 + the last one's). */
  nextSeq: number;
  /** The newest MAX_RUN_EVENTS events, oldest first. */
  events: RunEvent[];
}

export const emptyEventLog = (): RunEventLog => ({ nextSeq: 1, events: [] });

/** Appends events (numbered in order, stamped `time`) and drops the oldest beyond `max`. */
export function appendRunEvents(log: RunEventLog | undefined, bodies: readonly RunEventBody[], time: string, max = MAX_RUN_EVENTS): RunEventLog {
  const l = log ?? emptyEventLog();
  if (!bodies.length) return l;
  const added = bodies.map((b, i): RunEvent => ({ ...b, seq: l.nextSeq + i, time }));
  return { nextSeq: l.nextSeq + added.length, events: [...l.events, ...added].slice(-max) };
}

/** What the `events` query answers: the events after the reader's cursor, and what it missed. */
export interface RunEventsPage {
  events: RunEvent[];
  /** The oldest seq the run still keeps (nextSeq when it keeps none). */
  firstSeq: number;
  /** The seq the run's next event will get: the reader is up to date once its cursor is nextSeq − 1. */
  nextSeq: number;
  /** Events after the cursor the run no longer keeps (the reader fell behind the window). */
  dropped: number;
  /** More events follow this page (ask again from the last one). */
  more: boolean;
}

/** The events after seq `afterSeq` (0: from the start), at most `limit`. A cursor beyond the log counts as up to date. */
export function runEventsAfter(log: RunEventLog | undefined, afterSeq: number, limit = MAX_EVENTS_PER_READ): RunEventsPage {
  const l = log ?? emptyEventLog();
  const cursor = Number.isSafeInteger(afterSeq) && afterSeq > 0 ? afterSeq : 0;
  const firstSeq = l.events[0]?.seq ?? l.nextSeq;
  const after = l.events.filter((e) => e.seq > cursor);
  const page = after.slice(0, Math.max(1, Math.min(limit, MAX_EVENTS_PER_READ)));
  return {
    events: page,
    firstSeq,
    nextSeq: l.nextSeq,
    dropped: Math.max(0, Math.min(firstSeq, l.nextSeq) - 1 - cursor),
    more: after.length > page.length,
  };
}

// ---------------------------------------------------------------- events from a state change

/**
 * A replan decision the execution phase asked after a task, as the run reads it from the phase while
 * it still runs (with its task states): told at once, recorded by the run's policy when the phase ends.
 */
export interface ExecutionDecisionNote {
  taskId: string;
  /** The LLM wants a replan (the policy decides what becomes of it when the phase ends). */
  replan: boolean;
  confidence: number;
  replanType?: string;
  reasoning?: string;
}

export const MAX_NOTES_PER_READ = 50;

/** The note of a decision the execution phase asked (a reply that could not be parsed counts as no replan). */
export function executionDecisionNote(
  taskId: string,
  d: { replan_needed: boolean; confidence: number; replan_type?: string | null; reasoning?: string },
  parseError?: string,
): ExecutionDecisionNote {
  const replan = !parseError && d.replan_needed;
  const reasoning = lineOf(parseError ? `the reply could not be read: ${parseError}` : d.reasoning);
  return {
    taskId,
    replan,
    confidence: d.confidence,
    ...(replan && d.replan_type ? { replanType: d.replan_type } : {}),
    ...(reasoning ? { reasoning } : {}),
  };
}

/** The parts of the run's state events are read from (RunState has them all). */
export interface EventSource {
  status: string;
  error?: string;
  phaseRuns: Partial<Record<Phase, number>>;
  tasks: readonly { id: string; title: string; state: TaskState; summary?: string }[];
  log: {
    records: readonly Pick<
      DecisionRecord,
      | 'replan_id'
      | 'phase'
      | 'task_id'
      | 'about'
      | 'llm_decision'
      | 'confidence'
      | 'executed'
      | 'result'
      | 'outcome'
      | 'replan_type'
      | 'target_phase'
      | 'message'
      | 'override_reason'
    >[];
  };
  questions: readonly {
    id: string;
    kind: string;
    phase: Phase;
    text: string;
    assumptions: string[];
    status: string;
    answer?: string;
    closedWhy?: string;
  }[];
  consultations: readonly {
    id: string;
    taskId: string;
    kind: string;
    message: string;
    messageJa?: string;
    choices?: readonly { number: number; label: string; ja: string; needsText: boolean }[];
  }[];
  /** The run's instruction, whose language a consultation is shown in. */
  instruction?: string;
  notifications?: {
    target: string;
    delivered: number;
    failed: number;
    lastError?: string;
    waiting?: { until: string };
    refused?: number;
    refusal?: string;
    left?: number;
  };
  /** Every pause that holds (activePauses). */
  pauses: readonly { kind: string; by: string; reason?: string; since: string }[];
  /** The running (or last) execution round's decisions read from the phase while it ran. */
  executionDecisions?: readonly ExecutionDecisionNote[];
  /** G1–G5: what the run said about its branch and pull request. */
  git?: { said?: number; notes?: readonly string[] };
}

const FINISHED_RUN = ['DONE', 'BLOCKED', 'FAILED', 'CANCELLED', 'STOPPED'];

/**
 * What happened between two states of the run, in the order a reader should see it: phase entries,
 * then task transitions, decisions (new ones, then results of earlier ones), questions,
 * consultations, notifications, pauses and resumes, and the run's end.
 */
export function runEventsBetween(prev: EventSource, next: EventSource): RunEventBody[] {
  return [
    ...phaseEvents(prev, next),
    ...taskEvents(prev, next),
    ...decisionEvents(prev, next),
    ...questionEvents(prev, next),
    ...consultationEvents(prev, next),
    ...notificationEvents(prev, next),
    ...pauseEvents(prev, next),
    ...newGitNotes(prev.git, next.git).map((text): RunEventBody => ({ kind: 'git', text })),
    ...endEvents(prev, next),
  ];
}

function phaseEvents(prev: EventSource, next: EventSource): RunEventBody[] {
  const out: RunEventBody[] = [];
  for (const [phase, n] of Object.entries(next.phaseRuns) as [Phase, number][]) {
    const was = prev.phaseRuns[phase] ?? 0;
    for (let k = was + 1; k <= n; k++) out.push({ kind: 'phase', phase, n: k });
  }
  return out;
}

function taskEvents(prev: EventSource, next: EventSource): RunEventBody[] {
  const out: RunEventBody[] = [];
  const tasksBefore = new Map(prev.tasks.map((t) => [t.id, t.state]));
  for (const t of next.tasks) {
    if (tasksBefore.get(t.id) === t.state) continue;
    const summary = t.state !== TaskState.RUNNING && t.state !== TaskState.READY ? lineOf(t.summary) : undefined;
    out.push({ kind: 'task', taskId: t.id, title: clipLine(t.title, 200), state: t.state, ...(summary ? { summary } : {}) });
  }
  return out;
}

/** Decisions told while the execution phase runs, new decision records, then results of earlier ones. */
function decisionEvents(prev: EventSource, next: EventSource): RunEventBody[] {
  const out: RunEventBody[] = [];
  // Decisions of the execution phase told while it runs (a new round starts its list again).
  const sameRound = (prev.phaseRuns.execution ?? 0) === (next.phaseRuns.execution ?? 0);
  const told = next.executionDecisions ?? [];
  for (const d of told.slice(sameRound ? (prev.executionDecisions?.length ?? 0) : 0)) {
    out.push({
      kind: 'decision',
      phase: 'execution',
      taskId: d.taskId,
      outcome: d.replan ? 'replan wanted' : 'none',
      ...(d.replanType ? { replanType: d.replanType } : {}),
      confidence: d.confidence,
      executed: false,
      result: 'pending',
      ...(d.reasoning ? { reasoning: d.reasoning } : {}),
      noop: !d.replan,
    });
  }
  const toldAbout = new Set(told.map((d) => d.taskId));

  const recordsBefore = new Map(prev.log.records.map((r) => [r.replan_id, r]));
  const results: RunEventBody[] = [];
  for (const r of next.log.records) {
    const was = recordsBefore.get(r.replan_id);
    if (!was && r.phase === 'execution' && r.task_id !== undefined && toldAbout.has(r.task_id)) {
      // Told while the phase ran: now its record (id and what the policy did).
      const outcome = r.outcome ?? (r.executed ? 'replan' : 'none');
      results.push({
        kind: 'decision_result',
        replanId: r.replan_id,
        taskId: r.task_id,
        outcome,
        ...(r.replan_type ? { replanType: r.replan_type } : {}),
        executed: r.executed,
        result: r.result,
        ...(r.override_reason ? { overrideReason: r.override_reason } : {}),
        noop: outcome === 'none',
      });
    } else if (!was) {
      const reasoning = lineOf(typeof r.llm_decision.reasoning === 'string' ? r.llm_decision.reasoning : undefined);
      const message = lineOf(r.message);
      const outcome = r.outcome ?? (r.executed ? 'replan' : 'none');
      out.push({
        kind: 'decision',
        replanId: r.replan_id,
        phase: r.phase,
        ...(r.task_id !== undefined ? { taskId: r.task_id } : {}),
        ...(r.about ? { about: r.about } : {}),
        outcome,
        ...(r.replan_type ? { replanType: r.replan_type } : {}),
        ...(r.target_phase ? { targetPhase: r.target_phase } : {}),
        confidence: r.confidence,
        executed: r.executed,
        result: r.result,
        ...(reasoning ? { reasoning } : {}),
        ...(message ? { message } : {}),
        ...(r.override_reason ? { overrideReason: r.override_reason } : {}),
        noop: outcome === 'none',
      });
    } else if (was.result !== r.result || was.executed !== r.executed) {
      // V8: what came of it, so the result line says it in words.
      const { targetPhase: _target, ...facts } = decisionFactsOf(r);
      results.push({
        kind: 'decision_result',
        replanId: r.replan_id,
        ...(r.task_id !== undefined ? { taskId: r.task_id } : {}),
        ...(r.about ? { about: r.about } : {}),
        ...facts,
        ...(r.target_phase ? { targetPhase: r.target_phase } : {}),
        noop: false,
      });
    }
  }
  out.push(...results);
  return out;
}

function questionEvents(prev: EventSource, next: EventSource): RunEventBody[] {
  const out: RunEventBody[] = [];
  const questionsBefore = new Map(prev.questions.map((q) => [q.id, q.status]));
  for (const q of next.questions) {
    const was = questionsBefore.get(q.id);
    if (was === undefined) {
      out.push({
        kind: 'question',
        questionId: q.id,
        questionKind: q.kind,
        phase: q.phase,
        text: clipLine(q.text, 1000),
        assumptions: q.assumptions.map((a) => clipLine(a, TEXT_CHARS)),
      });
    }
    if (q.status !== 'pending' && (was === undefined || was === 'pending')) {
      const status = q.status === 'answered' || q.status === 'timed_out' || q.status === 'closed' ? q.status : 'withdrawn';
      const told = { ...(q.answer !== undefined ? { answer: clipLine(q.answer, TEXT_CHARS) } : {}), ...(q.closedWhy ? { why: q.closedWhy } : {}) };
      out.push({ kind: 'question_closed', questionId: q.id, status, ...told });
    }
  }
  return out;
}

function consultationEvents(prev: EventSource, next: EventSource): RunEventBody[] {
  const out: RunEventBody[] = [];
  const openBefore = new Set(prev.consultations.map((c) => c.id));
  const openNow = new Set(next.consultations.map((c) => c.id));
  const language = runLanguage(next.instruction ?? '');
  for (const c of next.consultations) {
    if (openBefore.has(c.id)) continue;
    // V9: the situation and the choices in the run's language; the lines of the situation kept.
    const message = (language === 'ja' && c.messageJa ? c.messageJa : c.message).slice(0, 1000);
    const choices = (c.choices ?? []).map((x) => ({
      number: x.number,
      label: clipLine(language === 'ja' ? x.ja : x.label, 200),
      needsText: x.needsText,
    }));
    out.push({ kind: 'consultation', consultationId: c.id, taskId: c.taskId, consultationKind: c.kind, message, language, choices });
  }
  for (const c of prev.consultations) if (!openNow.has(c.id)) out.push({ kind: 'consultation_closed', consultationId: c.id, taskId: c.taskId });
  return out;
}

/**
 * Deliveries to the run's issue: one event when deliveries go on (verbose), when a wait starts
 * (with its error and until when), when a notification is refused for good, and what the run's end
 * left undelivered.
 */
function notificationEvents(prev: EventSource, next: EventSource): RunEventBody[] {
  const n0 = prev.notifications;
  const n1 = next.notifications;
  if (!n1) return [];
  const base = { kind: 'notification' as const, target: n1.target, delivered: n1.delivered, failed: n1.failed };
  const error = (e: string | undefined) => (e ? { error: clipLine(e, TEXT_CHARS) } : {});
  const out: RunEventBody[] = [];
  if ((n1.refused ?? 0) > (n0?.refused ?? 0)) out.push({ ...base, refused: n1.refused!, ...error(n1.refusal) });
  if (n1.waiting && !n0?.waiting) out.push({ ...base, waitingUntil: n1.waiting.until, ...error(n1.lastError) });
  if ((n1.left ?? 0) > (n0?.left ?? 0)) out.push({ ...base, left: n1.left!, ...error(n1.lastError) });
  if (out.length) return out;
  if (n1.delivered === (n0?.delivered ?? 0) && n1.failed === (n0?.failed ?? 0)) return [];
  const failedNow = n1.failed > (n0?.failed ?? 0);
  return [{ ...base, ...(failedNow ? error(n1.lastError) : {}), ...(n0?.waiting && !n1.waiting ? { recovered: true } : {}) }];
}

function pauseEvents(prev: EventSource, next: EventSource): RunEventBody[] {
  const out: RunEventBody[] = [];
  const key = (p: { kind: string; since: string }) => `${p.kind}@${p.since}`;
  const pausedBefore = new Set(prev.pauses.map(key));
  const pausedNow = new Set(next.pauses.map(key));
  const running = !FINISHED_RUN.includes(next.status);
  if (running) {
    for (const p of prev.pauses) if (!pausedNow.has(key(p))) out.push({ kind: 'resume', pauseKind: p.kind });
  }
  for (const p of next.pauses) {
    if (!pausedBefore.has(key(p)))
      out.push({ kind: 'pause', pauseKind: p.kind, by: p.by, ...(p.reason ? { reason: clipLine(p.reason, TEXT_CHARS) } : {}), since: p.since });
  }
  return out;
}

function endEvents(prev: EventSource, next: EventSource): RunEventBody[] {
  if (next.status === prev.status || !FINISHED_RUN.includes(next.status)) return [];
  return [{ kind: 'run_end', status: next.status, ...(next.error ? { error: clipLine(next.error, 1000) } : {}) }];
}
