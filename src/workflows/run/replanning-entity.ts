// What the run's replanning layer (./replanning.ts) works on: the run entity, whose one RunState
// changes only through the pure transitions of src/domain/run, and what its LLM calls need.
import type { RunRef } from '../../activities';
import type { ReplannerConfig } from '../../domain/config';
import type { RunState } from '../../domain/run/state';
import type { Budgeted } from '../budget-lease';
import type { RunOptions } from '../options';
import type { PauseGate } from '../pause-gate';

/** What the replanning layer needs of the run's entity (RunEntity, ./entity.ts): the one state, changed only by transitions. */
export interface ReplanningEntity {
  readonly state: RunState;
  apply(t: (s: RunState) => RunState): void;
}

export interface ReplanningDeps {
  run: RunRef;
  options: RunOptions;
  config: ReplannerConfig;
  entity: ReplanningEntity;
  /** The run's gate: no call starts while paused, and LLM trouble pauses the run instead of failing. */
  gate?: PauseGate;
  /** The run's budget ledger; every replan-decision call waits until it fits. */
  budget?: Pick<Budgeted, 'before' | 'after' | 'limited'>;
}
