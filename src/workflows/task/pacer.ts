// P1–P8 in a task: the Duck Pacemaker's state across the worker → judge loop. The policy is the
// domain's (src/domain/pacemaker); here it is kept, applied in order and logged.
import {
  calculateMaxLoops,
  evaluatePacemaker,
  initialPacemakerState,
  limitAboveFloor,
  limitFloorAfter,
  NEUTRAL_VITALS,
  NO_TASK_SIGNALS,
  pacemakerLogLine,
  recordIteration,
  recordTaskSignals,
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
import type { TaskSpec } from '../../domain/types';
import type { TaskView } from './view';

export interface Pacer {
  readonly state: PacemakerState;
  /** P7: the user's guidance for the next worker request, taken once. */
  takeGuidance(): string | undefined;
  /** P1–P3, P7: an iteration ended: its signals, the vitals and the limit recomputed from them. */
  afterIteration(it: IterationSignals): void;
  /** P7: what the pacemaker says now: go on, consult the user, or stop. */
  next(): PacemakerStep;
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
      const vitals = taskVitals(signals, pace.iteration + 1, pace.maxLoops);
      const before = pace.vitals;
      pace = recordIteration(pace, { progressed: recorded.progressed, vitals });
      pace = { ...pace, maxLoops: limitAboveFloor(limit(vitals).max_loops, floor) };
      view.showPace(pace);
      // P8: the per-loop lines.
      if (!recorded.progressed) {
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
    next: () => evaluatePacemaker(pace, config),
    consulted(result) {
      pace = result.state;
      floor = limitFloorAfter(floor, result.outcome);
      view.showPace(pace);
    },
  };
}
