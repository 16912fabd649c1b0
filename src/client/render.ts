// Human-readable views of a run's status and decisions for the CLI and the demo (what `watch`
// prints as the run goes is in render-events.ts).
import { branchLine, pullRequestLine } from '../domain/git/run-git';
import { notificationsLine } from '../domain/run/deliveries';
import { planLine, type DecisionRecord } from '../domain/replan';
import type { DecisionsView, Question, RunStatus } from '../workflows/messages';
import type { FileChange } from '../domain/file-changes';
import type { TokenUsage } from '../domain/usage';

export const MARK: Record<string, string> = {
  READY: '[ ]',
  RUNNING: '[~]',
  NEEDS_CONTINUATION: '[>]',
  DONE: '[x]',
  BLOCKED: '[!]',
  CANCELLED: '[-]',
  REPLACED_BY_REPLAN: '[r]',
};

/** V3: per task, the files its worker changed (from the transcripts beside the workspace; absent: not readable here). */
type FilesByTask = Record<string, readonly FileChange[]>;

/**
 * `inRunningTasks`: the tokens the running tasks have spent so far (src/client/running-tasks.ts),
 * which the run's own total counts only when each task ends.
 */
export function renderStatus(s: RunStatus, files: FilesByTask = {}, inRunningTasks?: TokenUsage): string {
  const active = s.tasks.filter((t) => t.state !== 'REPLACED_BY_REPLAN');
  const done = active.filter((t) => t.state === 'DONE').length;
  const running = inRunningTasks?.totalTokens ? ` (+${inRunningTasks.totalTokens} in ${inRunningTasks.calls} calls of the running tasks)` : '';
  const lines = [
    `Run ${s.runId}: ${s.status} · phase ${s.phase} · ${done}/${active.length} tasks done · ${s.usage.totalTokens} tokens in ${s.usage.calls} LLM calls${running}`,
    `Instruction: ${oneLine(s.instruction, 160)}`,
  ];
  // G5: what the pull request the run follows says.
  if (s.status === 'FOLLOWING' && s.waiting) lines.push(`${s.waiting[0]!.toUpperCase()}${s.waiting.slice(1)}`);
  // Workspace affinity: the host whose worker owns the workspace runs its workspace work.
  if (s.host) lines.push(`Workspace: ${s.workspace} on host ${s.host}`);
  if (s.budget) lines.push(budgetLine(s.budget));
  if (s.llmRung) lines.push(llmFormLine(s.llmRung));
  if (s.llmNoStream) lines.push('LLM replies: not streamed (the server refused streaming; a stalled reply cannot be told from a slow one)');
  for (const p of pausesOf(s)) lines.push(pausedLine(s.runId, p));
  if (s.goal) lines.push(`Goal: ${oneLine(s.goal.main_objective, 160)}`);
  for (const t of s.tasks) {
    const deps = t.dependencies.length ? ` (after ${t.dependencies.join(', ')})` : '';
    lines.push(`  ${MARK[t.state] ?? '[?]'} ${t.id}: ${t.title}${deps}${t.summary ? ` — ${oneLine(t.summary, 120)}` : ''}`);
    // P9: the stuck detector's note stays with the task after it ended, whatever the judge said.
    if (t.stuck) lines.push(`      stuck: ${oneLine(t.stuck.replace(/^stuck: /, ''), 240)}`);
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
  if (s.git) lines.push(branchLine(s.git), ...[pullRequestLine(s.git)].filter((l): l is string => l !== undefined));
  for (const q of pendingQuestions(s)) lines.push(...questionLines(s.runId, q));
  for (const b of s.blocked) lines.push(`Blocked: ${b.taskId} — ${b.reason}`);
  if (s.error) lines.push(`Error: ${s.error}`);
  return lines.join('\n');
}

/** M1: which form structured requests take once the server rejected strict json_schema. */
function llmFormLine(rung: NonNullable<RunStatus['llmRung']>): string {
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

export function formatConfidence(c: number): string {
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

/** O1/O2: every pause that holds (older runs only carry `pause`). */
export function pausesOf(s: Partial<Pick<RunStatus, 'pause' | 'pauses'>>): NonNullable<RunStatus['pause']>[] {
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
        : p.kind === 'llm_rejected' || p.kind === 'llm_unsupported' || p.kind === 'llm_slow'
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
