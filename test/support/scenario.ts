// Scripted whole-run scenarios: the product's (src/scripted-model/scenario.ts), plus test-only task sets.
import { NO_REPLAN_DECISION, scriptScenario, type ScenarioTask } from '../../src/scripted-model/scenario';

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

/**
 * A one-task run whose first replan decision asks the user `question` (assuming JSON when nobody
 * answers); every later decision wants no replan. `extra` adds fields to that first decision.
 */
export function scriptOneQuestionRun(fake: Parameters<typeof scriptScenario>[0], question: string, extra: Record<string, unknown> = {}): void {
  scriptScenario(fake, { tasks: [{ id: 'one', title: 'write one', files: { 'one.txt': '1' } }] });
  fake.always('replan_decision', { json: NO_REPLAN_DECISION });
  fake.script('replan_decision', {
    json: {
      ...NO_REPLAN_DECISION,
      ...extra,
      replan_needed: true,
      replan_type: 'clarification_request',
      clarification_needed: true,
      clarification_questions: [question],
      assumptions_to_make: ['JSON'],
    },
  });
}
