// G5: the pull request in one line for `status`, `watch`, `list` and the Web UI: "2 of 3 checks
// passing, changes requested by @alice". Only the reviews of users who may write count, as the
// forge counts them: each reviewer's latest review that approves or requests changes (a comment
// does not change it; a dismissed review clears it).
import type { PullRequestFeedback, PullRequestReview } from './types';

/** Reviewers named at most, per kind ("and 2 more" beyond). */
const MAX_NAMED = 3;

function named(logins: readonly string[]): string {
  const shown = logins.slice(0, MAX_NAMED).map((l) => `@${l}`);
  const more = logins.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

function checksPart(f: Pick<PullRequestFeedback, 'checks'>): string {
  const counted = f.checks.filter((c) => c.state !== 'neutral');
  if (counted.length === 0) return 'no checks yet';
  const passing = counted.filter((c) => c.state === 'passed').length;
  const running = counted.filter((c) => c.state === 'pending').length;
  return `${passing} of ${counted.length} check${counted.length === 1 ? '' : 's'} passing${running ? ` (${running} running)` : ''}`;
}

/** Each writer's standing review, in the order they stand: the latest that approved or requested changes. */
function standing(reviews: readonly PullRequestReview[]): Map<string, 'approved' | 'changes_requested'> {
  const out = new Map<string, 'approved' | 'changes_requested'>();
  const ordered = [...reviews].sort((a, b) => Date.parse(a.submittedAt) - Date.parse(b.submittedAt));
  for (const r of ordered) {
    if (!r.authorised || r.bot || r.own) continue;
    if (r.state === 'dismissed') out.delete(r.author);
    else if (r.state === 'approved' || r.state === 'changes_requested') {
      out.delete(r.author);
      out.set(r.author, r.state);
    }
  }
  return out;
}

/** G5: the pull request in one line: its state when not open, a draft, its checks, who requested changes or approved. */
export function feedbackSummary(f: Pick<PullRequestFeedback, 'state' | 'draft' | 'checks' | 'reviews' | 'approvedBy'>): string {
  if (f.state === 'merged') return 'merged';
  if (f.state === 'closed') return 'closed without merging';
  const stand = standing(f.reviews);
  const changes = [...stand].filter(([, s]) => s === 'changes_requested').map(([a]) => a);
  const approved = [...new Set([...[...stand].filter(([, s]) => s === 'approved').map(([a]) => a), ...f.approvedBy])].filter(
    (a) => !changes.includes(a),
  );
  const parts = [
    ...(f.draft ? ['draft'] : []),
    checksPart(f),
    ...(changes.length ? [`changes requested by ${named(changes)}`] : []),
    ...(approved.length ? [`approved by ${named(approved)}`] : []),
  ];
  return parts.join(', ');
}
