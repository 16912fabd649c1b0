// Human-readable views of a run's status for the CLI and the demo.
import { notificationsLine } from '../domain/notifications';
import { planLine, type DecisionRecord } from '../domain/replan';
import type { DecisionsView, Question, RunEvent, RunStatus } from '../workflows/messages';
import type { PauseKind } from '../domain/run/llm-outage';
import type { FileChange } from '../domain/file-changes';

const MARK: Record<string, string> = {
  READY: '[ ]',
  RUNNING: '[~]',
  NEEDS_CONTINUATION: '[>]',
  DONE: '[x]',
  BLOCKED: '[!]',
  CANCELLED: '[-]',
  REPLACED_BY_REPLAN: '[r]',
};

/** V3: per task, the files its worker changed (from the transcripts beside the workspace; absent: not readable here). */
export type FilesByTask = Record<string, readonly FileChange[]>;

export function renderStatus(s: RunStatus, files: FilesByTask = {}): string {
  const active = s.tasks.filter((t) => t.state !== 'REPLACED_BY_REPLAN');
  const done = active.filter((t) => t.state === 'DONE').length;
  const lines = [
    `Run ${s.runId}: ${s.status} · phase ${s.phase} · ${done}/${active.length} tasks done · ${s.usage.totalTokens} tokens in ${s.usage.calls} LLM calls`,
    `Instruction: ${oneLine(s.instruction, 160)}`,
  ];
  // Workspace affinity: the host whose worker owns the workspace runs its workspace work.
  if (s.host) lines.push(`Workspace: ${s.workspace} on host ${s.host}`);
  if (s.budget) lines.push(budgetLine(s.budget));
  if (s.llmRung) lines.push(llmFormLine(s.llmRung));
  for (const p of pausesOf(s)) lines.push(pausedLine(s.runId, p));
  if (s.goal) lines.push(`Goal: ${oneLine(s.goal.main_objective, 160)}`);
  for (const t of s.tasks) {
    const deps = t.dependencies.length ? ` (after ${t.dependencies.join(', ')})` : '';
    lines.push(`  ${MARK[t.state] ?? '[?]'} ${t.id}: ${t.title}${deps}${t.summary ? ` — ${oneLine(t.summary, 120)}` : ''}`);
    const changed = files[t.id] ?? [];
    if (changed.length) lines.push(`      files: ${changed.map((c) => `${c.path} +${c.added} −${c.removed}`).join(', ')}`);
  }
  if (s.reflection) {
    lines.push(
      `Reflection: ${s.reflection.evaluation_result} (${s.reflection.achievement_rate}%)${s.reflection.summary ? ` — ${oneLine(s.reflection.summary, 160)}` : ''}`,
    );
  }
  if (s.quality) {
    const scores = s.quality.attempts.map((a) => (a.score === undefined ? '?' : String(a.score))).join(' → ');
    const last = s.quality.attempts.at(-1);
    lines.push(
      `Plan quality: ${s.quality.outcome} after ${s.quality.attempts.length} judgement(s), scores ${scores}` +
        (last ? ` — ${oneLine(last.reason, 140)}` : ''),
    );
    for (const x of s.quality.suggestions) lines.push(`  suggestion: ${oneLine(x, 160)}`);
  }
  for (const c of s.consultations ?? []) {
    lines.push(`Consultation ${c.id} (task ${c.taskId}, ${c.kind}, loop ${c.iteration}/${c.maxLoops}): ${oneLine(c.message, 200)}`);
    for (const x of c.choices) lines.push(`  ${choiceLine(x)}`);
    lines.push(`  answer: replanner consult ${s.runId} ${c.taskId} <1-4|key> ["text"]`);
  }
  if (s.replans) {
    // One name per replan type everywhere: its type, as `decisions` shows it (older runs: by phase).
    const counts = Object.entries(s.replans.byType ?? s.replans.byPhase)
      .filter(([, n]) => n)
      .map(([p, n]) => `${p} ${n}`);
    lines.push(`Replans: ${s.replans.total}${counts.length ? ` (${counts.join(', ')})` : ''}`);
  }
  if (s.lastDecision) lines.push(`Last decision: ${decisionLine(s.lastDecision)}`);
  if (s.notifications) lines.push(notificationsLine(s.notifications));
  for (const q of pendingQuestions(s)) lines.push(...questionLines(s.runId, q));
  for (const b of s.blocked) lines.push(`Blocked: ${b.taskId} — ${b.reason}`);
  if (s.error) lines.push(`Error: ${s.error}`);
  return lines.join('\n');
}

/** M1: which form structured requests take once the server rejected strict json_schema. */
export function llmFormLine(rung: NonNullable<RunStatus['llmRung']>): string {
  return rung === 'json_object'
    ? 'LLM replies: JSON mode with the schema (the server rejected strict json_schema)'
    : rung === 'prompt'
      ? 'LLM replies: JSON asked in the prompt (the server rejected json_schema and json_object)'
      : 'LLM replies: strict json_schema';
}

/** O3: "Budget: 4,980 / 5,000 tokens (99.6%) · $0.0120 / $0.0500 (gpt-4o-mini)". */
export function budgetLine(b: NonNullable<RunStatus['budget']>): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const tokens =
    b.maxTokens !== undefined
      ? `${n(b.usedTokens)} / ${n(b.maxTokens)} tokens (${((100 * b.usedTokens) / b.maxTokens).toFixed(1)}%)`
      : `${n(b.usedTokens)} tokens`;
  const cost =
    b.costUsd !== undefined
      ? ` · $${b.costUsd.toFixed(4)}${b.maxCostUsd !== undefined ? ` / $${b.maxCostUsd.toFixed(4)}` : ''}${b.model ? ` (${b.model})` : ''}`
      : '';
  return `Budget: ${tokens}${cost}`;
}

/** X14: the questions of a status still waiting for an answer. */
export function pendingQuestions(s: Pick<RunStatus, 'questions'>): Question[] {
  return (s.questions ?? []).filter((q) => q.status === 'pending');
}

/** How to answer a question from the shell (X7 confirmations take yes or no; no `yes|no`, a shell would pipe it). */
export function answerCommand(runId: string, q: Pick<Question, 'id' | 'kind'>): string {
  if (q.kind === 'budget') return `replanner answer ${runId} ${q.id} "raise <tokens>" (or stop)`;
  return q.kind === 'confirmation' ? `replanner answer ${runId} ${q.id} yes (or no)` : `replanner answer ${runId} ${q.id} "<text>"`;
}

/** What the run does if nobody answers. */
function fallbackOf(q: Question): string {
  const assumptions = q.assumptions.length ? oneLine(q.assumptions.join('; '), 160) : '';
  if (q.timeoutMinutes === null) return `waits for the answer${assumptions ? ` (stated assumptions: ${assumptions})` : ''}`;
  return `goes on after ${q.timeoutMinutes} min without an answer${assumptions ? `, assuming: ${assumptions}` : ''}`;
}

/** What answers a question of each kind: `short` at the CLI's prompt, `long` in `status`. */
export const ANSWER_HINTS: Record<Question['kind'], { short: string; long: string }> = {
  clarification: { short: 'your answer', long: 'answer in your own words' },
  confirmation: { short: 'yes or no', long: 'answer yes or no' },
  escalation: { short: 'how should the run go on?', long: 'answer with an instruction for how to go on' },
  budget: { short: 'raise <tokens> or stop', long: 'raise the limit or stop the run' },
};

/** X14 / X7 / X8: a pending question with its id, what happens without an answer, and how to answer. */
export function questionLines(runId: string, q: Question): string[] {
  const how = (ANSWER_HINTS[q.kind] ?? ANSWER_HINTS.clarification).long;
  return [`Question ${q.id} (${q.kind}, ${q.phase}): ${oneLine(q.text, 300)}`, `  the run ${fallbackOf(q)}`, `  ${how}: ${answerCommand(runId, q)}`];
}

/** X9: one decision in one line: "replan-2 · execution · replan retry → execution · confidence 0.85 · executed · success". */
export function decisionLine(r: DecisionRecord): string {
  const parts = [r.replan_id, phaseOf(r), [r.outcome ?? (r.executed ? 'replan' : 'none'), r.replan_type].filter(Boolean).join(' ')];
  const head = r.target_phase ? `${parts.join(' · ')} → ${r.target_phase}` : parts.join(' · ');
  const tail = [
    `confidence ${formatConfidence(r.confidence)}`,
    r.executed ? 'executed' : 'not executed',
    r.result,
    r.override_reason ? `override: ${r.override_reason}` : '',
  ].filter(Boolean);
  const note = r.message ?? (typeof r.llm_decision?.reasoning === 'string' ? r.llm_decision.reasoning : '');
  return `${head} · ${tail.join(' · ')}${note ? ` — ${oneLine(note, 140)}` : ''}`;
}

/** The phase a decision was asked in, with the task it was about in execution: "execution (task test)". */
function phaseOf(r: DecisionRecord): string {
  return r.task_id !== undefined ? `${r.phase} (task ${r.task_id})` : r.phase;
}

function formatConfidence(c: number): string {
  return typeof c === 'number' && Number.isFinite(c) ? c.toFixed(2) : String(c);
}

/** X9: the `decisions` view for people: every record, the counters, every question. */
export function renderDecisions(runId: string, v: DecisionsView): string {
  const lines: string[] = [];
  const dropped = v.dropped ? ` (${v.dropped} older record(s) dropped)` : '';
  lines.push(`Decisions of run ${runId}: ${v.records.length}${dropped}`);
  if (!v.records.length) lines.push('  (no replan decision recorded yet)');
  for (const r of v.records) {
    const kind = [r.outcome, r.replan_type].filter(Boolean).join(' ');
    lines.push(`${r.replan_id} · ${phaseOf(r)}${kind ? ` · ${kind}` : ''}${r.target_phase ? ` → ${r.target_phase}` : ''}`);
    const duration = r.duration_ms !== undefined ? ` · ${r.duration_ms} ms` : '';
    lines.push(`  confidence ${formatConfidence(r.confidence)} · executed ${r.executed ? 'yes' : 'no'} · result ${r.result}${duration}`);
    if (r.override_reason) lines.push(`  override reason: ${r.override_reason}`);
    const reasoning = r.llm_decision?.reasoning;
    if (typeof reasoning === 'string' && reasoning.trim()) lines.push(`  reasoning: ${oneLine(reasoning, 300)}`);
    if (r.message) lines.push(`  message: ${oneLine(r.message, 300)}`);
    if (r.plan_before) lines.push(`  plan before: ${oneLine(planLine(r.plan_before), 1000)}`);
    if (r.plan_after) lines.push(`  plan after: ${oneLine(planLine(r.plan_after), 1000)}`);
    lines.push(`  at ${r.timestamp}`);
  }
  const c = v.counters;
  const byType = Object.entries(c?.byType ?? {})
    .filter(([, n]) => n)
    .map(([t, n]) => `${t} ${n}`);
  lines.push(`Replans executed: ${c?.total ?? 0}${byType.length ? ` (${byType.join(', ')})` : ''}`);
  if (v.questions.length) {
    lines.push('Questions:');
    for (const q of v.questions) {
      lines.push(`  ${q.id} (${q.kind}, ${q.phase}, ${q.status}; asked ${q.askedAt} by ${q.replanId}): ${oneLine(q.text, 300)}`);
      if (q.status === 'answered') lines.push(`    answer: ${oneLine(q.answer ?? '', 300)}${q.answeredAt ? ` (at ${q.answeredAt})` : ''}`);
      else if (q.status === 'timed_out') {
        lines.push(`    no answer in time; went on${q.assumptions.length ? ` assuming: ${oneLine(q.assumptions.join('; '), 200)}` : ''}`);
      } else lines.push(`    ${answerCommand(runId, q)}`);
    }
  }
  return lines.join('\n');
}

/** One line per change worth telling while watching. */
export function describeChanges(prev: RunStatus | undefined, next: RunStatus): string[] {
  const out: string[] = [];
  if (!prev || prev.phase !== next.phase) out.push(`phase: ${next.phase}`);
  const before = new Map(prev?.tasks.map((t) => [t.id, t.state]) ?? []);
  for (const t of next.tasks) {
    if (before.get(t.id) !== t.state)
      out.push(`  ${MARK[t.state] ?? '[?]'} ${t.id} ${t.state}${t.summary && t.state !== 'RUNNING' ? ` — ${oneLine(t.summary, 100)}` : ''}`);
  }
  const asked = new Set((prev?.consultations ?? []).map((c) => c.id));
  for (const c of next.consultations ?? []) {
    if (asked.has(c.id)) continue;
    out.push(`  consultation ${c.id} for task ${c.taskId} (${c.kind}) — answer: replanner consult ${next.runId} ${c.taskId} <1-4|key> ["text"]`);
    out.push(`    ${consultationChoices(c)}`);
  }
  // Every decision since the last poll (status carries the newest few), and results that changed.
  const recent = (s: RunStatus | undefined) => s?.recentDecisions ?? (s?.lastDecision ? [s.lastDecision] : []);
  const seen = new Map(recent(prev).map((r) => [r.replan_id, r.result]));
  for (const r of recent(next)) {
    if (!seen.has(r.replan_id)) out.push(`  decision ${decisionLine(r)}`);
    else if (seen.get(r.replan_id) !== r.result) out.push(`  decision ${r.replan_id}: ${r.result}`);
  }
  const wasPending = new Set(pendingQuestions(prev ?? {}).map((q) => q.id));
  const nowPending = new Set(pendingQuestions(next).map((q) => q.id));
  for (const q of pendingQuestions(next)) {
    if (!wasPending.has(q.id)) out.push(`  question ${q.id} (${q.kind}): ${oneLine(q.text, 200)} — answer: ${answerCommand(next.runId, q)}`);
  }
  for (const id of wasPending) {
    if (nowPending.has(id)) continue;
    const q = (next.questions ?? []).find((x) => x.id === id);
    if (q?.status === 'answered') out.push(`  question ${id} answered: ${oneLine(q.answer ?? '', 100)}`);
    else if (q?.status === 'timed_out') out.push(`  question ${id} timed out; the run goes on with its assumptions`);
    else out.push(`  question ${id} is no longer waiting`);
  }
  if (prev && prev.status !== next.status) out.push(`status: ${next.status}`);
  const shownPauses = new Set(pausesOf(prev ?? {}).map((p) => `${p.kind}@${p.since}`));
  for (const p of pausesOf(next)) if (!shownPauses.has(`${p.kind}@${p.since}`)) out.push(`  ${pausedLine(next.runId, p)}`);
  return out;
}

/** O1/O2: every pause that holds (older runs only carry `pause`). */
function pausesOf(s: Partial<Pick<RunStatus, 'pause' | 'pauses'>>): NonNullable<RunStatus['pause']>[] {
  return s.pauses ?? (s.pause ? [s.pause] : []);
}

/** O1/O2: why and since when the run is paused, and what ends the pause. */
export function pausedLine(runId: string, p: NonNullable<RunStatus['pause']>): string {
  const next =
    p.kind === 'llm_outage'
      ? `resumes by itself when the LLM answers (retry now: replanner resume ${runId})`
      : p.kind === 'host_offline'
        ? // Workspace affinity: the reason says how to bring the host back or cancel.
          'resumes by itself when the host is back'
        : p.kind === 'llm_rejected' || p.kind === 'llm_unsupported'
          ? `fix it, then: replanner resume ${runId}`
          : p.kind === 'budget'
            ? // O3: a budget pause ends by answering its question (raise or stop), not by resume.
              'answer the budget question below'
            : `resume: replanner resume ${runId}`;
  const by = p.kind === 'user' ? 'by user' : `(${p.kind})`;
  return `PAUSED ${by} since ${p.since}${p.reason ? `: ${oneLine(p.reason, 400)}` : ''} — ${next}`;
}

export function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

type ConsultationChoiceView = NonNullable<RunStatus['consultations']>[number]['choices'][number];

/** P7: one choice of a pending consultation: number|key, seed 002 Japanese — English. */
function choiceLine(x: ConsultationChoiceView): string {
  return `${x.number}|${x.key}. ${x.ja} — ${x.label}${x.needsText ? ' (needs your text)' : ''}`;
}

function consultationChoices(c: NonNullable<RunStatus['consultations']>[number]): string {
  return c.choices.map((x) => `${x.number}|${x.key} ${x.label}${x.needsText ? ' (+text)' : ''}`).join(' · ');
}

/** V2: an event of the run for people (empty: not shown, e.g. a "no replan" decision without --verbose). */
export function runEventLines(e: RunEvent, runId: string, verbose = false): string[] {
  switch (e.kind) {
    case 'phase':
      return [`phase: ${e.phase}${e.n > 1 ? ` (#${e.n})` : ''}`];
    case 'task':
      return [`  ${MARK[e.state] ?? '[?]'} ${e.taskId} ${e.state}${e.summary ? ` — ${oneLine(e.summary, 100)}` : ''}`];
    case 'decision': {
      if (e.noop && !verbose) return [];
      const about = e.taskId !== undefined ? `${e.phase} (task ${e.taskId})` : e.phase;
      const what = e.noop ? 'no replan' : [e.outcome, e.replanType].filter(Boolean).join(' ');
      // Told while its execution phase runs: no record id yet (decision_result brings it).
      const head = `${e.replanId ? `${e.replanId} · ` : ''}${about} · ${what}${e.targetPhase ? ` → ${e.targetPhase}` : ''}`;
      const note = e.message ?? e.reasoning;
      return [`  decision ${head} · confidence ${formatConfidence(e.confidence)}${note ? ` — ${oneLine(note, 140)}` : ''}`];
    }
    case 'decision_result': {
      if (e.noop && !verbose) return [];
      const what = e.outcome ? `${e.noop ? 'no replan' : [e.outcome, e.replanType].filter(Boolean).join(' ')} · ` : '';
      return [
        `  decision ${e.replanId}${e.taskId !== undefined ? ` (task ${e.taskId})` : ''}: ${what}${e.result}${e.overrideReason ? ` (${e.overrideReason})` : ''}`,
      ];
    }
    case 'question':
      return [
        `  question ${e.questionId} (${e.questionKind}): ${oneLine(e.text, 200)} — answer: ${answerCommand(runId, { id: e.questionId, kind: e.questionKind as Question['kind'] })}`,
      ];
    case 'question_closed':
      return [
        e.status === 'answered'
          ? `  question ${e.questionId} answered: ${oneLine(e.answer ?? '', 100)}`
          : e.status === 'timed_out'
            ? `  question ${e.questionId} timed out; the run goes on with its assumptions`
            : `  question ${e.questionId} is no longer waiting`,
      ];
    case 'consultation':
      return [
        `  consultation ${e.consultationId} for task ${e.taskId} (${e.consultationKind}): ${oneLine(e.message, 200)}`,
        `    choices: replanner status ${runId} · answer: replanner consult ${runId} ${e.taskId} <1-4|key> ["text"]`,
      ];
    case 'consultation_closed':
      return [`  consultation ${e.consultationId} of task ${e.taskId} closed`];
    case 'notification':
      return e.error
        ? [`  notification to ${e.target} failed: ${oneLine(e.error, 200)}`]
        : verbose
          ? [`  notification to ${e.target} delivered (${e.delivered} so far)`]
          : [];
    case 'pause':
      return [
        `  ${pausedLine(runId, { kind: e.pauseKind as PauseKind, by: e.by as 'user', ...(e.reason ? { reason: e.reason } : {}), since: e.since })}`,
      ];
    case 'resume':
      return [`  resumed (${e.pauseKind === 'user' ? 'the pause by user' : `the ${e.pauseKind} pause`} ended)`];
    case 'run_end':
      return [`status: ${e.status}${e.error ? ` — ${oneLine(e.error, 200)}` : ''}`];
  }
}

/** V2: a worker step of a running task: "      test · step 1.2: write_file(test/x.js)". */
export function workerStepLine(
  taskId: string,
  s: { iteration: number; step: number; actions: string[]; toolErrors: number; summary?: string },
): string {
  const calls = s.actions.length ? s.actions.join(', ') : s.summary !== undefined ? `answer: ${oneLine(s.summary, 120)}` : 'no tool call';
  return `      ${taskId} · step ${s.iteration}.${s.step}: ${oneLine(calls, 200)}${s.toolErrors ? ` (${s.toolErrors} failed)` : ''}`;
}

/** "12s", "3m 05s", "1h 02m". */
export function formatElapsed(ms: number): string {
  const sec = Math.max(0, Math.round(ms / 1000));
  if (sec < 60) return `${sec}s`;
  const min = Math.floor(sec / 60);
  if (min < 60) return `${min}m ${String(sec % 60).padStart(2, '0')}s`;
  return `${Math.floor(min / 60)}h ${String(min % 60).padStart(2, '0')}m`;
}
