// The checklist comment as the run's issue or merge request shows it: the
// run's own checklist (the Web UI's, ./checklist.ts), and under the plan what only the thread
// needs: the questions and consultations waiting for an answer and how to answer them (a reply
// here, or the CLI), the answers given, and the notifications that could not be posted (their
// text kept in the history section). Pure.
import { runLanguage } from '../language';
import { consultationMarkdown } from '../pacemaker/display';
import { clipCounted, clipLine } from '../text';
import { runChecklist } from './checklist';
import type { NotificationLedger } from './deliveries';
import type { RunState } from './state';
import { awaitingAnswers } from './tracker-answers';
import { replannerCommand } from '../printed-commands';

/** GitHub takes 65,536 characters a comment: the comment stays below in UTF-8 bytes (hence in characters). */
export const TRACKER_MAX_BYTES = 60_000;
const SHOWN_ANSWERS = 5;

/** Markdown headings of a kept notification sink below the history's own. */
const demoted = (body: string) => body.replace(/^(#{1,4}) /gm, '#### ');

/** The notifications refused for good: said under the plan, their text kept in the history. */
function refusedParts(l: NotificationLedger | undefined): { notes: string[]; history: string[] } {
  if (!l?.refused) return { notes: [], history: [] };
  const kept = l.refusedKept ?? [];
  const n = l.refused;
  const note = [
    `⚠️ **${n} notification${n === 1 ? '' : 's'} could not be posted** (${clipLine(l.refusal ?? 'refused', 300)}).`,
    kept.length ? `${kept.length === n ? 'Their' : `The last ${kept.length}'s`} text is kept in the history below.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const history = kept.map((x) => `### Not posted: ${x.key}\n\n${demoted(x.body)}\n\n_Refused: ${clipLine(x.reason, 300)}_`);
  return { notes: [note], history };
}

/** The questions and consultations that wait for an answer, and how to give it; then the newest answers. */
function questionsPart(s: RunState, service: string): string[] {
  const { questions, consultations } = awaitingAnswers(s);
  const out: string[] = [];
  if (questions.length || consultations.length) {
    const lines = ['### ❓ Waiting for your answer', ''];
    for (const q of questions) {
      const how = q.kind === 'confirmation' ? `\`/answer ${q.id} yes\` or \`/answer ${q.id} no\`` : `\`/answer ${q.id} <your answer>\``;
      lines.push(`- **${q.id}** (${q.kind}): ${clipLine(q.text, 500)} — reply ${how}`);
    }
    // V9: each task that asks how to go on, as the pacemaker's design shows it, in the run's language.
    const language = runLanguage(s.instruction);
    for (const c of consultations) {
      const shown = { ...c, message: clipCounted(c.message, 500), ...(c.messageJa ? { messageJa: clipCounted(c.messageJa, 500) } : {}) };
      lines.push(
        '',
        consultationMarkdown(shown, language, `reply \`/consult ${c.taskId} <number>\` (with your text after the number where the choice says so)`),
      );
    }
    lines.push(
      '',
      `_A reply from someone with write access to this ${service === 'GitHub' ? 'repository' : 'project'} answers; the run confirms it here. ` +
        `The CLI works too: \`${replannerCommand('answer', s.runId, '<id>', '"<answer>"')}\`. The first answer wins._`,
    );
    out.push(lines.join('\n'));
  }
  const answered = s.questions.filter((q) => q.status === 'answered' && q.kind !== 'budget').slice(-SHOWN_ANSWERS);
  if (answered.length) {
    const lines = ['### ✅ Answered', ''];
    for (const q of answered)
      lines.push(`- **${q.id}**: “${clipLine(q.answer ?? '', 300)}”${q.answeredBy ? ` — ${clipLine(q.answeredBy, 100)}` : ''}`);
    out.push(lines.join('\n'));
  }
  return out;
}

/**
 * The checklist comment's text, or undefined while there is nothing to show (no plan and no
 * question). Before the first plan a waiting question still makes the comment (it says how to
 * answer), never with an empty plan: "the plan is not made yet".
 */
export function trackerChecklist(s: RunState): string | undefined {
  const service = s.notifications?.target.split(' ')[0] ?? 'GitHub';
  const asks = questionsPart(s, service);
  if (s.tasks.length === 0 && asks.length === 0) return undefined;
  const refused = refusedParts(s.notifications);
  const notes = [...asks, ...refused.notes];
  if (s.tasks.length === 0) {
    return ['## 📋 Execution Plan', '', '_The plan is not made yet._', ...notes.flatMap((n) => ['', n])].join('\n');
  }
  return runChecklist(s, { notes, history: refused.history, maxBytes: TRACKER_MAX_BYTES });
}
