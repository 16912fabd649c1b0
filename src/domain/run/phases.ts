// The phase order (X1: goal understanding, task decomposition, action sequence, execution,
// reflection) and the run's end. A phase starts (enterPhase), the execution phase ends
// (finishExecution), the phases run out (completeRun), or the run fails or is cancelled.
import { PHASES, TaskState, type Phase, type TaskRecord } from '../types';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../usage';
import { closedWhy, closeOpenQuestions } from './closed';
import type { RunState } from './state';

export const nextPhase = (p: Phase): Phase | 'done' => PHASES[PHASES.indexOf(p) + 1] ?? 'done';

/**
 * Where the run goes once the execution phase has ended and each decision it asked went
 * through the replan policy (the same route as any phase's "replan?"): to the first replan's
 * target; with no replan, the execution phase once more while tasks wait READY (not started
 * because a replan was proposed that did not run), else reflection.
 */
export function afterExecution(tasks: readonly Pick<TaskRecord, 'state'>[], replanTarget: Phase | undefined): Phase {
  if (replanTarget !== undefined) return replanTarget;
  return tasks.some((t) => t.state === TaskState.READY) ? 'execution' : 'reflection';
}

/** A phase starts; returns its run number (1, 2, … after replans). */
export function enterPhase(s: RunState, phase: Phase): { state: RunState; n: number } {
  const n = (s.phaseRuns[phase] ?? 0) + 1;
  const state: RunState = { ...s, phase, phaseRuns: { ...s.phaseRuns, [phase]: n } };
  // A new execution round starts new task workflows: progress and consultations count from 1 again.
  return {
    state:
      phase === 'execution'
        ? { ...state, progressSeq: 0, executionUsage: ZERO_USAGE, consultations: [], consultationSeq: {}, executionDecisions: [] }
        : state,
    n,
  };
}

export function addPlanningUsage(s: RunState, u: TokenUsage): RunState {
  return { ...s, planningUsage: addUsage(s.planningUsage, u) };
}

/** The execution phase ended: its task states are the plan's, its usage joins the run's. */
export function finishExecution(s: RunState, tasks: TaskRecord[], usage: TokenUsage): RunState {
  return { ...s, tasks, executionUsage: ZERO_USAGE, planningUsage: addUsage(s.planningUsage, usage), consultations: [] };
}

/** The phases ran out: DONE, or BLOCKED naming the tasks that could not finish. */
export function completeRun(s: RunState): RunState {
  const blocked = s.tasks.filter((t) => t.state === TaskState.BLOCKED).map((t) => ({ taskId: t.id, reason: t.summary ?? '' }));
  return { ...s, blocked, status: blocked.length ? 'BLOCKED' : 'DONE', phase: 'finished' };
}

export function failRun(s: RunState, error: string): RunState {
  return endedEarly({ ...s, error, status: 'FAILED', phase: 'finished' });
}

/** Cancelled: what was still open is CANCELLED. */
export function cancelRun(s: RunState): RunState {
  return endedEarly({ ...closeOpenTasks(s), status: 'CANCELLED', phase: 'finished' });
}

/**
 * The run ended (failed, cancelled, stopped) while questions were still open: each is closed,
 * with why ("the run was cancelled"), so no view offers to answer it.
 */
export function endedEarly(s: RunState): RunState {
  return s.questions.some((q) => q.status === 'pending') ? { ...s, questions: closeOpenQuestions(s.questions, closedWhy(s.status)) } : s;
}

/** The run ends early (cancelled, stopped by its budget): every task still open is CANCELLED, no consultation waits. */
export function closeOpenTasks(s: RunState): RunState {
  const closed: TaskState[] = [TaskState.DONE, TaskState.BLOCKED, TaskState.REPLACED_BY_REPLAN];
  return { ...s, tasks: s.tasks.map((t) => (closed.includes(t.state) ? t : { ...t, state: TaskState.CANCELLED })), consultations: [] };
}
