// Scripted whole-run scenarios: the product's (src/scripted-model/scenario.ts), plus test-only task sets.
import type { ScenarioTask } from '../../src/scripted-model/scenario';

export {
  DEFAULT_GOAL,
  NO_REPLAN_DECISION,
  plannedTask,
  scriptScenario,
  taskIdOf,
  workerReply,
  workerStepsSoFar,
  type Scenario,
  type ScenarioTask,
} from '../../src/scripted-model/scenario';

/** A task "write <id>" that writes `<id>.txt` holding its id in capitals (a.txt: "A"), after `dependencies`. */
export function fileTask(id: string, dependencies: string[] = []): ScenarioTask {
  return { id, title: `write ${id}`, ...(dependencies.length ? { dependencies } : {}), files: { [`${id}.txt`]: id.toUpperCase() } };
}

/** Tasks that each write four files: four tool-call steps and a summary step = 5 worker steps per task. */
export function fourFileTasks(ids: string[]): ScenarioTask[] {
  return ids.map((id) => ({
    id,
    title: `write the ${id} files`,
    files: Object.fromEntries([1, 2, 3, 4].map((n) => [`${id}${n}.txt`, `${id}${n}`])),
  }));
}
