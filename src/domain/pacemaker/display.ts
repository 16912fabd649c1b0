// V9 / P7: a task's consultation as the pacemaker's design shows it to the user: a title, the
// situation, "how should it go on?" with the numbered choices, and how to answer; in the run's
// language (src/domain/language.ts: a Japanese instruction gets the design's own Japanese words).
// One layout for `status`, `watch`, the run's details in the Web UI and the comment. Pure.
import type { RunLanguage } from '../language';
import { replannerCommand } from '../printed-commands';

/** A consultation as the run's views carry it (src/domain/run/state.ts PendingConsultation has it all). */
export interface ConsultationShown {
  taskId: string;
  /** The situation in English. */
  message: string;
  /** The situation in Japanese (absent in runs recorded before it was kept: the English one is shown). */
  messageJa?: string;
  choices: readonly { number: number; label: string; ja: string; needsText: boolean }[];
}

/** The parts of the display; `prompt` ends where the way to answer follows ("Choose (1-4):"). */
export interface ConsultationDisplay {
  title: string;
  situation: string;
  question: string;
  choices: string[];
  prompt: string;
}

const WORDS: Readonly<Record<RunLanguage, { title: (taskId: string) => string; question: string; withText: string; prompt: (n: number) => string }>> =
  {
    en: {
      title: (taskId) => `🦆 Duck Pacemaker: task ${taskId} asks how to go on`,
      question: 'How should it go on?',
      withText: ' (with your text)',
      prompt: (n) => `Choose (1-${n}):`,
    },
    ja: {
      title: (taskId) => `🦆 Duck Pacemaker からの相談（タスク ${taskId}）`,
      question: 'どのように進めますか？',
      withText: '（説明を添えて）',
      prompt: (n) => `選択してください (1-${n}):`,
    },
  };

/** V9: the consultation's title, situation, question, numbered choices and prompt, in `language`. */
export function consultationDisplay(c: ConsultationShown, language: RunLanguage): ConsultationDisplay {
  const w = WORDS[language];
  const situation = (language === 'ja' && c.messageJa ? c.messageJa : c.message).trim();
  return {
    title: w.title(c.taskId),
    situation,
    question: w.question,
    choices: c.choices.map((x) => `${x.number}. ${language === 'ja' ? x.ja : x.label}${x.needsText ? w.withText : ''}`),
    prompt: w.prompt(Math.max(1, c.choices.length)),
  };
}

/** The command that answers a consultation from the shell (the text only where the choice needs it). */
export const consultCommandLine = (runId: string, taskId: string): string => replannerCommand('consult', runId, taskId, '<number> ["text"]');

/**
 * V9: the consultation as plain text, as the design lays it out: the title, a blank line, the
 * situation, a blank line, the question and the numbered choices, a blank line, and the prompt with
 * `answer` (how to answer here: a command, a reply).
 */
export function consultationLines(c: ConsultationShown, language: RunLanguage, answer: string): string[] {
  const d = consultationDisplay(c, language);
  return [d.title, '', ...d.situation.split('\n'), '', d.question, ...d.choices, '', `${d.prompt} ${answer}`];
}

/** V9: the consultation in Markdown (the comment): the same layout, the situation quoted, the choices a numbered list. */
export function consultationMarkdown(c: ConsultationShown, language: RunLanguage, answer: string): string {
  const d = consultationDisplay(c, language);
  return [`**${d.title}**`, '', ...d.situation.split('\n').map((l) => `> ${l}`), '', d.question, '', ...d.choices, '', `${d.prompt} ${answer}`].join(
    '\n',
  );
}
