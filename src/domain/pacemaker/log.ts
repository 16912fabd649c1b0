// P8: `[DUCK_PACEMAKER]` log lines (seed 002 開発者向けログ出力例), one line each.
import type { MaxLoopsResult } from './calculator';
import type { ConsultationEffect, InterventionKind, InterventionRecord } from './interventions';

export const PACEMAKER_LOG_PREFIX = '[DUCK_PACEMAKER]';

export interface PacemakerStartLog {
  taskId?: string;
  result: MaxLoopsResult;
}

export interface PacemakerInterventionLog {
  taskId?: string;
  kind: InterventionKind;
  iteration: number;
  maxLoops: number;
  /** Absent: the consultation is being opened. Present: the decision taken. */
  effect?: ConsultationEffect | 'continue';
  timedOut?: boolean;
  /** The limit after the decision, when it changed. */
  newMaxLoops?: number;
}

export interface PacemakerEndLog {
  taskId?: string;
  loopsUsed: number;
  maxLoops: number;
  interventions: readonly Pick<InterventionRecord, 'kind' | 'effect'>[];
  /** e.g. "success", "blocked: …", "stopped by user". */
  outcome: string;
}

export interface PacemakerLogData {
  start: PacemakerStartLog;
  intervention: PacemakerInterventionLog;
  end: PacemakerEndLog;
}

/**
 * P8: one log line, starting with `[DUCK_PACEMAKER]`:
 * - start: `[DUCK_PACEMAKER] start task=T1: profile=CODE_ANALYSIS limit=14 (base 12 × vitals 1.0 × complexity 1.24; mood=0.75 focus=0.80 stamina=0.65; complexity=0.60 medium) | <reasoning>`
 * - intervention: `[DUCK_PACEMAKER] intervention task=T1 loop 8/14: confused_thinking → consulting the user`
 *   or, once decided, `… intervention decision task=T1 loop 8/14: confused_thinking → continue_raised (limit 14→19)`
 * - end: `[DUCK_PACEMAKER] end task=T1: loops 11/14 used, interventions 1 (confused_thinking→guidance), outcome: success`
 */
export function pacemakerLogLine<K extends keyof PacemakerLogData>(kind: K, data: PacemakerLogData[K]): string {
  switch (kind) {
    case 'start':
      return startLine(data as PacemakerStartLog);
    case 'intervention':
      return interventionLine(data as PacemakerInterventionLog);
    case 'end':
      return endLine(data as PacemakerEndLog);
    default:
      return `${PACEMAKER_LOG_PREFIX} ${String(kind)}`;
  }
}

function task(taskId: string | undefined): string {
  return taskId ? ` task=${taskId}` : '';
}

function oneLine(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .join(' | ');
}

function startLine({ taskId, result: r }: PacemakerStartLog): string {
  const mode = r.fallback ? ' [fallback]' : r.disabled ? ' [disabled]' : '';
  const factors =
    r.vitals_score === null || r.complexity === null
      ? `base ${r.base_loops}`
      : `base ${r.base_loops} × vitals ${r.vitals_factor.toFixed(1)} × complexity ${r.complexity_factor.toFixed(2)}; vitals score ${r.vitals_score.toFixed(2)}; complexity ${r.complexity.toFixed(2)}`;
  return `${PACEMAKER_LOG_PREFIX} start${task(taskId)}: profile=${r.profile} limit=${r.max_loops}${mode} (${factors}) | ${oneLine(r.reasoning)}`;
}

function interventionLine(d: PacemakerInterventionLog): string {
  const where = `${task(d.taskId)} loop ${d.iteration}/${d.maxLoops}`;
  if (d.effect === undefined) return `${PACEMAKER_LOG_PREFIX} intervention${where}: ${d.kind} → consulting the user`;
  const limit = d.newMaxLoops !== undefined && d.newMaxLoops !== d.maxLoops ? ` (limit ${d.maxLoops}→${d.newMaxLoops})` : '';
  const timeout = d.timedOut ? ' [no answer, timeout]' : '';
  return `${PACEMAKER_LOG_PREFIX} intervention decision${where}: ${d.kind} → ${d.effect}${limit}${timeout}`;
}

function endLine(d: PacemakerEndLog): string {
  const list = d.interventions.map((i) => (i.effect ? `${i.kind}→${i.effect}` : i.kind)).join(', ');
  const interventions = d.interventions.length ? `${d.interventions.length} (${list})` : '0';
  return `${PACEMAKER_LOG_PREFIX} end${task(d.taskId)}: loops ${d.loopsUsed}/${d.maxLoops} used, interventions ${interventions}, outcome: ${oneLine(d.outcome)}`;
}
