// The run's questions to the user (numbered q1, q2, … over the run) and the pacemaker
// consultations its running tasks open and close.
import type { Question, QuestionAnswer, QuestionKind } from '../replan/questions';
import { TaskState, type Phase } from '../types';
import type { Applied, PendingConsultation, RunState } from './state';

export interface NewQuestions {
  kind: QuestionKind;
  phase: Phase;
  replanId: string;
  texts: string[];
  assumptions: string[];
  timeoutMinutes: number | null;
  askedAt: string;
}

/** Questions to the user (confirm a low-confidence replan, a replan that cannot run, a clarification), numbered q1, q2, … over the run. */
export function askQuestions(s: RunState, q: NewQuestions): { state: RunState; ids: string[] } {
  const asked: Question[] = q.texts.map((text, i) => ({
    id: `q${s.nextQuestion + i}`,
    kind: q.kind,
    phase: q.phase,
    replanId: q.replanId,
    text,
    assumptions: q.assumptions,
    timeoutMinutes: q.timeoutMinutes,
    askedAt: q.askedAt,
    status: 'pending',
  }));
  return {
    state: { ...s, questions: [...s.questions, ...asked], nextQuestion: s.nextQuestion + asked.length },
    ids: asked.map((x) => x.id),
  };
}

/** An answer already checked by answerProblem; `by`: who answered, where known (a reply on the run's issue). */
export function answerQuestion(s: RunState, a: QuestionAnswer, at: string, by?: string): RunState {
  return {
    ...s,
    questions: s.questions.map((q) =>
      q.id === a.questionId ? { ...q, status: 'answered', answer: a.answer.trim(), answeredAt: at, ...(by ? { answeredBy: by } : {}) } : q,
    ),
  };
}

export function timeOutQuestions(s: RunState, ids: readonly string[]): RunState {
  return { ...s, questions: s.questions.map((q) => (ids.includes(q.id) && q.status === 'pending' ? { ...q, status: 'timed_out' } : q)) };
}

export const allAnswered = (s: RunState, ids: readonly string[]): boolean => s.questions.every((q) => !ids.includes(q.id) || q.status !== 'pending');

export const pendingQuestions = (s: RunState): Question[] => s.questions.filter((q) => q.status === 'pending');

export interface ConsultationMessage {
  taskId: string;
  /** The consultation opened (`consultation` set) or closed (null). */
  consultationId: string;
  consultation: PendingConsultation | null;
}

const CONSULTING: TaskState[] = [TaskState.RUNNING, TaskState.NEEDS_CONTINUATION];

/**
 * A task opens or closes a consultation. Opening is accepted only for a running task of the
 * plan, with the id its own numbering gives next (`<taskId>-c<n>`, n above the last seen);
 * closing only the consultation open on that task.
 */
export function applyConsultation(s: RunState, m: ConsultationMessage): Applied {
  const task = s.tasks.find((t) => t.id === m.taskId);
  if (!task) return { ok: false, reason: `unknown task "${m.taskId}"` };
  const open = s.consultations.find((c) => c.taskId === m.taskId);
  if (m.consultation === null) {
    if (!open || open.id !== m.consultationId) return { ok: false, reason: `consultation "${m.consultationId}" is not open on task ${m.taskId}` };
    return { ok: true, state: { ...s, consultations: s.consultations.filter((c) => c !== open) } };
  }
  if (!CONSULTING.includes(task.state)) return { ok: false, reason: `task ${m.taskId} is ${task.state}, not running` };
  const c = m.consultation;
  const prefix = `${m.taskId}-c`;
  const n = c.id.startsWith(prefix) && /^[1-9][0-9]{0,5}$/.test(c.id.slice(prefix.length)) ? Number(c.id.slice(prefix.length)) : NaN;
  if (c.taskId !== m.taskId || c.id !== m.consultationId || Number.isNaN(n)) {
    return { ok: false, reason: `consultation id "${c.id}" is not one of task ${m.taskId} (${prefix}<n>)` };
  }
  const last = s.consultationSeq[m.taskId] ?? 0;
  if (n <= last) return { ok: false, reason: `consultation ${c.id} is not newer than ${prefix}${last}` };
  return {
    ok: true,
    state: {
      ...s,
      consultations: [...s.consultations.filter((x) => x.taskId !== m.taskId), c],
      consultationSeq: { ...s.consultationSeq, [m.taskId]: n },
    },
  };
}
