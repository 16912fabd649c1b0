// G3 / G4: what the run writes on its pull request. Its body and each reply carry a hidden marker
// (a body is found again, a retried reply is never posted twice); a reply to a review or comment
// names its author (a mention: they asked) and links it; the rest is the run's text, neutralized
// (a line starting with "/" is no quick action, an "@name" pings nobody).
import { neutralize, notificationMarker, withMarker } from '../notifications';
import { clipCounted } from '../text';
import type { ReplyInput } from './types';

/** GitHub's limit on a pull request's body and a comment (characters); GitLab's is larger. */
export const MAX_FORGE_BODY_CHARS = 65_000;
/** GitHub's limit on a pull request's title. */
export const MAX_TITLE_CHARS = 256;

/** The hidden line that names the run's pull request body. */
export const pullRequestMarker = (runId: string): string => `<!-- replanner:pull-request run=${runId} -->`;

/** The pull request's body as posted: the marker, then the neutralized text, bounded. */
export function pullRequestBody(runId: string, body: string): string {
  return withMarker(pullRequestMarker(runId), clipCounted(body, MAX_FORGE_BODY_CHARS - 200));
}

/** The title as posted: one line, bounded. */
export function pullRequestTitle(title: string): string {
  const line = title.replace(/\s+/g, ' ').trim() || 'Replanner run';
  return Array.from(line).length > MAX_TITLE_CHARS
    ? `${Array.from(line)
        .slice(0, MAX_TITLE_CHARS - 1)
        .join('')}…`
    : line;
}

const LOGIN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}(?:\[bot\])?$/;
const LINK = /^https?:\/\/[^\s()<>]+$/;

/** The reply's first line: who and what it answers ("@alice, about your review:"), when that is known and well-formed. */
function header(to: NonNullable<ReplyInput['inReplyTo']>): string {
  const who = LOGIN.test(to.author) ? `@${to.author}` : 'Hello';
  const what = to.kind === 'review' ? 'your review' : 'your comment';
  const linked = to.url && LINK.test(to.url) ? `[${what}](${to.url})` : what;
  return `${who}, about ${linked}:`;
}

/** A reply as posted: the marker (run and key), the header naming what it answers, the neutralized text, bounded. */
export function replyBody(input: Pick<ReplyInput, 'runId' | 'key' | 'body' | 'inReplyTo'>): string {
  const text = neutralize(clipCounted(input.body, MAX_FORGE_BODY_CHARS - 500));
  const head = input.inReplyTo ? `${header(input.inReplyTo)}\n\n` : '';
  return `${notificationMarker(input.runId, input.key)}\n${head}${text}`;
}
