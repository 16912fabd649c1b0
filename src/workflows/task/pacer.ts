// P1–P8 in a task: the Duck Pacemaker's state across the worker → judge loop. The policy is the
// domain's (src/domain/pacemaker); here it is kept, applied in order and logged.
import {
  calculateMaxLoops,
  initialPacemakerState,
  limitAboveFloor,
  limitFloorAfter,
  NEUTRAL_VITALS,
  NO_TASK_SIGNALS,
  pacemakerLogLine,
  recordIteration,
  paceAfterIteration,
  recordTaskSignals,
  stuckVitals,
  takePendingGuidance,
  taskComplexity,
  taskVitals,
  type ConsultationResult,
  type IterationSignals,
  type PacemakerConfig,
  type PacemakerState,
  type PacemakerStep,
  type TaskSignals,
} from '../../domain/pacemaker';
import type { StuckFinding } from '../../domain/stuck';
import type { TaskSpec } from '../../domain/types';
import type { TaskView } from './view';

export interface Pacer {
  readonly state: PacemakerState;
  /** P7: the user's guidance for the next worker request, taken once. */
  takeGuidance(): string | undefined;
  /** P1–P3, P7: an iteration ended: its signals (P9: and what the stuck detector found), the vitals and the limit recomputed from them. */
  afterIteration(it: IterationSignals & { stuck?: { finding: StuckFinding; stepLimit: number } }): void;
  /** P7: what the pacemaker says now: go on, consult the user, or stop (P9: a stuck note opens "no progress"). */
  next(stuckNote?: string): PacemakerStep;
  /** P7: a consultation ended. */
  consulted(result: ConsultationResult): void;
}

/** P1: the task's first limit, from its profile and scope (no vitals yet). */
export function startPacer(task: TaskSpec, config: PacemakerConfig, view: TaskView): Pacer {
  let signals: TaskSignals = NO_TASK_SIGNALS;
  const limit = (vitals?: PacemakerState['vitals']) =>
    calculateMaxLoops({ profile: task.profile, ...(vitals ? { vitals } : {}), complexity: taskComplexity(task.scopePaths.length, signals), config });
  const start = limit();
  let pace = initialPacemakerState(start.max_loops, NEUTRAL_VITALS);
  /** A limit set by a consultation (raised) is never lowered by a recomputation. */
  let floor = 0;
  view.paceLog(pacemakerLogLine('start', { taskId: task.id, result: start }));
  view.showPace(pace);
  return {
    get state() {
      return pace;
    },
    takeGuidance() {
      const g = takePendingGuidance(pace);
      pace = g.state;
      return g.guidance;
    },
    afterIteration(it) {
      const recorded = recordTaskSignals(signals, it);
      signals = recorded.signals;
      const measured = taskVitals(signals, pace.iteration + 1, pace.maxLoops);
      // P9: focus drops on repetition, stamina on wasted steps.
      const vitals = it.stuck ? stuckVitals(measured, it.stuck.finding, it.stuck.stepLimit) : measured;
      const before = pace.vitals;
      pace = recordIteration(pace, { progressed: recorded.progressed && !it.stuck, vitals });
      pace = { ...pace, maxLoops: limitAboveFloor(limit(vitals).max_loops, floor) };
      view.showPace(pace);
      // P8: the per-loop lines.
      if (!recorded.progressed || it.stuck) {
        view.paceLog(
          pacemakerLogLine('stall', {
            taskId: task.id,
            iteration: pace.iteration,
            maxLoops: pace.maxLoops,
            noProgressIterations: pace.noProgressIterations,
          }),
        );
      }
      view.paceLog(pacemakerLogLine('vitals', { taskId: task.id, iteration: pace.iteration, before, after: pace.vitals }));
    },
    next: (stuckNote) => paceAfterIteration(pace, config, stuckNote),
    consulted(result) {
      pace = result.state;
      floor = limitFloorAfter(floor, result.outcome);
      view.showPace(pace);
    },
  };
}
