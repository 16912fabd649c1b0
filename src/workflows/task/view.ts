// What a running task shows, none of it in history: `taskStatus` for `watch`, its current details
// in the Web UI (its loop, the worker steps so far, the files changed) and its [DUCK_PACEMAKER]
// lines in the worker log and, the newest few, in the status.
import { log, setCurrentDetails, setHandler } from '@temporalio/workflow';
import { addFileChanges, type FileChange } from '../../domain/file-changes';
import { pacemakerLogLine, type PacemakerState } from '../../domain/pacemaker';
import { stuckStatusLine, type StuckStatus } from '../../domain/stuck';
import { addStepLine, markStuckLine, taskDetails, TASK_DETAIL_STEPS, type TaskStepLine } from '../../domain/task-details';
import type { TaskSpec } from '../../domain/types';
import type { WorkerStepReport } from '../../domain/worker-steps';
import { ZERO_USAGE } from '../../domain/usage';
import { taskStatusQuery, type TaskStatus } from '../messages';

/** Pacemaker lines kept in the task's status. */
const PACEMAKER_LOG_LINES = 20;

export interface TaskView {
  /** The status `taskStatus` answers; the workflow sets its loop, usage, judge reason and consultation. */
  readonly status: TaskStatus;
  /** One [DUCK_PACEMAKER] line. */
  paceLog(line: string): void;
  /** The pacemaker's limit, vitals and interventions, as the status shows them. */
  showPace(pace: PacemakerState): void;
  /** A worker step ended. */
  stepDone(iteration: number, step: number, report: WorkerStepReport): void;
  /** The details again, after a change of the status. */
  show(): void;
  /** The stuck detector ended the iteration at the newest step. */
  showStuck(stuck: StuckStatus): void;
}

/** The task's view, `taskStatus` answered from it (with the worker steps the details show; a query: no history event). */
export function taskView(task: TaskSpec): TaskView {
  // maxIterations: the pacer shows its first limit at once (startPacer).
  const status: TaskStatus = { taskId: task.id, state: 'RUNNING', iteration: 0, maxIterations: 0, usage: ZERO_USAGE };
  let stepLines: TaskStepLine[] = [];
  setHandler(taskStatusQuery, () => ({ ...status, steps: stepLines }));
  let stepsSeen = 0;
  let changes: { files: FileChange[]; unlisted: number } = { files: [], unlisted: 0 };
  const show = () =>
    setCurrentDetails(
      taskDetails({
        taskId: task.id,
        title: task.title,
        state: status.state,
        iteration: status.iteration,
        maxIterations: status.maxIterations,
        steps: stepLines,
        earlierSteps: Math.max(0, stepsSeen - TASK_DETAIL_STEPS),
        files: changes.files,
        unlistedFiles: changes.unlisted,
        ...(status.lastJudgeReason ? { lastJudgeReason: status.lastJudgeReason } : {}),
        ...(status.stuck ? { stuck: stuckStatusLine(status.stuck) } : {}),
        ...(status.consultation ? { consultation: `${status.consultation.id}: ${status.consultation.message}` } : {}),
      }),
    );
  const paceLog = (line: string) => {
    log.info(line);
    status.pacemakerLog = [...(status.pacemakerLog ?? []), line].slice(-PACEMAKER_LOG_LINES);
  };
  return {
    status,
    paceLog,
    showPace(p) {
      status.maxIterations = p.maxLoops;
      status.pacemaker = { maxLoops: p.maxLoops, vitals: p.vitals, interventions: p.interventions.length };
    },
    stepDone(iteration, step, report) {
      stepsSeen += 1;
      stepLines = addStepLine(stepLines, iteration, step, report);
      changes = addFileChanges(changes, report.files, report.moreFiles);
      show();
    },
    show,
    showStuck(stuck) {
      status.stuck = stuck;
      stepLines = markStuckLine(stepLines, stuck.note);
      paceLog(pacemakerLogLine('stuck', { taskId: task.id, iteration: stuck.iteration, step: stuck.step, note: stuck.note }));
      show();
    },
  };
}
