// Human-readable views of a run's status and decisions for the CLI and the demo (what `watch`
// prints as the run goes is in render-events.ts).
import { branchLine, pullRequestLine } from '../domain/git/run-git';
import { runLanguage } from '../domain/language';
import { consultationLines, consultCommandLine } from '../domain/pacemaker/display';
import { notificationsLine } from '../domain/run/deliveries';
import { closedWhy, isFinalStatus } from '../domain/run/closed';
import { planLine, type DecisionRecord } from '../domain/replan';
import { decisionFactsOf, decisionName, decisionSays, decisionSubject, planChangesText } from '../domain/words/decisions';
import { pauseText, plainFailure } from '../domain/words/pauses';
import { phaseName } from '../domain/words/phases';
import type { DecisionsView, Question, RunStatus } from '../workflows/messages';
import type { FileChange } from '../domain/file-changes';
import type { TokenUsage } from '../domain/usage';
import { replannerCommand } from '../domain/printed-commands';

export const MARK: Record<string, string> = {
  READY: '[ ]',
  RUNNING: '[~]',
  NEEDS_CONTINUATION: '[>]',
  DONE: '[x]',
  BLOCKED: '[!]',
  CANCELLED: '[-]',
  REPLACED_BY_REPLAN: '[r]',
};

/** Per task, the files its worker changed (from the transcripts beside the workspace; absent: not readable here). */
type FilesByTask = Record<string, readonly FileChange[]>;

/**
 * `inRunningTasks`: the tokens the running tasks have spent so far (src/client/running-tasks.ts),
 * which the run's own total counts only when each task ends.
 */
/** "2/3 tasks done"; before the plan has tasks "no tasks yet" (a run that ended then: "no tasks"), not "0/0". */
const tasksDone = (done: number, total: number, ended: boolean): string =>
  total ? `${done}/${total} tasks done` : ended ? 'no tasks' : 'no tasks yet';

export function renderStatus(s: RunStatus, files: FilesByTask = {}, inRunningTasks?: TokenUsage): string {
  const active = s.tasks.filter((t) => t.state !== 'REPLACED_BY_REPLAN');
  const done = active.filter((t) => t.state === 'DONE').length;
  const running = inRunningTasks?.totalTokens ? ` (+${inRunningTasks.totalTokens} in ${inRunningTasks.calls} calls of the running tasks)` : '';
  const lines = [
    `Run ${s.runId}: ${s.status} · phase ${phaseName(s.phase)} · ${tasksDone(done, active.length, isFinalStatus(s.status))} · ${s.usage.totalTokens} tokens in ${s.usage.calls} LLM calls${running}`,
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
    // The stuck detector's note stays with the task after it ended, whatever the judge said.
    if (t.stuck) lines.push(`      stuck: ${oneLine(t.stuck.replace(/^stuck: /, ''), 240)}`);
    // Its worker died; the task is still running and its step is tried again.
    if (t.workerLost) lines.push(`      ${t.workerLost}`);
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
  // Each task that asks how to go on, as the pacemaker's design shows it, in the run's language.
  for (const c of s.consultations ?? []) lines.push(...consultationLines(c, runLanguage(s.instruction), consultCommandLine(s.runId, c.taskId)));
  // Only the plan changes carried out count (a question or a kept plan is none).
  if (s.replans) lines.push(`Plan changes: ${planChangesText(s.replans)}`);
  if (s.lastDecision) lines.push(`Last decision: ${decisionLine(s.lastDecision, isFinalStatus(s.status) ? closedWhy(s.status) : undefined)}`);
  if (s.notifications) lines.push(notificationsLine(s.notifications));
  if (s.git) lines.push(branchLine(s.git), ...[pullRequestLine(s.git)].filter((l): l is string => l !== undefined));
  for (const q of pendingQuestions(s)) lines.push(...questionLines(s.runId, q));
  for (const q of closedQuestions(s)) lines.push(closedQuestionLine(q));
  for (const b of s.blocked) lines.push(`Blocked: ${b.taskId} — ${b.reason}`);
  if (s.error) lines.push(`Error: ${plainFailure(s.error)}`);
  return lines.join('\n');
}

/** Which form structured requests take once the server rejected strict json_schema. */
function llmFormLine(rung: NonNullable<RunStatus['llmRung']>): string {
  return rung === 'json_object'
    ? 'LLM replies: JSON mode with the schema (the server rejected strict json_schema)'
    : rung === 'prompt'
      ? 'LLM replies: JSON asked in the prompt (the server rejected json_schema and json_object)'
      : 'LLM replies: strict json_schema';
}

/** "Budget: 4,980 / 5,000 tokens (99.6%) · $0.0120 / $0.0500 (gpt-4o-mini)". */
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

/** The questions of a status still waiting for an answer. */
export function pendingQuestions(s: Pick<RunStatus, 'questions'>): Question[] {
  return (s.questions ?? []).filter((q) => q.status === 'pending');
}

/** The questions the run closed unanswered when it ended. */
function closedQuestions(s: Pick<RunStatus, 'questions'>): Question[] {
  return (s.questions ?? []).filter((q) => q.status === 'closed');
}

/** A question nobody can answer any more, with why; no command to answer it. */
function closedQuestionLine(q: Question): string {
  return `Question ${q.id} (${q.kind}, ${phaseName(q.phase)} phase): ${oneLine(q.text, 300)} — closed: ${q.closedWhy ?? 'the run ended'}`;
}

/** How to answer a question from the shell (a confirmation takes yes or no; no `yes|no`, a shell would pipe it). */
export function answerCommand(runId: string, q: Pick<Question, 'id' | 'kind'>): string {
  const answer = (what: string) => replannerCommand('answer', runId, q.id, what);
  if (q.kind === 'budget') return `${answer('"raise <tokens>"')} (or stop)`;
  return q.kind === 'confirmation' ? `${answer('yes')} (or no)` : answer('"<text>"');
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

/** A pending question with its id, what happens without an answer, and how to answer. */
export function questionLines(runId: string, q: Question): string[] {
  const how = (ANSWER_HINTS[q.kind] ?? ANSWER_HINTS.clarification).long;
  return [
    `Question ${q.id} (${q.kind}, ${phaseName(q.phase)} phase): ${oneLine(q.text, 300)}`,
    `  the run ${fallbackOf(q)}`,
    `  ${how}: ${answerCommand(runId, q)}`,
  ];
}

/**
 * One decision in one line: "decision 2 · Execution (task test) · plan changed: retry the
 * task (back to Execution) · done · confidence 0.85 — why". A decision that keeps the plan says so.
 */
export function decisionLine(r: DecisionRecord, runEnded?: string): string {
  const says = decisionSays(decisionFactsOf(r), runEnded);
  const note = r.message ?? (typeof r.llm_decision?.reasoning === 'string' ? r.llm_decision.reasoning : '');
  return `${decisionName(r.replan_id)} · ${phaseOf(r)} · ${says} · confidence ${formatConfidence(r.confidence)}${note ? ` — ${oneLine(note, 140)}` : ''}`;
}

/** The phase a decision was asked in, with the task it was about in execution: "Execution (task test)". */
function phaseOf(r: DecisionRecord): string {
  return decisionSubject({ phase: r.phase, ...(r.task_id !== undefined ? { taskId: r.task_id } : {}), ...(r.about ? { about: r.about } : {}) });
}

export function formatConfidence(c: number): string {
  return typeof c === 'number' && Number.isFinite(c) ? c.toFixed(2) : String(c);
}

/** The `decisions` view for people: every decision, the plan changes carried out, every question. */
export function renderDecisions(runId: string, v: DecisionsView): string {
  const lines: string[] = [];
  const dropped = v.dropped ? ` (${v.dropped} older record(s) dropped)` : '';
  lines.push(`Decisions of run ${runId}: ${v.records.length}${dropped}`);
  if (!v.records.length) lines.push('  (no decision about the plan yet)');
  for (const r of v.records) {
    lines.push(`${decisionName(r.replan_id)} · ${phaseOf(r)} · ${decisionSays(decisionFactsOf(r))}`);
    const duration = r.duration_ms !== undefined ? ` · took ${r.duration_ms} ms` : '';
    lines.push(`  confidence ${formatConfidence(r.confidence)}${duration}`);
    const reasoning = r.llm_decision?.reasoning;
    if (typeof reasoning === 'string' && reasoning.trim()) lines.push(`  reasoning: ${oneLine(reasoning, 300)}`);
    if (r.message) lines.push(`  message: ${oneLine(r.message, 300)}`);
    if (r.plan_before) lines.push(`  plan before: ${oneLine(planLine(r.plan_before), 1000)}`);
    if (r.plan_after) lines.push(`  plan after: ${oneLine(planLine(r.plan_after), 1000)}`);
    lines.push(`  at ${r.timestamp}`);
  }
  lines.push(`Plan changes: ${planChangesText(v.counters ?? { total: 0 })}`);
  if (v.questions.length) {
    lines.push('Questions:');
    for (const q of v.questions) {
      lines.push(
        `  ${q.id} (${q.kind}, ${phaseName(q.phase)} phase, ${q.status}; asked ${q.askedAt} by ${decisionName(q.replanId)}): ${oneLine(q.text, 300)}`,
      );
      if (q.status === 'answered') lines.push(`    answer: ${oneLine(q.answer ?? '', 300)}${q.answeredAt ? ` (at ${q.answeredAt})` : ''}`);
      else if (q.status === 'timed_out') {
        lines.push(`    no answer in time; went on${q.assumptions.length ? ` assuming: ${oneLine(q.assumptions.join('; '), 200)}` : ''}`);
      } else if (q.status === 'closed') lines.push(`    closed: ${q.closedWhy ?? 'the run ended'}`);
      else lines.push(`    ${answerCommand(runId, q)}`);
    }
  }
  return lines.join('\n');
}

/** Every pause that holds (older runs only carry `pause`). */
export function pausesOf(s: Partial<Pick<RunStatus, 'pause' | 'pauses'>>): NonNullable<RunStatus['pause']>[] {
  return s.pauses ?? (s.pause ? [s.pause] : []);
}

/** Why and since when the run is paused, and what ends the pause, in one line (the time in the reader's zone). */
export function pausedLine(runId: string, p: NonNullable<RunStatus['pause']>): string {
  return `PAUSED: ${pauseText({ ...p, ...(p.reason ? { reason: oneLine(p.reason, 400) } : {}) }, runId, 'local')}`;
}

export function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
