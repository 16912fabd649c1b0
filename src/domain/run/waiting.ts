// What a run waits for from a person — its pending questions and consultations,
// and its pauses — and exactly how to give it, from wherever the person is: the `replanner` CLI,
// the Temporal CLI through it (an update, refused with its reason when it cannot be taken) and the Web UI's
// own "Send a Signal" action (the run's `answer` signal, JSON a person can type). One source for the
// run's current details, `status`, `list` and the tracker comment. Pure.
import { followingLine } from '../git/run-git';
import { runLanguage } from '../language';
import { consultationDisplay } from '../pacemaker/display';
import type { Question } from '../replan/questions';
import { clipCounted, clipLine } from '../text';
import { pauseTitle } from '../words/pauses';
import { activePauses } from './pause';
import { pendingQuestions } from './questions';
import type { PauseState, PendingConsultation, RunState } from './state';
import { replannerCommand, temporalCliCommand } from '../printed-commands';

/** The run's signal a person sends from the Web UI to answer a question or a consultation. */
export const ANSWER_SIGNAL = 'answer';

/** The three ways to give what the run waits for. */
export interface AnswerWays {
  /** The `replanner` command line. */
  cli: string;
  /** The `temporal` command line (an update). */
  temporal: string;
  /** The Web UI's "Send a Signal": the signal's name and the JSON input to type (absent: none). */
  signal: { name: string; input?: string };
}

/** A question or consultation waiting for an answer. */
export interface WaitingItem {
  kind: 'question' | 'consultation';
  /** `q1`, or the consultation's `<taskId>-c<n>`. */
  id: string;
  /** e.g. "question q1 (confirmation)", "consultation t2-c1 of task t2 (no progress)". */
  title: string;
  /** What is asked (one paragraph, clipped). */
  text: string;
  /** The answers it takes, where it takes only some (a confirmation: yes / no; a consultation: its four choices, numbered). */
  choices: string[];
  /** V9: a consultation's question above its numbered choices ("How should it go on?"), in the run's language. */
  question?: string;
  /** What happens when nobody answers. */
  otherwise: string;
  ways: AnswerWays;
}

/** A pause that holds, and how it ends. */
export interface PausedItem {
  title: string;
  reason?: string;
  /** How to resume it (absent: it ends by itself, or with the answer to a question above). */
  ways?: AnswerWays;
  /** What ends it when there is no `resume` for it. */
  ends?: string;
}

const MAX_TEXT_CHARS = 1000;
const workflowIdOf = (s: RunState) => `run-${s.runId}`;

/** The task's workflow id (the execution round's: `run-<id>.task-<taskId>`, `.<round>` after the first). */
export function taskWorkflowIdOf(runWorkflowId: string, taskId: string, round = 1): string {
  return `${runWorkflowId}.task-${taskId}${round > 1 ? `.${round}` : ''}`;
}

/** A phase child's workflow id: `run-<id>.<phase>-<n>` (the phase's n-th run). */
export function phaseWorkflowIdOf(runWorkflowId: string, phase: string, n: number): string {
  return `${runWorkflowId}.${phase}-${n}`;
}

/** JSON inside single quotes on a shell line: a single quote in it is closed, escaped and reopened. */
const shellJson = (value: unknown) => `'${JSON.stringify(value).replace(/'/g, `'\\''`)}'`;

/** What a person types as the answer: the exact word where one is expected, else a placeholder. */
function answerExample(q: Question): string {
  if (q.kind === 'confirmation') return 'yes';
  if (q.kind === 'budget') return 'raise <tokens>';
  return '<your answer>';
}

function questionItem(s: RunState, q: Question): WaitingItem {
  const example = answerExample(q);
  const input = { questionId: q.id, answer: example };
  const assumed = q.assumptions.length ? `, assuming: ${clipLine(q.assumptions.join('; '), 300)}` : '';
  const otherwise =
    q.timeoutMinutes === null
      ? 'The run waits until it is answered.'
      : `If nobody answers within ${q.timeoutMinutes} min of ${q.askedAt}, the run goes on${assumed || ' on its own assumptions'}.`;
  return {
    kind: 'question',
    id: q.id,
    title: `question ${q.id} (${q.kind})`,
    text: clipCounted(q.text.trim(), MAX_TEXT_CHARS),
    choices: q.kind === 'confirmation' ? ['yes', 'no'] : q.kind === 'budget' ? ['raise <tokens>', 'raise $<usd>', 'stop'] : [],
    otherwise,
    ways: {
      cli: replannerCommand('answer', s.runId, q.id, `"${example}"`),
      temporal: temporalCliCommand(`workflow update execute --workflow-id ${workflowIdOf(s)} --name answerClarification --input ${shellJson(input)}`),
      signal: { name: ANSWER_SIGNAL, input: JSON.stringify(input) },
    },
  };
}

function consultationItem(s: RunState, c: PendingConsultation): WaitingItem {
  // V9: as the pacemaker's design shows it, in the run's language.
  const shown = consultationDisplay(c, runLanguage(s.instruction));
  const taskWf = taskWorkflowIdOf(workflowIdOf(s), c.taskId, s.phaseRuns.execution ?? 1);
  return {
    kind: 'consultation',
    id: c.id,
    title: shown.title,
    text: clipCounted(shown.situation, MAX_TEXT_CHARS),
    choices: shown.choices,
    question: shown.question,
    otherwise: `If nobody answers within ${c.timeoutMinutes} min, the task goes on as the pacemaker's on_consultation_timeout says.`,
    ways: {
      cli: replannerCommand('consult', s.runId, c.taskId, '<choice> ["<text>"]'),
      temporal: temporalCliCommand(`workflow update execute --workflow-id ${taskWf} --name answerConsultation --input ${shellJson({ choice: 1 })}`),
      signal: { name: ANSWER_SIGNAL, input: JSON.stringify({ taskId: c.taskId, choice: 1 }) },
    },
  };
}

/** Every question and consultation waiting for an answer, oldest first. */
export function waitingItems(s: RunState): WaitingItem[] {
  if (s.status !== 'RUNNING') return [];
  return [...pendingQuestions(s).map((q) => questionItem(s, q)), ...s.consultations.map((c) => consultationItem(s, c))];
}

/** Who paused a run, in words: "paused by you". */
export const PAUSED_BY: Record<PauseState['by'], string> = {
  user: 'by you',
  llm: 'because of the model',
  budget: 'by its budget',
  host: 'by its workspace host',
};

function pausedItem(s: RunState, p: PauseState): PausedItem {
  // V8: what is wrong and since when, in words (the reason is part of it).
  const base = { title: pauseTitle({ ...p, ...(p.reason ? { reason: clipLine(p.reason, 600) } : {}) }) };
  if (p.kind === 'budget')
    return { ...base, ends: `it resumes when the budget question${s.budget?.waiting ? ` ${s.budget.waiting.questionId}` : ''} is answered` };
  if (p.kind === 'llm_outage') return { ...base, ends: 'it goes on by itself when the model answers again' };
  if (p.kind === 'host_offline') return { ...base, ends: "it resumes by itself when the workspace host's worker polls again" };
  return {
    ...base,
    ways: {
      cli: replannerCommand('resume', s.runId),
      temporal: temporalCliCommand(`workflow update execute --workflow-id ${workflowIdOf(s)} --name resume`),
      signal: { name: 'resumeSignal' },
    },
  };
}

/** Every pause that holds, the user's first, with how it ends. */
export const pausedItems = (s: RunState): PausedItem[] => activePauses(s).map((p) => pausedItem(s, p));

/** The Web UI's ways, in Markdown. */
function waysMarkdown(w: AnswerWays, verb: string): string[] {
  const ui = w.signal.input
    ? `signal name \`${w.signal.name}\`, data \`${w.signal.input}\`, encoding json/plain`
    : `signal name \`${w.signal.name}\`, no data`;
  return [
    `${verb} in one of three ways:`,
    `- here in the Web UI: **More Actions → Send a Signal** (top right of this page), ${ui}`,
    `- \`${w.cli}\``,
    `- \`${w.temporal}\``,
  ];
}

/**
 * The head of the run's current details while it waits or is paused: each question or
 * consultation, its choices or default, and exactly how to answer it; each pause, its reason and
 * how to resume. Empty when nothing waits.
 */
export function waitingMarkdown(s: RunState): string {
  const blocks: string[] = [];
  for (const w of waitingItems(s)) {
    const lines = [`**Waiting for your answer**: ${w.title}`, '', `> ${w.text.replace(/\n+/g, '\n> ')}`, ''];
    if (w.question) lines.push(w.question, '', ...w.choices, '');
    else if (w.choices.length) lines.push(`Choices: ${w.choices.join(' · ')}`, '');
    lines.push(w.otherwise, '', ...waysMarkdown(w.ways, 'Answer it'));
    blocks.push(lines.join('\n'));
  }
  for (const p of pausedItems(s)) {
    const lines = [`**Paused**: ${p.title}${p.reason ? `: ${p.reason}` : ''}`, ''];
    if (p.ways) lines.push(...waysMarkdown(p.ways, 'Resume it'));
    else if (p.ends) lines.push(`It is not resumed by hand: ${p.ends}.`);
    blocks.push(lines.join('\n'));
  }
  // G5: a run that follows its pull request says so, and how it ends.
  const following = s.git && followingLine(s.git);
  if (following && !blocks.length) {
    blocks.push(
      `**${following[0]!.toUpperCase()}${following.slice(1)}**\n\nIt ends when the pull request is merged or closed, or after a long time with nothing new; \`replanner cancel ${s.runId}\` stops it.`,
    );
  }
  return blocks.join('\n\n');
}

/** One line for `list`: what the run waits for, or why it is paused (empty when neither). */
export function waitingLine(s: RunState): string {
  const w = waitingItems(s)[0];
  if (w) return `${w.title}: ${clipLine(w.text, 120)} — ${w.ways.cli}`;
  const p = pausedItems(s)[0];
  if (!p) return (s.git && followingLine(s.git)) ?? '';
  return `${p.title}${p.reason ? `: ${clipLine(p.reason, 120)}` : ''}${p.ways ? ` — ${p.ways.cli}` : p.ends ? ` — ${p.ends}` : ''}`;
}
