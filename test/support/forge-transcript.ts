// What a fake forge recorded for one run, as a person reads a pull request's thread: every write
// in order with its answer, the reads between two writes counted by kind, and marks the test adds
// (a worker killed). The pull-request tests write it to the file REPLANNER_PR_TRANSCRIPT names, so a
// closing note can quote the thread as the API server saw it; nothing asserts on its wording.
import * as fs from 'node:fs';
import type { ForgeRequest } from './fake-forge';

/** A moment the test marks in the transcript ("worker killed: after the push"). */
export interface TranscriptMark {
  at: number;
  text: string;
}

const oneLine = (s: string, max = 110) => {
  const l = s.replace(/\s+/g, ' ').trim();
  return l.length > max ? `${l.slice(0, max)}…` : l;
};

/** A read's kind: its path with numbers and hashes as placeholders. */
const readKind = (r: ForgeRequest) => r.path.replace(/\/[0-9a-f]{40}\b/g, '/<sha>').replace(/\/\d+(?=\/|$)/g, '/<n>');

function writeLine(r: ForgeRequest): string {
  const b = r.body ?? {};
  const answer = r.status === undefined ? 'held, never answered' : String(r.status);
  if (r.path.endsWith('/graphql')) {
    // The operation: the first field under the query's opening brace ("{ markPullRequestReadyForReview(…").
    const op = /\{\s*(\w+)/.exec(typeof b.query === 'string' ? b.query : '');
    return `POST graphql ${op?.[1] ?? ''} → ${answer}`;
  }
  const fields = Object.entries(b)
    .filter(([k]) => k !== 'body')
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ');
  const text = typeof b.body === 'string' ? ` body (${b.body.length} chars): "${oneLine(b.body)}"` : '';
  return `${r.method} ${r.path} → ${answer}${fields ? ` {${fields}}` : ''}${text}`;
}

/** The transcript: seconds from `t0`, writes and marks one per line, the reads between them counted. */
export function forgeTranscript(requests: readonly ForgeRequest[], t0: number, marks: readonly TranscriptMark[] = []): string {
  const lines: string[] = [];
  let reads = new Map<string, number>();
  const flushReads = () => {
    if (reads.size)
      lines.push(`        … ${[...reads.values()].reduce((a, b) => a + b, 0)} reads: ${[...reads].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    reads = new Map();
  };
  const items = [...requests.map((r) => ({ at: r.at, r })), ...marks.map((m) => ({ at: m.at, m }))].sort((a, b) => a.at - b.at);
  for (const it of items) {
    const when = `+${((it.at - t0) / 1000).toFixed(1).padStart(6)} s`;
    if ('m' in it) {
      flushReads();
      lines.push(`${when}  ## ${it.m.text}`);
    } else if (it.r.method === 'GET') {
      reads.set(readKind(it.r), (reads.get(readKind(it.r)) ?? 0) + 1);
    } else {
      flushReads();
      lines.push(`${when}  ${writeLine(it.r)}`);
    }
  }
  flushReads();
  return lines.join('\n');
}

/** Appends a titled section to the file REPLANNER_PR_TRANSCRIPT names (nothing when it is not set). */
export function writeTranscript(title: string, sections: Record<string, string>): void {
  const file = process.env.REPLANNER_PR_TRANSCRIPT;
  if (!file) return;
  const text = [`# ${title}`, ...Object.entries(sections).flatMap(([h, body]) => ['', `## ${h}`, '', body])].join('\n');
  fs.appendFileSync(file, `${text}\n\n`);
}
