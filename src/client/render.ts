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
  if (prev && prev.status !== next.status) out.push(`status: ${next.status}`);
  return out;
}

export function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
