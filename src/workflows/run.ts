// RunWorkflow: one per instruction. Owns the run state (plan, task states, counters, decision log,
// questions, usage) and drives the five phases (X1), each a child workflow. After each phase the
// replanning layer may send the run back to an earlier phase (X3), from where it runs forward
// again. Everything here is deterministic.
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  continueAsNew,
  executeChild,
  isCancellation,
  log,
  patched,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { checkRunOptions, ConfigError, parseConfig, type ReplannerConfig } from '../domain/config';
import { planSnapshot } from '../domain/replan/decision-log';
import { applyJump } from '../domain/replan/jump';
import { PHASES, TaskState, type Phase, type TaskRecord, type TaskSpec } from '../domain/types';
import type { RunRef } from '../activities';
import type { ReplanContext } from '../llm/prompts/replan';
import type { ActionPlan, Goal } from '../llm/schemas';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../llm/usage';
import { ExecutionWorkflow } from './execution';
import { rootMessage } from './failures';
import { statusQuery, taskConsultationSignal, taskProgressSignal, type RunStatus, type RunStatusValue } from './messages';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from './options';
import { ActionSequenceWorkflow, GoalUnderstandingWorkflow, ReflectionWorkflow, TaskDecompositionWorkflow } from './phases';
import { createReplanning, type Jump, type ReplanningState } from './replanning';
import { PHASE_KEY, REPLAN_COUNT_KEY, STATUS_KEY } from './search-attributes';

export interface RunInput {
  runId: string;
  instruction: string;
  workspace: string;
  /** refinement / pacemaker come from `config` only. */
  options?: Partial<Omit<RunOptions, 'refinement' | 'pacemaker'>>;
  /** X12: the replanning config (YAML + env, loaded by the client); validated again at start. Absent: defaults. */
  config?: unknown;
  /** Set by continue-as-new: where the previous run of this workflow left off. */
  carry?: RunCarry;
}

/** Everything a continued run needs (DESIGN: counters, decision log and questions are carried). */
export interface RunCarry {
  state: RunStatus;
  phase: Phase;
  actions: ActionPlan;
  planningUsage: TokenUsage;
  feedback: Partial<Record<Phase, string>>;
  replanning: ReplanningState;
  previous?: PlanSnapshot;
}

/** The plan before the replan under way, restored if that replan fails (X13). */
interface PlanSnapshot {
  goal?: Goal;
  tasks: TaskRecord[];
  actions: ActionPlan;
}

export type RunResult = Pick<RunStatus, 'runId' | 'status' | 'tasks' | 'reflection' | 'usage' | 'blocked'>;

export function runWorkflowId(runId: string): string {
  return `run-${runId}`;
}

/** Decisions `status` carries besides the whole log in the `decisions` query. */
const RECENT_DECISIONS = 8;
const next = (p: Phase): Phase | 'done' => PHASES[PHASES.indexOf(p) + 1] ?? 'done';
const specOf = ({ id, title, description, acceptanceCriteria, dependencies, scopePaths, profile }: TaskRecord): TaskSpec => ({
  id,
  title,
  description,
  acceptanceCriteria,
  dependencies,
  scopePaths,
  profile,
});

export async function RunWorkflow(input: RunInput): Promise<RunResult> {
  // Runs recorded before replanning existed replay without any of it.
  const decisionsOn = patched('replan-decisions');
  const options: RunOptions = { ...DEFAULT_RUN_OPTIONS, ...input.options };
  const run: RunRef = { runId: input.runId, workspace: input.workspace, instruction: input.instruction };
  const wfId = workflowInfo().workflowId;
  const carry = input.carry;
  const state: RunStatus = carry?.state ?? {
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
  let planningUsage: TokenUsage = carry?.planningUsage ?? ZERO_USAGE;
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

  let replanCount = 0;
  const publish = () =>
    upsertSearchAttributes([
      { key: PHASE_KEY, value: state.phase },
      { key: STATUS_KEY, value: state.status },
      { key: REPLAN_COUNT_KEY, value: replanCount },
    ]);
  const finish = (status: RunStatusValue) => {
    state.status = status;
    state.phase = 'finished';
    publish();
  };

  // X12: an invalid config fails the run at once, naming the key.
  let config: ReplannerConfig;
  try {
    config = parseConfig(input.config);
    checkRunOptions(input.options);
  } catch (e) {
    state.error = e instanceof ConfigError ? e.message : `invalid config: ${(e as Error).message}`;
    finish('FAILED');
    throw ApplicationFailure.nonRetryable(state.error, 'InvalidConfig');
  }
  // The parsed config is the source of truth for the phases and tasks (never options from the caller).
  options.refinement = config.refinement;
  options.pacemaker = config.pacemaker;

  let actions: ActionPlan = carry?.actions ?? {};
  const feedback: Partial<Record<Phase, string>> = carry?.feedback ?? {};
  let previous: PlanSnapshot | undefined = carry?.previous;
  // X9: decision records keep the whole plan (tasks with states), not a one-line summary.
  const planSummary = () => planSnapshot(state.goal?.main_objective, state.tasks);

  const rp = createReplanning({
    run,
    options,
    config,
    carried: carry?.replanning,
    planSummary,
    onChange: () => {
      const c = rp.state.counters;
      state.replans = { total: c.total, byPhase: Object.fromEntries(Object.entries(c.byPhase).filter(([, n]) => n > 0)) };
      state.lastDecision = rp.latest();
      state.recentDecisions = rp.state.log.records
        .slice(-RECENT_DECISIONS)
        .map((r) => ({ ...r, llm_decision: { reasoning: r.llm_decision.reasoning } }));
      state.questions = rp.pendingQuestions();
      if (c.total !== replanCount) {
        replanCount = c.total;
        publish();
      }
    },
    addUsage: (u) => {
      planningUsage = addUsage(planningUsage, u);
      refreshUsage();
    },
    addAssumptions: (a) => {
      if (state.goal) state.goal = { ...state.goal, assumptions: [...state.goal.assumptions, ...a] };
    },
  });
  replanCount = rp.state.counters.total;

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
  /** The phase's feedback: why a replan sent the run back here, and what the user said. */
  const feedbackFor = (phase: Phase): { feedback?: string } => {
    const text = [feedback[phase], rp.state.notes.length ? `USER ANSWERS AND ASSUMPTIONS:\n${rp.state.notes.map((n) => `- ${n}`).join('\n')}` : '']
      .filter(Boolean)
      .join('\n\n');
    delete feedback[phase];
    return text ? { feedback: text } : {};
  };

  /** X3: apply a jump's effect on the plan and go to its target phase. */
  const jumpTo = (j: Jump): Phase => {
    previous = { goal: state.goal, tasks: state.tasks, actions };
    feedback[j.target] = j.feedback;
    const applied = applyJump(state.tasks, j, config.planning.maxTasks);
    state.tasks = applied.tasks;
    if (applied.added.length || applied.dropped)
      log.info(`plan revision: added ${applied.added.join(', ') || 'no task'}; ${applied.dropped} over planning.maxTasks dropped`);
    return j.target;
  };
  const decideAfter = async (phase: Phase, context: ReplanContext): Promise<Phase | 'done'> => {
    rp.phaseFinished(phase, planSummary());
    if (!decisionsOn) return next(phase);
    const j = await rp.afterPhase(phase, context);
    return j ? jumpTo(j) : next(phase);
  };

  const runPhase = async (phase: Phase): Promise<Phase | 'done'> => {
    switch (phase) {
      case 'goal_understanding': {
        const goal: Goal = child(
          await executeChild(GoalUnderstandingWorkflow, {
            workflowId: enter(phase),
            args: [{ run, options, ...feedbackFor(phase) }],
            staticSummary: 'understand the goal',
          }),
        );
        state.goal = goal;
        return decideAfter(phase, { phase, goal });
      }
      case 'task_decomposition': {
        const goal = state.goal!;
        const previousTasks = state.tasks.length ? state.tasks.map(specOf) : undefined;
        const decomposition = await executeChild(TaskDecompositionWorkflow, {
          workflowId: enter(phase),
          args: [{ run, options, goal, maxTasks: config.planning.maxTasks, ...feedbackFor(phase), ...(previousTasks ? { previousTasks } : {}) }],
          staticSummary: 'decompose into tasks',
        });
        const specs = child(decomposition);
        if (decomposition.quality) state.quality = decomposition.quality;
        // A new decomposition is a new plan (X11: a new checklist).
        state.tasks = specs.map((t): TaskRecord => ({ ...t, state: TaskState.READY }));
        actions = {};
        return decideAfter(phase, { phase, goal, tasks: specs });
      }
      case 'action_sequence': {
        const todo = state.tasks.filter((t) => t.state !== TaskState.DONE && t.state !== TaskState.REPLACED_BY_REPLAN).map(specOf);
        const planned: ActionPlan = child(
          await executeChild(ActionSequenceWorkflow, {
            workflowId: enter(phase),
            args: [{ run, options, goal: state.goal!, tasks: todo, ...feedbackFor(phase) }],
            staticSummary: 'plan the action sequence',
          }),
        );
        actions = { ...actions, ...planned };
        return decideAfter(phase, { phase, tasks: todo, actions: planned });
      }
      case 'execution': {
        const workflowId = enter(phase);
        const round = state.phaseRuns.execution ?? 1;
        const asks = decisionsOn && config.replanning.enabled;
        const executed = await executeChild(ExecutionWorkflow, {
          workflowId,
          args: [
            {
              run,
              options,
              tasks: state.tasks,
              actions,
              runWorkflowId: wfId,
              ...(decisionsOn ? { round, taskReplanning: config.task_replanning, maxTasks: config.planning.maxTasks } : {}),
              ...(asks ? { replan: rp.executionPromptInput() } : {}),
            },
          ],
          staticSummary: `execute ${state.tasks.filter((t) => t.state === TaskState.READY).length} tasks`,
        });
        state.tasks = executed.tasks;
        executionUsage = ZERO_USAGE;
        planningUsage = addUsage(planningUsage, executed.usage);
        refreshUsage();
        rp.phaseFinished(phase, planSummary());
        if (!executed.stop) return 'reflection';
        const j = await rp.afterPhase(phase, executed.stop.context, executed.stop.decision);
        if (j) return jumpTo(j);
        // No replan after all: go on with the tasks that did not run yet.
        return state.tasks.some((t) => t.state === TaskState.READY) ? 'execution' : 'reflection';
      }
      case 'reflection': {
        const reflection = child(
          await executeChild(ReflectionWorkflow, {
            workflowId: enter(phase),
            args: [{ run, options, goal: state.goal!, tasks: state.tasks }],
            staticSummary: 'reflect on the run',
          }),
        );
        state.reflection = reflection;
        return decideAfter(phase, { phase, goal: state.goal!, reflection, tasks: state.tasks });
      }
    }
  };

  let phase: Phase = carry?.phase ?? 'goal_understanding';
  let phasesThisRun = 0;
  /** Continue-as-new between phases when the history grows (never right after starting). */
  const maybeContinueAsNew = async () => {
    const info = workflowInfo();
    if (!decisionsOn || phasesThisRun === 0) return;
    if (!info.continueAsNewSuggested && info.historyLength < options.continueAsNewAfterEvents) return;
    await condition(allHandlersFinished);
    log.info(`continue-as-new before ${phase} (history ${info.historyLength} events)`);
    const carried: RunCarry = { state, phase, actions, planningUsage, feedback, replanning: rp.state, ...(previous ? { previous } : {}) };
    await continueAsNew<typeof RunWorkflow>({ ...input, carry: carried });
  };
  publish();

  try {
    for (;;) {
      await maybeContinueAsNew();
      let to: Phase | 'done';
      try {
        to = await runPhase(phase);
      } catch (err) {
        if (isCancellation(err) || !decisionsOn || !rp.inProgress()) throw err;
        // X13: the replan failed to execute: restore the plan before it, then escalate.
        const failed = await rp.replanFailed(err);
        if (previous) {
          state.goal = previous.goal;
          state.tasks = previous.tasks;
          actions = previous.actions;
        }
        to = failed.jump ? jumpTo(failed.jump) : next(failed.resumeAfter);
      }
      phasesThisRun += 1;
      if (to === 'done') break;
      phase = to;
    }

    state.blocked = state.tasks.filter((t) => t.state === TaskState.BLOCKED).map((t) => ({ taskId: t.id, reason: t.summary ?? '' }));
    finish(state.blocked.length ? 'BLOCKED' : 'DONE');
    return result(state);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
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
