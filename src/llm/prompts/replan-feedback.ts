// What the replanning layer adds to a replan-decision prompt (the run's replan
// history, the triggers that already looped, what the user said) and what a replan tells the phase
// it sends the run back to.
import type { DecisionRecord, LoopingTrigger, ReplanDecision, ReplanType } from '../../domain/replan';
import { describeTrigger } from '../../domain/replan/resolve';
import { clipCounted } from '../../domain/text';
import type { Phase } from '../../domain/types';
import type { ReplanPromptInput } from './replan';

/** How many decisions the prompt's "Replan History" shows. */
const HISTORY_LINES = 6;
/** How many of the user's latest answers the prompt shows. */
const USER_ANSWER_LINES = 10;

export type ReplanPromptExtras = Pick<ReplanPromptInput, 'loopWarning' | 'history' | 'userAnswers'>;

/** The parts of a replan-decision prompt that come from the run's replanning so far (each absent when empty). */
export function replanPromptExtras(run: {
  records: readonly DecisionRecord[];
  notes: readonly string[];
  looping: readonly LoopingTrigger[];
}): ReplanPromptExtras {
  const warning = loopWarning(run.looping);
  return {
    ...(warning ? { loopWarning: warning } : {}),
    ...(run.records.length ? { history: replanHistory(run.records) } : {}),
    ...(run.notes.length ? { userAnswers: run.notes.slice(-USER_ANSWER_LINES) } : {}),
  };
}

/** One short line per recent decision. */
function replanHistory(records: readonly DecisionRecord[]): string[] {
  return records
    .slice(-HISTORY_LINES)
    .map(
      (r) =>
        `${r.replan_id} after ${r.phase}: ${r.replan_type ?? 'no replan'} → ${r.outcome}${r.override_reason ? ` (${r.override_reason})` : ''}, result ${r.result}`,
    );
}

/** Names the triggers that already looped, so the LLM tries a different approach. '' when there are none. */
export function loopWarning(looping: readonly LoopingTrigger[]): string {
  if (looping.length === 0) return '';
  return [
    'IMPORTANT — these replans were already tried and will be refused as a loop:',
    ...looping.map(({ key, count }) => `- ${describeTrigger(key)} (replanned ${count} time${count === 1 ? '' : 's'})`),
    'Do not propose the same replan again. Try a different approach: another replan type or level,',
    'different actions or tools, or continue with the current plan and state your assumptions.',
  ].join('\n');
}

/** What the target phase is told about why it runs again (`extra`: e.g. the user's answers). */
export function replanFeedback(phase: Phase, type: ReplanType, d: ReplanDecision, extra = ''): string {
  const issues = [...d.issues_found, ...(d.issues_identified ?? []), ...(d.missing_steps ?? []), ...(d.additional_actions ?? [])];
  return [
    `REPLAN (${type}) decided after the ${phase} phase: ${clipCounted(d.reasoning, 1500)}`,
    issues.length
      ? `Issues:\n${issues
          .slice(0, 20)
          .map((i) => `- ${clipCounted(i, 300)}`)
          .join('\n')}`
      : '',
    d.recommended_actions.length
      ? `Recommended:\n${d.recommended_actions
          .slice(0, 20)
          .map((i) => `- ${clipCounted(i, 300)}`)
          .join('\n')}`
      : '',
    extra,
  ]
    .filter(Boolean)
    .join('\n');
}
