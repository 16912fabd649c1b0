// The stuck detector in a task: its window, kept in this workflow's state (a worker crash does
// not reset it, the history replays it), fed each worker step as it finishes. The policy is the
// domain's (src/domain/stuck); here it is kept, gated for old histories and shown.
import {
  DEFAULT_STUCK_CONFIG,
  EMPTY_STUCK_WINDOW,
  feedStep,
  recordStuck,
  stuckStepInput,
  type StuckFinding,
  type StuckWindow,
} from '../../domain/stuck';
import type { PacemakerConfig } from '../../domain/pacemaker';
import type { StuckPromptInput } from '../../llm/prompts/task';
import type { TaskView } from './view';

export interface StuckWatch {
  /** Fed each finished step of the current iteration; a finding ends the iteration at once. */
  watch(step: number, report: Parameters<typeof stuckStepInput>[0]): StuckFinding | undefined;
  /** What the next iteration's prompt says about the finding that ended this one (none: undefined). */
  promptAfter(finding: StuckFinding | undefined): StuckPromptInput | undefined;
}

export function installStuckWatch(config: PacemakerConfig, view: TaskView): StuckWatch {
  // Runs started before the stuck detector existed carry a pacemaker config without `stuck`: the defaults.
  const stuckConfig = config.stuck ?? DEFAULT_STUCK_CONFIG;
  let window: StuckWindow = EMPTY_STUCK_WINDOW;
  return {
    watch(step, report) {
      const fed = feedStep(window, stuckStepInput(report), stuckConfig);
      window = fed.window;
      if (!fed.finding) return undefined;
      view.showStuck(recordStuck(view.status.stuck, fed.finding, view.status.iteration, step));
      return fed.finding;
    },
    promptAfter: (f) => (f ? { summary: f.summary, answers: f.answers } : undefined),
  };
}
