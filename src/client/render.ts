// Human-readable views of a run's status for the CLI and the demo.
import type { RunStatus } from '../workflows/messages';

const MARK: Record<string, string> = {
  READY: '[ ]',
  RUNNING: '[~]',
  NEEDS_CONTINUATION: '[>]',
  DONE: '[x]',
  BLOCKED: '[!]',
  CANCELLED: '[-]',
  REPLACED_BY_REPLAN: '[r]',
};

export function renderStatus(s: RunStatus): string {
  const active = s.tasks.filter((t) => t.state !== 'REPLACED_BY_REPLAN');
  const done = active.filter((t) => t.state === 'DONE').length;
  const lines = [
    `Run ${s.runId}: ${s.status} · phase ${s.phase} · ${done}/${active.length} tasks done · ${s.usage.totalTokens} tokens in ${s.usage.calls} LLM calls`,
    `Instruction: ${oneLine(s.instruction, 160)}`,
  ];
  if (s.goal) lines.push(`Goal: ${oneLine(s.goal.main_objective, 160)}`);
  for (const t of s.tasks) {
    const deps = t.dependencies.length ? ` (after ${t.dependencies.join(', ')})` : '';
    lines.push(`  ${MARK[t.state] ?? '[?]'} ${t.id}: ${t.title}${deps}${t.summary ? ` — ${oneLine(t.summary, 120)}` : ''}`);
  }
  if (s.reflection) {
    lines.push(
      `Reflection: ${s.reflection.evaluation_result} (${s.reflection.achievement_rate}%)${s.reflection.summary ? ` — ${oneLine(s.reflection.summary, 160)}` : ''}`,
    );
  }
  if (s.quality) {
    const scores = s.quality.attempts.map((a) => (a.score === undefined ? '?' : String(a.score))).join(' → ');
    lines.push(
      `Plan quality: ${s.quality.outcome} after ${s.quality.attempts.length} judgement(s), scores ${scores}` +
        (s.quality.attempts.length ? ` — ${oneLine(s.quality.attempts[s.quality.attempts.length - 1].reason, 140)}` : ''),
    );
    for (const x of s.quality.suggestions) lines.push(`  suggestion: ${oneLine(x, 160)}`);
  }
  for (const c of s.consultations ?? []) {
    lines.push(`Consultation ${c.id} (task ${c.taskId}, ${c.kind}, loop ${c.iteration}/${c.maxLoops}): ${oneLine(c.message, 200)}`);
    lines.push(`  ${c.choices.map((x) => `${x.number}. ${x.label}`).join(' · ')}`);
    lines.push(`  answer: replanner consult ${s.runId} ${c.taskId} <1-4> ["guidance text"]`);
  }
  for (const b of s.blocked) lines.push(`Blocked: ${b.taskId} — ${b.reason}`);
  if (s.error) lines.push(`Error: ${s.error}`);
  return lines.join('\n');
}

/** One line per change worth telling while watching. */
export function describeChanges(prev: RunStatus | undefined, next: RunStatus): string[] {
  const out: string[] = [];
  if (!prev || prev.phase !== next.phase) out.push(`phase: ${next.phase}`);
  const before = new Map(prev?.tasks.map((t) => [t.id, t.state]) ?? []);
  for (const t of next.tasks) {
    if (before.get(t.id) !== t.state) out.push(`  ${MARK[t.state] ?? '[?]'} ${t.id} ${t.state}${t.summary && t.state !== 'RUNNING' ? ` — ${oneLine(t.summary, 100)}` : ''}`);
  }
  const asked = new Set((prev?.consultations ?? []).map((c) => c.id));
  for (const c of next.consultations ?? []) {
    if (!asked.has(c.id)) out.push(`  consultation ${c.id} for task ${c.taskId} (${c.kind}) — answer: replanner consult ${next.runId} ${c.taskId} <1-4> ["guidance"]`);
  }
  if (prev && prev.status !== next.status) out.push(`status: ${next.status}`);
  return out;
}

export function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
