// The pacemaker's `[DUCK_PACEMAKER]` log lines (P8): at the start, on each intervention and progress
// stall, and at the end; one line each.
import type { MaxLoopsResult } from './calculator';
import type { ConsultationEffect, InterventionKind } from './choices';
import type { InterventionRecord } from './interventions';
import { vitalsFactor, vitalsScore, type Vitals } from './vitals';

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

/** Per loop: the loop made no progress (a progress stall). */
export interface PacemakerStallLog {
  taskId?: string;
  /** The loop just finished (1-based). */
  iteration: number;
  maxLoops: number;
  /** Consecutive loops without progress, this one included. */
  noProgressIterations: number;
}

/** Per loop: the vitals before and after the loop, and which went down. */
export interface PacemakerVitalsLog {
  taskId?: string;
  iteration: number;
  before: Vitals;
  after: Vitals;
}

/** The stuck detector ended an iteration at this step. */
export interface PacemakerStuckLog {
  taskId?: string;
  iteration: number;
  step: number;
  /** stuckNote of the finding. */
  note: string;
}

export interface PacemakerLogData {
  start: PacemakerStartLog;
  intervention: PacemakerInterventionLog;
  end: PacemakerEndLog;
  stall: PacemakerStallLog;
  vitals: PacemakerVitalsLog;
  stuck: PacemakerStuckLog;
}

/**
 * One log line, starting with `[DUCK_PACEMAKER]`:
 * - start: `[DUCK_PACEMAKER] start task=T1: profile=CODE_ANALYSIS limit=14 (base 12 × vitals 1.0 × complexity 1.24; mood=0.75 focus=0.80 stamina=0.65; complexity=0.60 medium) | <reasoning>`
 * - intervention: `[DUCK_PACEMAKER] intervention task=T1 loop 8/14: confused_thinking → consulting the user`
 *   or, once decided, `… intervention decision task=T1 loop 8/14: confused_thinking → continue_raised (limit 14→19)`
 * - end: `[DUCK_PACEMAKER] end task=T1: loops 11/14 used, interventions 1 (confused_thinking→guidance), outcome: success`
 * - stall: `[DUCK_PACEMAKER] loop 8/14 task=T1: progress stall detected (no progress for 2 loops)`
 * - stuck: `[DUCK_PACEMAKER] loop 1 step 3 task=T1: stuck: list_dir x failed (not found) 3 times in a row (2 wasted steps, 812 tokens)`
 * - vitals: `[DUCK_PACEMAKER] loop 8 task=T1: vitals change: mood 0.75→0.75, focus 0.80→0.45 (down), stamina …, score 0.71→0.57 (down), factor 1.0→1.0`
 */
export function pacemakerLogLine<K extends keyof PacemakerLogData>(kind: K, data: PacemakerLogData[K]): string {
  switch (kind) {
    case 'start':
      return startLine(data as PacemakerStartLog);
    case 'intervention':
      return interventionLine(data as PacemakerInterventionLog);
    case 'end':
      return endLine(data as PacemakerEndLog);
    case 'stall':
      return stallLine(data as PacemakerStallLog);
    case 'vitals':
      return vitalsLine(data as PacemakerVitalsLog);
    case 'stuck': {
      const d = data as PacemakerStuckLog;
      return `${PACEMAKER_LOG_PREFIX} loop ${d.iteration} step ${d.step}${task(d.taskId)}: ${oneLine(d.note)}`;
    }
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

function stallLine(d: PacemakerStallLog): string {
  const n = d.noProgressIterations;
  return `${PACEMAKER_LOG_PREFIX} loop ${d.iteration}/${d.maxLoops}${task(d.taskId)}: progress stall detected (no progress for ${n} loop${n === 1 ? '' : 's'})`;
}

function vitalsLine(d: PacemakerVitalsLog): string {
  const change = (name: string, a: number, b: number, digits: number): string => {
    const from = a.toFixed(digits);
    const to = b.toFixed(digits);
    const dir = to === from ? '' : b > a ? ' (up)' : ' (down)';
    return `${name} ${from}→${to}${dir}`;
  };
  const sa = vitalsScore(d.before);
  const sb = vitalsScore(d.after);
  return (
    `${PACEMAKER_LOG_PREFIX} loop ${d.iteration}${task(d.taskId)}: vitals change: ` +
    [
      change('mood', d.before.mood, d.after.mood, 2),
      change('focus', d.before.focus, d.after.focus, 2),
      change('stamina', d.before.stamina, d.after.stamina, 2),
      change('score', sa, sb, 2),
      change('factor', vitalsFactor(sa), vitalsFactor(sb), 1),
    ].join(', ')
  );
}
