// RunWorkflow: one per instruction. Owns the run state (plan, task states, counters, usage) and
// drives the five phases (X1), each a child workflow. Everything here is deterministic.
import {
  ApplicationFailure,
  CancellationScope,
  executeChild,
  isCancellation,
  log,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { TaskState, type Phase, type TaskRecord } from '../domain/types';
import type { RunRef } from '../activities';
import type { ActionPlan, Goal } from '../llm/schemas';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../llm/usage';
import { ExecutionWorkflow } from './execution';
import { rootMessage } from './failures';
import { statusQuery, taskConsultationSignal, taskProgressSignal, type RunStatus, type RunStatusValue } from './messages';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from './options';
import { ActionSequenceWorkflow, GoalUnderstandingWorkflow, ReflectionWorkflow, TaskDecompositionWorkflow } from './phases';
import { PHASE_KEY, REPLAN_COUNT_KEY, STATUS_KEY } from './search-attributes';

export interface RunInput {
  runId: string;
  instruction: string;
  workspace: string;
  options?: Partial<RunOptions>;
}

export type RunResult = Pick<RunStatus, 'runId' | 'status' | 'tasks' | 'reflection' | 'usage' | 'blocked'>;

export function runWorkflowId(runId: string): string {
  return `run-${runId}`;
}

export async function RunWorkflow(input: RunInput): Promise<RunResult> {
  const options: RunOptions = { ...DEFAULT_RUN_OPTIONS, ...input.options };
  const run: RunRef = { runId: input.runId, workspace: input.workspace, instruction: input.instruction };
  const wfId = workflowInfo().workflowId;
  const state: RunStatus = {
    runId: input.runId,
    instruction: input.instruction,
    workspace: input.workspace,
    phase: 'goal_understanding',
    status: 'RUNNING',
    tasks: [],
    phaseRuns: {},
    usage: ZERO_USAGE,
    blocked: [],
  };
  // Usage of the current execution phase arrives cumulatively by signal; kept apart until it ends.
  let planningUsage: TokenUsage = ZERO_USAGE;
  let executionUsage: TokenUsage = ZERO_USAGE;
  const refreshUsage = () => (state.usage = addUsage(planningUsage, executionUsage));

  setHandler(statusQuery, () => state);
  setHandler(taskProgressSignal, (p) => {
    state.tasks = p.tasks;
    executionUsage = p.usage;
    refreshUsage();
  });
  // P7: consultations of running tasks, so `status` shows what the user is asked.
  setHandler(taskConsultationSignal, ({ taskId, consultation }) => {
    const others = (state.consultations ?? []).filter((c) => c.taskId !== taskId);
    state.consultations = consultation ? [...others, consultation] : others;
  });

  const publish = () =>
    upsertSearchAttributes([
      { key: PHASE_KEY, value: state.phase },
      { key: STATUS_KEY, value: state.status },
      { key: REPLAN_COUNT_KEY, value: 0 },
    ]);
  const enter = (phase: Phase): string => {
    state.phase = phase;
    const n = (state.phaseRuns[phase] ?? 0) + 1;
    state.phaseRuns[phase] = n;
    publish();
    log.info(`phase ${phase} #${n}`);
    return `${wfId}.${phase}-${n}`;
  };
  const child = <T>(r: { value: T; usage: TokenUsage }): T => {
    planningUsage = addUsage(planningUsage, r.usage);
    refreshUsage();
    return r.value;
  };
  const finish = (status: RunStatusValue) => {
    state.status = status;
    state.phase = 'finished';
    publish();
  };
  publish();

  try {
    const goal: Goal = child(
      await executeChild(GoalUnderstandingWorkflow, {
        workflowId: enter('goal_understanding'),
        args: [{ run, options }],
        staticSummary: 'understand the goal',
      }),
    );
    state.goal = goal;

    const decomposition = await executeChild(TaskDecompositionWorkflow, {
      workflowId: enter('task_decomposition'),
      args: [{ run, options, goal }],
      staticSummary: 'decompose into tasks',
    });
    const specs = child(decomposition);
    if (decomposition.quality) state.quality = decomposition.quality;
    state.tasks = specs.map((t): TaskRecord => ({ ...t, state: TaskState.READY }));

    const actions: ActionPlan = child(
      await executeChild(ActionSequenceWorkflow, {
        workflowId: enter('action_sequence'),
        args: [{ run, options, goal, tasks: specs }],
        staticSummary: 'plan the action sequence',
      }),
    );

    const executed = await executeChild(ExecutionWorkflow, {
      workflowId: enter('execution'),
      args: [{ run, options, tasks: state.tasks, actions, runWorkflowId: wfId }],
      staticSummary: `execute ${state.tasks.length} tasks`,
    });
    state.tasks = executed.tasks;
    executionUsage = ZERO_USAGE;
    planningUsage = addUsage(planningUsage, executed.usage);
    refreshUsage();

    state.reflection = child(
      await executeChild(ReflectionWorkflow, {
        workflowId: enter('reflection'),
        args: [{ run, options, goal, tasks: state.tasks }],
        staticSummary: 'reflect on the run',
      }),
    );

    state.blocked = state.tasks
      .filter((t) => t.state === TaskState.BLOCKED)
      .map((t) => ({ taskId: t.id, reason: t.summary ?? '' }));
    finish(state.blocked.length ? 'BLOCKED' : 'DONE');
    return result(state);
  } catch (err) {
    if (isCancellation(err)) {
      state.tasks = state.tasks.map((t) =>
        t.state === TaskState.DONE || t.state === TaskState.BLOCKED || t.state === TaskState.REPLACED_BY_REPLAN
          ? t
          : { ...t, state: TaskState.CANCELLED },
      );
      await CancellationScope.nonCancellable(async () => finish('CANCELLED'));
      throw err;
    }
    state.error = rootMessage(err);
    finish('FAILED');
    throw ApplicationFailure.nonRetryable(state.error, 'RunFailed');
  }
}

function result(s: RunStatus): RunResult {
  return { runId: s.runId, status: s.status, tasks: s.tasks, reflection: s.reflection, usage: s.usage, blocked: s.blocked };
}
