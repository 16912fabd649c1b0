// V8 / O1 / O2: a run's pauses and the model's trouble as people read them: one line when a pause
// starts ("the model is not answering since 21:11:26 (connection refused); …") and one when it ends
// ("the model answers again"), never a line per retry, and no internal name (pause kinds, activity
// names, request purposes, Temporal's timeout names). `--json` keeps the kinds. Pure.
import { withPhaseNames } from './phases';
import { replannerCommand } from '../printed-commands';

/** A failure in a few words: a model that does not answer by its cause alone ("the model is not answering (connection refused)"). */
export function shortFailure(message: string): string {
  return /^LLM unavailable: /.test(message.trim()) ? `the model is not answering (${outageCause(message)})` : plainFailure(message);
}

/** What each request of the run is for, in words (the `x-replanner-purpose` of src/llm/purposes). */
const PURPOSE_NAMES: Readonly<Record<string, string>> = {
  goal_understanding: 'working out the goal',
  task_decomposition: 'planning the tasks',
  action_sequence: 'planning the steps',
  execution_step: 'an execution step',
  judge: "checking a task's result",
  quality_judge: 'reviewing the plan',
  replan_decision: 'deciding whether the plan holds',
  task_replan: 'splitting a task',
  reflection: 'looking back over the run',
  worker_step: 'the worker',
};

/** The activity that makes each request, for a call that has not said its purpose yet. */
const ACTIVITY_PURPOSES: Readonly<Record<string, string>> = {
  understandGoal: 'goal_understanding',
  decomposeTasks: 'task_decomposition',
  judgePlanQuality: 'quality_judge',
  planActions: 'action_sequence',
  workerStep: 'worker_step',
  judgeTask: 'judge',
  decideReplan: 'replan_decision',
  replanTask: 'task_replan',
  reflect: 'reflection',
};

/** Requests by what they were for, in words, first asked first: "working out the goal 2, the worker 9". */
export function purposeCounts(purposes: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const p of purposes) counts.set(purposeName(p), (counts.get(purposeName(p)) ?? 0) + 1);
  return [...counts].map(([name, n]) => `${name} ${n}`).join(', ');
}

/** A request's purpose (or the activity that makes it) in words; anything else with its words spaced out. */
export function purposeName(purposeOrActivity: string): string {
  const purpose = ACTIVITY_PURPOSES[purposeOrActivity] ?? purposeOrActivity;
  const known = PURPOSE_NAMES[purpose];
  if (known) return known;
  return purpose
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();
}

/** Why the model does not answer, in a few words, from the failure's text ("connection refused", "HTTP 503"). */
export function outageCause(error: string | undefined): string {
  const e = error ?? '';
  if (/ECONNREFUSED/.test(e)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN/.test(e)) return 'its address is not found';
  if (/ECONNRESET|socket hang up/i.test(e)) return 'the connection was cut';
  const http = /\bHTTP (\d{3})\b/.exec(e);
  if (http) return `HTTP ${http[1]}`;
  if (/ETIMEDOUT|timed out|timeout/i.test(e)) return 'no answer in time';
  if (/could not connect|connection error/i.test(e)) return 'could not connect';
  return 'no answer';
}

const PURPOSE_REQUEST = new RegExp(`\\b(${Object.keys(PURPOSE_NAMES).join('|')}) request( to \\S+?)?(?=:?(?:\\s|$))`, 'g');
/** The prefixes the run's pause reasons and the model's failures carried before they were worded for people. */
const OLD_PREFIXES =
  /^(LLM unavailable since \S+: )?(LLM unavailable: |LLM access rejected: |LLM cannot make tool calls: |LLM too slow for its limits: )/;

/** Temporal's names of an activity's timeouts, and what each means for a person. */
const TIMEOUT_WORDS: readonly [RegExp, string][] = [
  [/activity Heartbeat timeout/gi, 'the call stopped reporting progress (its worker may have stopped, or be too busy)'],
  [/activity StartToClose timeout/gi, 'the call took longer than its time limit'],
  [/activity ScheduleToStart timeout/gi, 'no worker took the call in time'],
  [/activity ScheduleToClose timeout/gi, 'the call ran out of time'],
];

/**
 * A failure of a model request or of an activity, in words: a model that does not answer said in a
 * few words, Temporal's timeouts said plainly, the request's purpose named ("the request to http://…
 * (reviewing the plan)"), the machine phase names replaced, the old "LLM …:" prefixes dropped.
 */
export function plainFailure(message: string): string {
  const m = message.trim();
  let out = m.replace(OLD_PREFIXES, '').replace(/\bLLM unavailable: /g, 'the model is not answering: ');
  for (const [pattern, words] of TIMEOUT_WORDS) out = out.replace(pattern, words);
  return withPhaseNames(out.replace(PURPOSE_REQUEST, (_, p: string, to?: string) => `the request${to ?? ''} (${PURPOSE_NAMES[p]})`));
}

/** The pause as `status`, `watch` and the run's details show it (the kinds of src/domain/run/llm-outage.ts). */
export interface PauseFacts {
  kind: string;
  by?: string;
  reason?: string;
  since: string;
}

/** "2026-03-01 21:11:26 UTC" (`utc`: the Web UI, the issue), or the time of day in the reader's own zone ("21:11:26": a terminal); an unreadable time as it is. */
export function clockTime(iso: string, zone: 'utc' | 'local' = 'utc'): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, '0');
  return zone === 'utc'
    ? `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`
    : `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** How long the run waits between tries of a model that does not answer (src/domain/run/llm-outage.ts: 5 s doubling, at most 60 s). */
export const RETRY_WORDS = 'it is tried again by itself, at most a minute apart';

/** What is wrong, since when (`zone`: how the time is shown), and what the run does about it. */
export function pauseTitle(p: PauseFacts, zone: 'utc' | 'local' = 'utc'): string {
  const at = clockTime(p.since, zone);
  const detail = p.reason ? plainFailure(p.reason) : '';
  switch (p.kind) {
    case 'user':
      return `paused by you since ${at}${p.reason ? ` (${p.reason})` : ''}`;
    case 'llm_outage':
      return `the model is not answering since ${at} (${outageCause(p.reason)}); ${RETRY_WORDS}`;
    case 'llm_rejected':
      return `the model refuses the run's requests since ${at}: ${detail}`;
    case 'llm_unsupported':
      return `the model cannot make tool calls (since ${at}): ${detail}`;
    case 'llm_slow':
      return `the model is too slow for the run's time limits (since ${at}): ${detail}`;
    case 'budget':
      // Its reason names the usage and the question that ends it.
      return `the budget is used up since ${at}${detail ? ` ${detail.replace(/^budget used up /, '')}` : ''}`;
    case 'host_offline':
      return `the machine that holds the workspace is offline since ${at}${detail ? `: ${detail.replace(/^workspace host (\S+) offline since \S+: /, 'host $1: ')}` : ''}`;
    default:
      return `paused since ${at}${detail ? `: ${detail}` : ''}`;
  }
}

/** What is wrong, without the time: a watch's quiet line says since when and how long ago itself. */
export function pauseCause(p: Omit<PauseFacts, 'since'>): string {
  const detail = p.reason ? plainFailure(p.reason) : '';
  switch (p.kind) {
    case 'user':
      return p.reason ?? '';
    case 'llm_outage':
      return `the model is not answering (${outageCause(p.reason)}); ${RETRY_WORDS}`;
    case 'llm_rejected':
      return `the model refuses the run's requests: ${detail}`;
    case 'llm_unsupported':
      return `the model cannot make tool calls: ${detail}`;
    case 'llm_slow':
      return `the model is too slow for the run's time limits: ${detail}`;
    default:
      return detail;
  }
}

/** What ends a pause, with the command where one does (empty: the title says it). */
export function pauseNext(kind: string, runId: string): string {
  switch (kind) {
    case 'llm_outage':
      return `to try now: ${replannerCommand('resume', runId)}`;
    case 'llm_rejected':
    case 'llm_unsupported':
    case 'llm_slow':
      return `fix it, then: ${replannerCommand('resume', runId)}`;
    case 'budget':
    case 'host_offline':
      return '';
    default:
      return `to go on: ${replannerCommand('resume', runId)}`;
  }
}

/** One line for a pause that holds: what is wrong, since when, and what ends it. */
export function pauseText(p: PauseFacts, runId: string, zone: 'utc' | 'local' = 'utc'): string {
  const next = pauseNext(p.kind, runId);
  return `${pauseTitle(p, zone)}${next ? ` — ${next}` : ''}`;
}

/** One line when a pause ends. */
export function resumeText(kind: string): string {
  switch (kind) {
    case 'user':
      return 'resumed: the run goes on';
    case 'llm_outage':
      return 'the model answers again: the run goes on';
    case 'llm_rejected':
    case 'llm_unsupported':
    case 'llm_slow':
      return 'resumed: the model is tried again';
    case 'budget':
      return 'the budget question is answered: the run goes on';
    case 'host_offline':
      return 'the machine that holds the workspace is back: the run goes on';
    default:
      return 'resumed: the run goes on';
  }
}

/** What a model call in flight is doing, as `status` and `watch` show it. */
export interface LlmCallFacts {
  /** The request's purpose (from its progress) or the activity that makes it. */
  purpose: string;
  /** What it does now ("reading the prompt (2,234 tokens)…"), absent when it waits to try again. */
  doing?: string;
  attempt: number;
  lastFailure?: string;
}

/** "reviewing the plan: waiting to try again (try 3; the last one: the model is not answering (connection refused))". */
export function llmCallText(c: LlmCallFacts): string {
  const now = c.doing ?? 'waiting to try again';
  const retry = c.attempt > 1 ? ` (try ${c.attempt}${c.lastFailure ? `; the last one: ${shortFailure(c.lastFailure)}` : ''})` : '';
  return `${purposeName(c.purpose)}: ${now}${retry}`;
}
