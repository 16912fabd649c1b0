// X10 / X11: what the run posts to its issue or merge request (seed 004 §11), and how a delivery
// failure is judged. Pure: the workflow (src/workflows/notifications.ts) decides *when* from two
// states, the activities (src/activities/notifications) only carry the text.
import { decideRetry, type FailureKind, type NetworkErrorKind } from './failures';
import { runChecklist } from './run/checklist';
import type { DecisionRecord, PlanSnapshot } from './replan/decision-log';
import type { Question } from './replan/questions';
import type { RunState } from './run/state';
import { TaskState, type Phase } from './types';

// ---------------------------------------------------------------- where

/** The run's issue or merge request (config `notifications.github` / `notifications.gitlab`). */
export type NotifyTarget =
  | { service: 'github'; repo: string; kind: 'issue' | 'pull'; number: number }
  | { service: 'gitlab'; project: string; kind: 'issue' | 'merge_request'; number: number; url?: string };

/** The config's notifications section, as parsed (src/domain/config.ts). */
export interface NotificationsConfig {
  github?: { repo: string; issue?: number | undefined; pull?: number | undefined } | undefined;
  gitlab?: { project: string; issue?: number | undefined; merge_request?: number | undefined; url?: string | undefined } | undefined;
}

export function notifyTargetOf(c: NotificationsConfig | undefined): NotifyTarget | undefined {
  if (c?.github) {
    const g = c.github;
    return g.pull !== undefined
      ? { service: 'github', repo: g.repo, kind: 'pull', number: g.pull }
      : { service: 'github', repo: g.repo, kind: 'issue', number: g.issue! };
  }
  if (c?.gitlab) {
    const g = c.gitlab;
    const base =
      g.merge_request !== undefined ? { kind: 'merge_request' as const, number: g.merge_request } : { kind: 'issue' as const, number: g.issue! };
    return { service: 'gitlab', project: g.project, ...base, ...(g.url ? { url: g.url } : {}) };
  }
  return undefined;
}

/** "GitHub owner/repo#12", "GitLab group/project!45" (the spelling of the CLI flags). */
export function targetLabel(t: NotifyTarget): string {
  if (t.service === 'github') return `GitHub ${t.repo}#${t.number}`;
  return `GitLab ${t.project}${t.kind === 'merge_request' ? '!' : '#'}${t.number}`;
}

/** `owner/repo`: GitHub's own rules for the two names. */
export const GITHUB_REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
/** `group[/subgroup…]/project`, or a numeric project id. */
export const GITLAB_PROJECT = /^(?:\d+|[A-Za-z0-9_.][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+)$/;
export const MAX_ISSUE_NUMBER = 2_147_483_647;

/**
 * `--github owner/repo#123` (issue or pull request: GitHub numbers both alike; a pull request's
 * comments are issue comments) → the config's `notifications.github`.
 */
export function parseGithubFlag(text: string): { ok: true; value: { repo: string; issue: number } } | { ok: false; reason: string } {
  const m = /^([^#\s]+)#(\d+)$/.exec(text.trim());
  const usage = '--github needs owner/repo#NUMBER (an issue or pull request), e.g. octo/app#12';
  if (!m) return { ok: false, reason: `${usage} (got "${text}")` };
  const n = Number(m[2]);
  if (!GITHUB_REPO.test(m[1]!)) return { ok: false, reason: `${usage}: "${m[1]}" is not owner/repo` };
  if (n < 1 || n > MAX_ISSUE_NUMBER) return { ok: false, reason: `${usage}: ${m[2]} is not an issue number` };
  return { ok: true, value: { repo: m[1]!, issue: n } };
}

/** `--gitlab group/project!45` (merge request) or `group/project#12` (issue) → `notifications.gitlab`. */
export function parseGitlabFlag(
  text: string,
): { ok: true; value: { project: string; issue: number } | { project: string; merge_request: number } } | { ok: false; reason: string } {
  const m = /^([^#!\s]+)([#!])(\d+)$/.exec(text.trim());
  const usage = '--gitlab needs group/project!NUMBER (a merge request) or group/project#NUMBER (an issue)';
  if (!m) return { ok: false, reason: `${usage} (got "${text}")` };
  const n = Number(m[3]);
  if (!GITLAB_PROJECT.test(m[1]!)) return { ok: false, reason: `${usage}: "${m[1]}" is not group/project` };
  if (n < 1 || n > MAX_ISSUE_NUMBER) return { ok: false, reason: `${usage}: ${m[3]} is not a number GitLab uses` };
  return { ok: true, value: m[2] === '!' ? { project: m[1]!, merge_request: n } : { project: m[1]!, issue: n } };
}

// ---------------------------------------------------------------- markers

/** X11: the hidden line that names the run's checklist comment (found again after a crash). */
export function checklistMarker(runId: string): string {
  return `<!-- replanner:checklist run=${runId} -->`;
}

/** X10: the hidden line of one notification (found again when its post is retried). */
export function notificationMarker(runId: string, key: string): string {
  return `<!-- replanner:notification run=${runId} key=${key} -->`;
}

/**
 * S2: texts from the LLM (reasoning, task titles, questions) must not act on the issue: a line
 * starting with "/" would be a GitLab quick action (`/close`, `/merge`, `/approve`), an "@name" would
 * ping people. A zero-width space keeps both as plain text (they read the same).
 */
export function neutralize(text: string): string {
  return text.replace(/^(\s*)\//gm, '$1\u200b/').replace(/@(?=[A-Za-z0-9_-])/g, '@\u200b');
}

/** The body as posted: the marker line first (hidden in rendered Markdown), then the neutralized text. */
export function withMarker(marker: string, body: string): string {
  return `${marker}\n${neutralize(body)}`;
}

/**
 * The worker's allowlist of targets (REPLANNER_NOTIFY_ALLOW: comma-separated `owner/repo`,
 * `group/project` or `owner/*`): anyone who can start a run chooses its target, the worker's token
 * decides what it can reach; with the list set, a run may only post where the worker allows.
 */
export function targetAllowed(t: NotifyTarget, allow: string | undefined): boolean {
  const list = (allow ?? '')
    .split(',')
    .map((x) => x.trim().toLowerCase())
    .filter(Boolean);
  if (list.length === 0) return true;
  const name = (t.service === 'github' ? t.repo : t.project).toLowerCase();
  return list.some((p) => (p.endsWith('/*') ? name.startsWith(p.slice(0, -1)) : p === name));
}

// ---------------------------------------------------------------- the checklist (X11)

const reasonOf = (r: DecisionRecord): string | undefined => {
  const x = r.llm_decision.reasoning;
  return typeof x === 'string' && x.trim() ? x : undefined;
};

/**
 * X11: the checklist comment's text: the run's own checklist (the Web UI's, runChecklist: bounded to
 * 20 KB, well under GitHub's 65,536-character comment limit), or undefined while the run has no plan
 * yet (nothing to post).
 */
export function checklistText(s: RunState): string | undefined {
  return s.tasks.length === 0 ? undefined : runChecklist(s);
}

// ---------------------------------------------------------------- notifications (X10)

export type NotificationKind =
  'replan_decided' | 'replan_started' | 'replan_completed' | 'replan_failed' | 'replan_overridden' | 'clarification_needed';

export interface Notification {
  kind: NotificationKind;
  /** Unique within the run (e.g. `replan-3.decided`): the marker that finds it again on a retry. */
  key: string;
  /** The comment's Markdown (without the marker). */
  body: string;
}

export const NOTIFICATION_HEADINGS: Readonly<Record<NotificationKind, string>> = {
  replan_decided: '## 🔄 Plan Revision Decided by AI',
  replan_started: '## ▶️ Plan Revision Started',
  replan_completed: '## ✅ Plan Revision Completed',
  replan_failed: '## ❌ Plan Revision Failed',
  replan_overridden: '## ⛔ Plan Revision Overridden by a Limit',
  clarification_needed: '## ❓ Clarification Needed (AI Decision)',
};

const PHASE_NAMES: Readonly<Record<Phase, string>> = {
  goal_understanding: 'Goal Understanding',
  task_decomposition: 'Task Decomposition',
  action_sequence: 'Action Sequence Generation',
  execution: 'Execution',
  reflection: 'Reflection',
};

const inline = (t: string) => t.replace(/\s+/g, ' ').trim();
const clip = (t: string, max: number) => (t.length > max ? `${t.slice(0, max - 1)}…` : t);
const textList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []);
const bullets = (items: string[]) => (items.length ? items.slice(0, 20).map((x) => `- ${clip(inline(x), 500)}`) : ['- none']);
const typeName = (t: string | undefined) => (t ? t.replace(/_/g, ' ') : 'replan');
const percent = (c: number) => `${Math.round(c * 100)}%`;

/** X10 / seed §11.2: "Plan Revision Decided by AI" with its fields. */
export function replanDecidedMessage(r: DecisionRecord): string {
  const d = r.llm_decision;
  const issues = [...textList(d.issues_found), ...textList(d.issues_identified), ...textList(d.missing_steps)];
  return [
    NOTIFICATION_HEADINGS.replan_decided,
    '',
    `**Phase**: ${PHASE_NAMES[r.phase]}`,
    `**Confidence**: ${percent(r.confidence)}`,
    `**Revision**: ${typeName(r.replan_type)}${r.target_phase ? ` (back to ${PHASE_NAMES[r.target_phase]})` : ''} · ${r.replan_id}`,
    ...(r.message ? [`**Note**: ${clip(inline(r.message), 500)}`] : []),
    '',
    '**Reasoning**:',
    clip(typeof d.reasoning === 'string' && d.reasoning.trim() ? d.reasoning.trim() : 'not given', 3000),
    '',
    '**Issues Found**:',
    ...bullets(issues),
    '',
    '**Recommended Actions**:',
    ...bullets([...textList(d.recommended_actions), ...textList(d.additional_actions)]),
    '',
    `*${r.timestamp}*`,
  ].join('\n');
}

/** X10: the replan under way (its phase runs again). */
export function replanStartedMessage(r: DecisionRecord, at: string): string {
  return [
    NOTIFICATION_HEADINGS.replan_started,
    '',
    `**Revision**: ${typeName(r.replan_type)} · ${r.replan_id}`,
    `**Decided in**: ${PHASE_NAMES[r.phase]}`,
    ...(r.target_phase ? [`**Running again from**: ${PHASE_NAMES[r.target_phase]}`] : []),
    '',
    `*${at}*`,
  ].join('\n');
}

function progressOf(p: PlanSnapshot | undefined): string | undefined {
  if (!p || p.tasks.length === 0) return undefined;
  const counted = p.tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
  return `${counted.filter((t) => t.state === TaskState.DONE).length}/${counted.length} tasks done`;
}

/** X10: the replan's phase finished: the new plan stands. */
export function replanCompletedMessage(r: DecisionRecord, at: string): string {
  const after = r.plan_after;
  const progress = progressOf(after);
  return [
    NOTIFICATION_HEADINGS.replan_completed,
    '',
    `**Revision**: ${typeName(r.replan_type)} · ${r.replan_id}`,
    ...(r.duration_ms !== undefined ? [`**Duration**: ${(r.duration_ms / 1000).toFixed(1)} s`] : []),
    ...(after?.tasks.length ? [`**New plan**: ${after.tasks.length} task(s)${progress ? `, ${progress}` : ''}`] : []),
    ...(after?.note ? [`**Note**: ${clip(inline(after.note), 500)}`] : []),
    '',
    `*${at}*`,
  ].join('\n');
}

/** X10 / X13: the replan failed to execute; the plan before it was restored. */
export function replanFailedMessage(r: DecisionRecord, at: string): string {
  const why = r.plan_after?.note?.replace(/^failed: /, '') ?? r.override_reason ?? 'not known';
  return [
    NOTIFICATION_HEADINGS.replan_failed,
    '',
    `**Revision**: ${typeName(r.replan_type)} · ${r.replan_id}`,
    `**Reason**: ${clip(inline(why), 1000)}`,
    '',
    'The plan before this revision was restored; the run asks the AI for alternatives and goes on.',
    '',
    `*${at}*`,
  ].join('\n');
}

/** X10 / X6: the LLM wanted a replan, the limits (or loop detection) refused it. */
export function replanOverriddenMessage(r: DecisionRecord): string {
  return [
    NOTIFICATION_HEADINGS.replan_overridden,
    '',
    `**Phase**: ${PHASE_NAMES[r.phase]}`,
    `**Confidence**: ${percent(r.confidence)}`,
    `**Wanted**: ${typeName(r.replan_type ?? (typeof r.llm_decision.replan_type === 'string' ? r.llm_decision.replan_type : undefined))} · ${r.replan_id}`,
    `**Why not**: ${clip(inline(r.message ?? r.override_reason ?? 'a replan limit was reached'), 1000)}`,
    '',
    '**Reasoning**:',
    clip(typeof r.llm_decision.reasoning === 'string' ? r.llm_decision.reasoning.trim() : 'not given', 3000),
    '',
    'The current plan continues.',
    '',
    `*${r.timestamp}*`,
  ].join('\n');
}

/**
 * X10 / seed §11.3: "Clarification Needed (AI Decision)" — the questions, why, and the assumptions
 * used if nobody answers. Answers go through the CLI (replies to the comment are not read).
 */
export function clarificationMessage(runId: string, qs: readonly Question[], context: string | undefined): string {
  const assumptions = [...new Set(qs.flatMap((q) => q.assumptions))];
  const waits = qs.find((q) => q.timeoutMinutes !== null)?.timeoutMinutes;
  return [
    NOTIFICATION_HEADINGS.clarification_needed,
    '',
    "I've analyzed the task and need some clarification to proceed effectively:",
    '',
    '**Questions**:',
    ...qs.map((q, i) => `${i + 1}. ${clip(inline(q.text), 1000)} (${q.id})`),
    '',
    '**Context**:',
    clip(context?.trim() || 'not given', 3000),
    '',
    '**If no response**:',
    waits !== undefined && waits !== null
      ? `I will proceed with the following assumptions after ${waits} minute(s):`
      : 'I will wait for an answer; these are the assumptions I would make:',
    ...bullets(assumptions),
    '',
    `Please answer with \`replanner answer ${runId} ${qs[0]?.id ?? 'q1'} "<your answer>"\` (one per question; replies to this comment are not read).`,
  ].join('\n');
}

/**
 * X10: the notifications due between two states of a run (the last one published and the current
 * one): a decision to replan, a replan started, completed or failed, an override by a limit, and
 * questions to the user. Keyed by replan id and question id, so nothing is posted twice however
 * the states are grouped.
 */
export function notificationsBetween(prev: RunState, next: RunState, at: string): Notification[] {
  const out: Notification[] = [];
  const before = new Map(prev.log.records.map((r) => [r.replan_id, r]));
  for (const r of next.log.records) {
    const old = before.get(r.replan_id);
    if (!old && r.replan_id && (r.outcome === 'replan' || r.outcome === 'confirm')) {
      out.push({ kind: 'replan_decided', key: `${r.replan_id}.decided`, body: replanDecidedMessage(r) });
    }
    if (!old && r.outcome === 'override') {
      out.push({ kind: 'replan_overridden', key: `${r.replan_id}.overridden`, body: replanOverriddenMessage(r) });
    }
    const wasOpen = !old || old.result === 'pending';
    // A clarification nobody answered completes as 'no_response_assumed': no revision ran, nothing to report.
    if (wasOpen && r.executed && r.result === 'success' && r.override_reason === undefined) {
      out.push({ kind: 'replan_completed', key: `${r.replan_id}.completed`, body: replanCompletedMessage(r, at) });
    }
    if (wasOpen && r.result === 'failure') {
      out.push({ kind: 'replan_failed', key: `${r.replan_id}.failed`, body: replanFailedMessage(r, at) });
    }
  }
  const started = next.inProgress;
  if (started && started.replanId !== prev.inProgress?.replanId) {
    const r = next.log.records.find((x) => x.replan_id === started.replanId);
    if (r) out.push({ kind: 'replan_started', key: `${r.replan_id}.started`, body: replanStartedMessage(r, at) });
  }
  const asked = new Set(prev.questions.map((q) => q.id));
  const fresh = next.questions.filter((q) => !asked.has(q.id) && q.kind !== 'budget');
  const byReplan = new Map<string, Question[]>();
  for (const q of fresh) byReplan.set(q.replanId, [...(byReplan.get(q.replanId) ?? []), q]);
  for (const [replanId, qs] of byReplan) {
    const r = next.log.records.find((x) => x.replan_id === replanId);
    out.push({ kind: 'clarification_needed', key: `${qs[0]!.id}.asked`, body: clarificationMessage(next.runId, qs, r ? reasonOf(r) : undefined) });
  }
  // Order as they happened: decided → started → questions → completed / failed / overridden.
  const order: NotificationKind[] = [
    'replan_failed',
    'replan_decided',
    'replan_overridden',
    'replan_started',
    'clarification_needed',
    'replan_completed',
  ];
  return out.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
}

// ---------------------------------------------------------------- delivery failures

export type NotifyService = NotifyTarget['service'];
const SERVICE_NAME: Record<NotifyService, string> = { github: 'GitHub', gitlab: 'GitLab' };
const TOKEN_NAME: Record<NotifyService, string> = { github: 'GITHUB_TOKEN', gitlab: 'GITLAB_TOKEN' };

/** Longest wait for a rate limit's reset: beyond it the notification is given up (and reported). */
export const MAX_RATE_LIMIT_WAIT_MS = 5 * 60_000;

export interface DeliveryFailureInput {
  service: NotifyService;
  /** HTTP status; undefined: no response (connection refused, timeout). */
  status?: number;
  /** Why no response came, when known. */
  network?: NetworkErrorKind;
  headers?: Record<string, string | undefined>;
  /** What the client said (already free of secrets). */
  detail?: string;
  nowMs: number;
}

export interface DeliveryFailure {
  /** The retry table's kind (./failures.ts). */
  kind: FailureKind;
  /** Worth trying again (rate limit, 5xx, no response); 401/403/404/422 will not fix themselves. */
  retryable: boolean;
  /** When to try again (a rate limit's reset), if the server said. */
  retryAfterMs?: number;
  /** One line for `status`: "GitHub: 403 Forbidden (check GITHUB_TOKEN's scope)". */
  message: string;
}

/**
 * X10: what a failed delivery means. Retried or not as the retry table (./failures.ts) says: a
 * rate limit (429, or GitHub's 403 with `x-ratelimit-remaining: 0` or `retry-after`) after its
 * reset, when that is at most MAX_RATE_LIMIT_WAIT_MS away; 5xx and no response with backoff.
 * 401 / 403 / 404 / other 4xx will not fix themselves: the notification is given up at once and
 * reported (the next one tries again: a token fixed meanwhile works).
 */
export function classifyDeliveryFailure(f: DeliveryFailureInput): DeliveryFailure {
  const svc = SERVICE_NAME[f.service];
  const token = TOKEN_NAME[f.service];
  const detail = f.detail ? ` — ${clip(inline(f.detail), 200)}` : '';
  const d = decideRetry({ status: f.status, network: f.network, headers: f.headers, nowMs: f.nowMs });
  const told = (message: string): DeliveryFailure => ({ kind: d.kind, retryable: d.retryable, message });
  if (f.status === undefined) return told(`${svc}: no response${detail}`);
  if (d.kind === 'rate_limit') {
    const wait = d.retryAfterMs;
    const resetAt = wait !== undefined ? ` until ${new Date(f.nowMs + wait).toISOString()}` : '';
    const message = `${svc}: ${f.status} rate limited${resetAt}`;
    if (wait !== undefined && wait > MAX_RATE_LIMIT_WAIT_MS)
      return { ...told(`${message} (too long to wait; later notifications try again)`), retryable: false };
    return { ...told(message), ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
  }
  if (f.status === 401) return told(`${svc}: 401 Unauthorized (check ${token})`);
  if (f.status === 403) return told(`${svc}: 403 Forbidden (check ${token}'s scope)`);
  if (f.status === 404) {
    return told(`${svc}: 404 Not Found (check the ${f.service === 'github' ? 'repository' : 'project'} and number, and that ${token} can see it)`);
  }
  if (d.kind !== 'outage') return told(`${svc}: ${f.status} refused${detail}`);
  // An outage's retry-after is followed when it is a sane wait; a longer one: Temporal's backoff.
  const wait = d.retryAfterMs !== undefined && d.retryAfterMs <= MAX_RATE_LIMIT_WAIT_MS ? { retryAfterMs: d.retryAfterMs } : {};
  return { ...told(`${svc}: ${f.status} ${f.status >= 500 ? 'server error' : 'failed'}${detail}`), ...wait };
}

// ---------------------------------------------------------------- the run's record of deliveries

/** What the run keeps about its notifications (RunState.notifications). */
export interface NotificationLedger {
  target: string;
  /** X11: the checklist comment, once created (edited in place from then on). */
  checklistCommentId?: number;
  delivered: number;
  /** Notifications (and checklist edits) given up after their retries. */
  failed: number;
  lastError?: string;
  lastErrorAt?: string;
}

export function emptyLedger(target: NotifyTarget): NotificationLedger {
  return { target: targetLabel(target), delivered: 0, failed: 0 };
}

export function noteDelivered(l: NotificationLedger, checklistCommentId?: number): NotificationLedger {
  return { ...l, delivered: l.delivered + 1, ...(checklistCommentId !== undefined ? { checklistCommentId } : {}) };
}

export function noteUndelivered(l: NotificationLedger, error: string, at: string): NotificationLedger {
  return { ...l, failed: l.failed + 1, lastError: clip(inline(error), 500), lastErrorAt: at };
}

/**
 * What `status` shows: "Notifications: GitHub o/r#12: 4 delivered" or, after a failure,
 * "Notifications: GitHub: 403 Forbidden (check GITHUB_TOKEN's scope) — 3 notifications not delivered".
 */
export function notificationsLine(l: NotificationLedger): string {
  const ok = `${l.delivered} delivered to ${l.target}`;
  if (!l.failed) return `Notifications: ${ok}`;
  return `Notifications: ${l.lastError ?? 'failed'} — ${l.failed} notification${l.failed === 1 ? '' : 's'} not delivered (${ok})`;
}
