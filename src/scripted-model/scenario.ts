// Scripted whole-run scenarios for the scripted model: the planner's replies, a worker that
// really writes files and runs commands through tool calls, and a judge. Used by the offline demo,
// the client example and the tests (so: no jest here).
import type { ScriptedModel } from './server';
import type { RecordedRequest, Reply } from './types';
import { failedCommand, failedCommandVerdict, unfinishedReflection } from './evidence';

export interface ScenarioTask {
  id: string;
  title: string;
  dependencies?: string[];
  profile?: string;
  /** Files the worker writes, in order (one tool call each). */
  files?: Record<string, string>;
  /** A command the worker runs after writing its files (argv). */
  command?: string[];
}

export interface Scenario {
  goal?: Record<string, unknown>;
  tasks: ScenarioTask[];
  /** Delay of each worker reply, to make parallel tasks overlap visibly. */
  workerDelayMs?: number;
  /** A fixed latency on every LLM reply of every purpose (sets the fake's latencyMs; benchmarks). */
  latencyMs?: number;
  /**
   * The judge's verdict per task and iteration (1-based); default success. Without `confidence`, it
   * is null (the judge cannot say how sure it is).
   */
  judge?: (taskId: string, iteration: number) => Record<string, unknown>;
  /**
   * Without `judge`, judge as a real judge reads the evidence: a task whose last command did not
   * exit 0 is not done (BLOCKED, naming the command and why). The demo's; tests script their verdicts.
   */
  judgeFromEvidence?: boolean;
  reflection?: Record<string, unknown>;
  /** The plan-quality judge's reply; default: acceptable, score 90, no issues. */
  quality?: Record<string, unknown>;
  /** The planner's replacement tasks per re-decomposed task id (task_replan replies). */
  replacements?: Record<string, ScenarioTask[]>;
  /** The replan-decision LLM's default reply; default: no replan, confident. */
  replanDecision?: Record<string, unknown>;
}

export const NO_REPLAN_DECISION = {
  replan_needed: false,
  confidence: 0.9,
  reasoning: 'the phase result is sufficient; continue',
  replan_type: null,
  issues_found: [],
  recommended_actions: [],
  clarification_needed: false,
  clarification_questions: [],
};

const ACCEPTING_QUALITY = { isAcceptable: true, issues: [], suggestions: [], overallScore: 90 };

export const DEFAULT_GOAL = {
  main_objective: 'Carry out the instruction',
  success_criteria: ['every task is done and verified'],
  constraints: [],
  ambiguities: [],
  assumptions: [],
  task_profile: 'MULTI_STEP_TASK',
};

export function taskIdOf(req: RecordedRequest): string | undefined {
  return /^TASK (\S+):/m.exec(req.text)?.[1];
}

export function workerStepsSoFar(req: RecordedRequest): number {
  return req.messages.filter((m) => m.role === 'assistant').length;
}

/** The tool calls a scripted worker makes for a task, one per step, then its summary. */
export function workerReply(task: ScenarioTask, step: number): Reply {
  const calls: { name: string; arguments: unknown }[] = [
    ...Object.entries(task.files ?? {}).map(([path, content]) => ({ name: 'write_file', arguments: { path, content } })),
    ...(task.command ? [{ name: 'run_command', arguments: { argv: task.command } }] : []),
  ];
  const call = calls[step];
  if (call) return { toolCalls: [call] };
  return { content: `Task ${task.id} done: ${calls.map((c) => c.name).join(', ') || 'nothing to change'}.` };
}

/** A scenario task as the planner returns it. */
export function plannedTask(t: ScenarioTask) {
  return {
    id: t.id,
    title: t.title,
    description: t.title,
    acceptance_criteria: [`${t.title} is complete`],
    dependencies: t.dependencies ?? [],
    scope_paths: Object.keys(t.files ?? {}),
    profile: t.profile ?? 'FILE_OPERATION',
  };
}

/** Scripts every purpose of a plain run (no replanning) on `fake` (a ScriptedModel). */
export function scriptScenario(fake: ScriptedModel, s: Scenario): void {
  const byId = new Map([...s.tasks, ...Object.values(s.replacements ?? {}).flat()].map((t) => [t.id, t]));
  const judgeCalls = new Map<string, number>();
  if (s.latencyMs !== undefined) fake.latencyMs = s.latencyMs;
  fake.always('goal_understanding', { json: s.goal ?? DEFAULT_GOAL });
  fake.always('task_decomposition', { json: { tasks: s.tasks.map(plannedTask) } });
  fake.always('task_replan', (req) => {
    const id = taskIdOf(req) ?? '?';
    const tasks = s.replacements?.[id];
    return tasks ? { json: { tasks: tasks.map(plannedTask) } } : { status: 400, message: `scenario: no replacements for task ${id}` };
  });
  fake.always('quality_judge', { json: s.quality ?? ACCEPTING_QUALITY });
  fake.always('action_sequence', {
    json: {
      actions: s.tasks.map((t) => ({
        task_id: t.id,
        steps: [...Object.keys(t.files ?? {}).map((f) => `write ${f}`), ...(t.command ? [`run ${t.command.join(' ')}`] : [])],
      })),
    },
  });
  fake.always('worker_step', (req) => {
    const task = byId.get(taskIdOf(req) ?? '');
    if (!task) return { status: 400, message: `scenario: worker request for an unknown task` };
    const reply = workerReply(task, workerStepsSoFar(req));
    return s.workerDelayMs ? { delayMs: s.workerDelayMs, then: reply } : reply;
  });
  fake.always('judge', (req) => {
    const id = taskIdOf(req) ?? '?';
    const n = (judgeCalls.get(id) ?? 0) + 1;
    judgeCalls.set(id, n);
    const failed = s.judge || !s.judgeFromEvidence ? undefined : failedCommand(req);
    if (failed) return { json: failedCommandVerdict(failed) };
    return {
      json: {
        confidence: null,
        ...(s.judge?.(id, n) ?? {
          success: true,
          shouldContinue: false,
          shouldReplan: false,
          reason: `all acceptance criteria of ${id} are met`,
          missingRequirements: [],
          confidence: 0.9,
        }),
      },
    };
  });
  fake.always('replan_decision', { json: s.replanDecision ?? NO_REPLAN_DECISION });
  fake.always('reflection', (req) => ({
    json: s.reflection ??
      (s.judgeFromEvidence ? unfinishedReflection(req) : undefined) ?? {
        evaluation_result: 'success',
        achievement_rate: 100,
        issues_identified: [],
        additional_actions: [],
        revision_scope: 'minor',
        summary: 'every task finished and was verified',
      },
  }));
}
