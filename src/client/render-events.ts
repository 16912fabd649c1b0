// What `watch`, `run --wait` and the demo print as a run goes: its events, its changes between
// two statuses, the worker's steps and elapsed times.
import { runLanguage } from '../domain/language';
import { consultationLines, consultCommandLine, type ConsultationShown } from '../domain/pacemaker/display';
import type { PauseKind } from '../domain/run/llm-outage';
import { failedNote } from '../domain/task-details';
import { decisionName, decisionSays, decisionSubject } from '../domain/words/decisions';
import { plainFailure, resumeText } from '../domain/words/pauses';
import { phaseName } from '../domain/words/phases';
import type { Question, RunEvent, RunStatus } from '../workflows/messages';
import { answerCommand, decisionLine, formatConfidence, MARK, oneLine, pausedLine, pausesOf, pendingQuestions } from './render';
import { replannerCommand } from '../domain/printed-commands';
import { closedWhy, isFinalStatus } from '../domain/run/closed';

/** One line per change worth telling while watching. */
export function describeChanges(prev: RunStatus | undefined, next: RunStatus): string[] {
  const out: string[] = [];
  if (!prev || prev.phase !== next.phase) out.push(`phase: ${phaseName(next.phase)}`);
  const before = new Map(prev?.tasks.map((t) => [t.id, t.state]) ?? []);
  for (const t of next.tasks) {
    if (before.get(t.id) !== t.state)
      out.push(`  ${MARK[t.state] ?? '[?]'} ${t.id} ${t.state}${t.summary && t.state !== 'RUNNING' ? ` — ${oneLine(t.summary, 100)}` : ''}`);
  }
  const asked = new Set((prev?.consultations ?? []).map((c) => c.id));
  for (const c of next.consultations ?? []) {
    if (asked.has(c.id)) continue;
    out.push(...consultationBlock(c, runLanguage(next.instruction), next.runId));
  }
  // Every decision since the last poll (status carries the newest few), and results that changed.
  const recent = (s: RunStatus | undefined) => s?.recentDecisions ?? (s?.lastDecision ? [s.lastDecision] : []);
  const seen = new Map(recent(prev).map((r) => [r.replan_id, r.result]));
  // An ended run's question no longer waits (status says the same).
  const ended = isFinalStatus(next.status) ? closedWhy(next.status) : undefined;
  for (const r of recent(next)) {
    if (!seen.has(r.replan_id) || seen.get(r.replan_id) !== r.result) out.push(`  ${decisionLine(r, ended)}`);
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
    else if (q?.status === 'closed') out.push(`  question ${id} closed: ${q.closedWhy ?? 'the run ended'}`);
    else out.push(`  question ${id} is no longer waiting`);
  }
  if (prev && prev.status !== next.status) out.push(`status: ${next.status}`);
  const shownPauses = new Set(pausesOf(prev ?? {}).map((p) => `${p.kind}@${p.since}`));
  for (const p of pausesOf(next)) if (!shownPauses.has(`${p.kind}@${p.since}`)) out.push(`  ${pausedLine(next.runId, p)}`);
  return out;
}

/** V9: a task that asks how to go on, as the pacemaker's design shows it: its title, then the rest indented under it. */
function consultationBlock(c: ConsultationShown, language: 'ja' | 'en', runId: string): string[] {
  const [title, ...rest] = consultationLines(c, language, consultCommandLine(runId, c.taskId));
  return [`  ${title}`, ...rest.map((l) => (l ? `    ${l}` : ''))];
}

/** An event of the run for people (empty: not shown, e.g. a "no replan" decision without --verbose). */
export function runEventLines(e: RunEvent, runId: string, verbose = false): string[] {
  switch (e.kind) {
    case 'phase':
      return [`phase: ${phaseName(e.phase)}${e.n > 1 ? ` (#${e.n})` : ''}`];
    case 'task':
      return [`  ${MARK[e.state] ?? '[?]'} ${e.taskId} ${e.state}${e.summary ? ` — ${oneLine(e.summary, 100)}` : ''}`];
    case 'decision': {
      if (e.noop && !verbose) return [];
      const about = decisionSubject(e);
      // Told while its execution phase runs: no record id yet (decision_result brings it).
      const head = `${e.replanId ? `${decisionName(e.replanId)} · ` : 'decision · '}${about} · ${decisionSays(e)}`;
      const note = e.message ?? e.reasoning;
      return [`  ${head} · confidence ${formatConfidence(e.confidence)}${note ? ` — ${oneLine(note, 140)}` : ''}`];
    }
    case 'decision_result': {
      // A result that changed nothing adds only the record's id to a decision already told
      // ("plan kept"): printing it would show that decision twice.
      if (e.noop) return [];
      const about = e.about === 'pull_request_feedback' ? ' (feedback on the pull request)' : e.taskId !== undefined ? ` (task ${e.taskId})` : '';
      return [`  ${decisionName(e.replanId)}${about}: ${decisionSays(e)}`];
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
            : e.status === 'closed'
              ? `  question ${e.questionId} closed: ${e.why ?? 'the run ended'}`
              : `  question ${e.questionId} is no longer waiting`,
      ];
    case 'consultation':
      // Older events carry neither the language nor the choices: `status` shows them.
      if (!e.choices?.length)
        return [
          `  task ${e.taskId} asks how to go on: ${oneLine(e.message, 200)}`,
          `    its choices: ${replannerCommand('status', runId)} · answer: ${consultCommandLine(runId, e.taskId)}`,
        ];
      return consultationBlock(
        { taskId: e.taskId, message: e.message, choices: e.choices.map((x) => ({ ...x, ja: x.label })) },
        e.language ?? 'en',
        runId,
      );
    case 'consultation_closed':
      return [`  task ${e.taskId} no longer asks how to go on (${e.consultationId} is closed)`];
    case 'notification':
      if (e.refused) return [`  notification to ${e.target} could not be posted (${e.refused} so far): ${oneLine(e.error ?? 'refused', 200)}`];
      if (e.waitingUntil) return [`  notifications to ${e.target} wait until ${e.waitingUntil}: ${oneLine(e.error ?? 'no answer', 200)}`];
      if (e.left) return [`  ${e.left} notification(s) to ${e.target} not delivered when the run ended: ${oneLine(e.error ?? 'no answer', 200)}`];
      if (e.recovered) return [`  notifications to ${e.target} delivered again (${e.delivered} so far)`];
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
      return [`  ${resumeText(e.pauseKind)}`];
    case 'git':
      return [`  ${oneLine(e.text, 300)}`];
    case 'run_end':
      return [`status: ${e.status}${e.error ? ` — ${oneLine(plainFailure(e.error), 200)}` : ''}`];
  }
}

/** A worker step of a running task: "      test · step 1.2: write_file(test/x.js)". */
export function workerStepLine(
  taskId: string,
  s: { iteration: number; step: number; actions: string[]; toolErrors: number; failure?: string; summary?: string; stuck?: string },
): string {
  const calls = s.actions.length ? s.actions.join(', ') : s.summary !== undefined ? `answer: ${oneLine(s.summary, 120)}` : 'no tool call';
  const line = `      ${taskId} · step ${s.iteration}.${s.step}: ${oneLine(calls, 200)}${s.toolErrors ? ` (${failedNote(s)})` : ''}`;
  // The stuck detector ended the iteration here.
  return s.stuck ? `${line}\n      ${taskId} · ${oneLine(s.stuck, 240)}` : line;
}

/** "12s", "3m 05s", "1h 02m". */
export function formatElapsed(ms: number): string {
  const sec = Math.max(0, Math.round(ms / 1000));
  if (sec < 60) return `${sec}s`;
  const min = Math.floor(sec / 60);
  if (min < 60) return `${min}m ${String(sec % 60).padStart(2, '0')}s`;
  return `${Math.floor(min / 60)}h ${String(min % 60).padStart(2, '0')}m`;
}
