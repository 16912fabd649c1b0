// G4: what a forge's check says, in one vocabulary: pending, passed, failed or neutral (skipped,
// cancelled, allowed to fail, waiting for a person: nothing the run should fix). And the text of a
// failure as a prompt can carry it: its summary and the end of its log, bounded, without the
// terminal colours and section markers CI logs are full of.
import { clipCounted, clipTail } from '../text';
import type { PullRequestCheck } from './types';

export type CheckState = PullRequestCheck['state'];

/** A check's summary at most this long (code points). */
export const MAX_CHECK_SUMMARY_CHARS = 2000;
/** The end of a failed check's log kept, at most (code points). */
export const MAX_LOG_TAIL_CHARS = 4000;

/**
 * A GitHub check run: `status` queued / in_progress / waiting / requested / pending until
 * completed; then its `conclusion`: success; failure or timed_out (failed); neutral, skipped,
 * cancelled, stale and action_required (a person must act) are neutral.
 */
export function githubCheckRunState(status: unknown, conclusion: unknown): CheckState {
  if (status !== 'completed') return 'pending';
  if (conclusion === 'success') return 'passed';
  if (conclusion === 'failure' || conclusion === 'timed_out') return 'failed';
  return 'neutral';
}

/** A GitHub commit status: success; failure or error (failed); pending. */
export function githubStatusState(state: unknown): CheckState {
  if (state === 'success') return 'passed';
  if (state === 'failure' || state === 'error') return 'failed';
  return 'pending';
}

const GITLAB_PENDING = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled']);

/**
 * A GitLab job: success; failed (neutral when `allow_failure`: GitLab shows it as a warning);
 * created / pending / running / scheduled… pending; canceled, skipped and manual are neutral.
 */
export function gitlabJobState(status: unknown, allowFailure: unknown): CheckState {
  if (status === 'success') return 'passed';
  if (status === 'failed') return allowFailure === true ? 'neutral' : 'failed';
  return typeof status === 'string' && GITLAB_PENDING.has(status) ? 'pending' : 'neutral';
}

/**
 * A CI log as a person reads it: no terminal escapes (colours, erase-line), no GitLab section
 * markers, no timestamp GitHub Actions puts before every line, `\n` line ends; its end only,
 * bounded. (The patterns are made per call: a shared module's regular expressions are frozen in
 * the workflow sandbox, and a global one's lastIndex is written.)
 */
export function logTail(raw: string, max = MAX_LOG_TAIL_CHARS): string {
  const text = raw
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/section_(?:start|end):\d+:[A-Za-z0-9_.-]+(?:\[[^\]]*\])?\r?/g, '')
    .replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/gm, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd();
  return clipTail(text, max);
}

/** A check's summary from its parts (a check run's output title, summary and text): blank and repeated parts left out, bounded. */
export function checkSummary(...parts: unknown[]): string | undefined {
  const text = parts
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
    .map((p) => p.trim())
    .filter((p, i, all) => all.indexOf(p) === i)
    .join('\n\n');
  return text ? clipCounted(text, MAX_CHECK_SUMMARY_CHARS) : undefined;
}
