// The Duck Pacemaker in a task: its state across the worker → judge loop (the loop limit, the
// vitals, consultations). The policy is the domain's (src/domain/pacemaker); here it is kept,
// applied in order and logged.
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
  /** The user's guidance for the next worker request, taken once. */
  takeGuidance(): string | undefined;
  /** An iteration ended: its signals (and what the stuck detector found), the vitals and the limit recomputed from them. */
  afterIteration(it: IterationSignals & { stuck?: { finding: StuckFinding; stepLimit: number } }): void;
  /** What the pacemaker says now: go on, consult the user, or stop (a stuck note opens the "no progress" consultation). */
  next(stuckNote?: string): PacemakerStep;
  /** A consultation ended. */
  consulted(result: ConsultationResult): void;
}

/** The task's first loop limit, from its profile and scope (no vitals yet). */
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
      // After the stuck detector fired, focus drops on repetition, stamina on wasted steps.
      const vitals = it.stuck ? stuckVitals(measured, it.stuck.finding, it.stuck.stepLimit) : measured;
      const before = pace.vitals;
      pace = recordIteration(pace, { progressed: recorded.progressed && !it.stuck, vitals });
      pace = { ...pace, maxLoops: limitAboveFloor(limit(vitals).max_loops, floor) };
      view.showPace(pace);
      // The per-loop [DUCK_PACEMAKER] lines.
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
