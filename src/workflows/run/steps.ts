// The run's five phase steps. Each starts its phase's child workflow (with the options, the
// feedback a replan left for it and its loan from the budget), applies the result to the run's state,
// then asks "replan?": the replanning layer's jump back to an earlier phase, or the next phase.
import { executeChild, isCancellation, log, startChild } from '@temporalio/workflow';
import type { ReplannerConfig } from '../../domain/config';
import type { ReplanContext } from '../../domain/replan/prompt-context';
import {
  addActions,
  applyJump,
  restorePrevious,
  setDecomposition,
  setGoal,
  setReflection,
  specOf,
  takeFeedback,
  tasksToPlan,
  type Jump,
} from '../../domain/run/plan';
import { addPlanningUsage, afterExecution, enterPhase, finishExecution, nextPhase } from '../../domain/run/phases';
import { TaskState, type Phase } from '../../domain/types';
import type { TokenUsage } from '../../domain/usage';
import type { RunRef } from '../../activities';
import type { LeaseInput } from '../budget-lease';
import { ExecutionWorkflow } from '../execution';
import { rootMessage } from '../failures';
import type { LlmForm } from '../llm-form';
import type { RunOptions } from '../options';
import { ActionSequenceWorkflow, GoalUnderstandingWorkflow, ReflectionWorkflow, TaskDecompositionWorkflow } from '../phases';
import type { createReplanning } from './replanning';
import type { RunLedger } from './budget-ledger';
import type { ChildReads, ChildRef, RunningChildren } from './child-reads';
import { isoNow, type RunEntity } from './entity';

export type Replanning = ReturnType<typeof createReplanning>;

/** A phase step's outcome: the phase to run next, or 'done' (the phases ran out). */
export type NextPhase = Phase | 'done';

export interface PhaseStepsDeps {
  run: RunRef;
  options: RunOptions;
  config: ReplannerConfig;
  entity: RunEntity;
  children: RunningChildren;
  reads: ChildReads;
  ledger: RunLedger;
  form: LlmForm;
  replanning: Replanning;
  runWorkflowId: string;
}

export class PhaseSteps {
  constructor(private readonly deps: PhaseStepsDeps) {}

  /** Runs `phase`: its child workflow, then "replan?". */
  step(phase: Phase): Promise<NextPhase> {
    switch (phase) {
      case 'goal_understanding':
        return this.goal();
      case 'task_decomposition':
        return this.tasks();
      case 'action_sequence':
        return this.actions();
      case 'execution':
        return this.execution();
      case 'reflection':
        return this.reflection();
    }
  }

  private async goal(): Promise<NextPhase> {
    const { run, options } = this.deps;
    const workflowId = this.enter('goal_understanding');
    const goal = this.usageOf(
      await executeChild(GoalUnderstandingWorkflow, {
        workflowId,
        args: [{ run, options, ...this.feedbackFor('goal_understanding'), ...this.leaseOf(workflowId) }],
        staticSummary: 'understand the goal',
      }),
    );
    this.deps.entity.apply((s) => setGoal(s, goal));
    return this.replan('goal_understanding', { phase: 'goal_understanding', goal });
  }

  private async tasks(): Promise<NextPhase> {
    const { run, options, entity, config } = this.deps;
    const goal = entity.state.goal!;
    const previousTasks = entity.state.tasks.map(specOf);
    const workflowId = this.enter('task_decomposition');
    const decomposition = await executeChild(TaskDecompositionWorkflow, {
      workflowId,
      args: [
        {
          run,
          options,
          ...this.leaseOf(workflowId),
          goal,
          maxTasks: config.planning.maxTasks,
          ...this.feedbackFor('task_decomposition'),
          ...(previousTasks.length ? { previousTasks } : {}),
        },
      ],
      staticSummary: 'decompose into tasks',
    });
    const specs = this.usageOf(decomposition);
    entity.apply((s) => setDecomposition(s, specs, decomposition.quality));
    return this.replan('task_decomposition', { phase: 'task_decomposition', goal, tasks: specs });
  }

  private async actions(): Promise<NextPhase> {
    const { run, options, entity } = this.deps;
    const todo = tasksToPlan(entity.state);
    const workflowId = this.enter('action_sequence');
    const planned = this.usageOf(
      await executeChild(ActionSequenceWorkflow, {
        workflowId,
        args: [{ run, options, goal: entity.state.goal!, tasks: todo, ...this.feedbackFor('action_sequence'), ...this.leaseOf(workflowId) }],
        staticSummary: 'plan the action sequence',
      }),
    );
    entity.apply((s) => addActions(s, planned));
    return this.replan('action_sequence', { phase: 'action_sequence', tasks: todo, actions: planned });
  }

  private async execution(): Promise<NextPhase> {
    const { run, options, entity, config, children, replanning } = this.deps;
    const workflowId = this.enter('execution');
    const s0 = entity.state;
    // Started (not executed) so the run knows the exact child it reads progress from (and no other).
    const child = await startChild(ExecutionWorkflow, {
      workflowId,
      args: [
        {
          run,
          options,
          tasks: s0.tasks,
          actions: s0.actions,
          runWorkflowId: this.deps.runWorkflowId,
          round: s0.phaseRuns.execution ?? 1,
          taskReplanning: config.task_replanning,
          maxTasks: config.planning.maxTasks,
          replan: config.replanning.enabled ? replanning.executionPromptInput() : null,
          ...this.leaseOf(workflowId),
        },
      ],
      staticSummary: `execute ${s0.tasks.filter((t) => t.state === TaskState.READY).length} tasks`,
    });
    const started: ChildRef = { workflowId, runId: child.firstExecutionRunId };
    children.execution = started;
    let executed;
    try {
      executed = await child.result();
    } catch (err) {
      // A failed phase has no result: the run reads its last task states from it (the query
      // replays the ended workflow); a cancelled run marks what was open CANCELLED itself.
      if (!isCancellation(err)) {
        await this.deps.reads
          .readProgress(started, () => true)
          .catch((e: unknown) => log.warn(`could not read the failed execution phase: ${rootMessage(e)}`));
      }
      throw err;
    } finally {
      children.execution = undefined;
    }
    children.phase = undefined;
    entity.apply((s) => finishExecution(s, executed.tasks, executed.usage));
    this.deps.ledger.childEnded(workflowId, executed.usage);
    this.deps.form.learned(executed);
    replanning.phaseFinished('execution');
    // One route for decisions: each one the phase asked after an action, replan or not, goes
    // through the same policy step as any phase's "replan?", until one replans.
    let replanTarget: Phase | undefined;
    for (const d of executed.decisions) {
      const j = await replanning.afterPhase('execution', d.context, d);
      if (j) {
        replanTarget = this.jump(j);
        break;
      }
    }
    return afterExecution(entity.state.tasks, replanTarget);
  }

  private async reflection(): Promise<NextPhase> {
    const { run, options, entity } = this.deps;
    const s0 = entity.state;
    const workflowId = this.enter('reflection');
    const reflection = this.usageOf(
      await executeChild(ReflectionWorkflow, {
        workflowId,
        args: [{ run, options, goal: s0.goal!, tasks: s0.tasks, ...this.leaseOf(workflowId) }],
        staticSummary: 'reflect on the run',
      }),
    );
    entity.apply((s) => setReflection(s, reflection));
    return this.replan('reflection', { phase: 'reflection', goal: s0.goal!, reflection, tasks: s0.tasks });
  }

  /**
   * A phase step threw. A phase that failed returned no usage, so its loan counts as spent. When it
   * was a replan's target, the plan before the replan is restored and the failure escalated;
   * anything else (a cancellation included) is rethrown: the run ends with it.
   */
  async afterFailure(err: unknown): Promise<NextPhase> {
    const { children, ledger, replanning, entity } = this.deps;
    if (children.phase) ledger.childEnded(children.phase, undefined);
    if (isCancellation(err) || !replanning.inProgress()) throw err;
    const failed = await replanning.replanFailed(err);
    entity.apply(restorePrevious);
    return failed.jump ? this.jump(failed.jump) : nextPhase(failed.resumeAfter);
  }

  // ---------------------------------------------------------------- what every step does

  /** "replan?" after a phase: jump back to the target phase, or go on to the next phase. */
  private async replan(phase: Phase, context: ReplanContext): Promise<NextPhase> {
    this.deps.replanning.phaseFinished(phase);
    const j = await this.deps.replanning.afterPhase(phase, context);
    return j ? this.jump(j) : nextPhase(phase);
  }

  /** A phase starts: its child workflow id. */
  private enter(phase: Phase): string {
    let n = 0;
    this.deps.entity.apply((s) => {
      const r = enterPhase(s, phase);
      n = r.n;
      return r.state;
    });
    log.info(`phase ${phase} #${n}`);
    this.deps.children.phase = `${this.deps.runWorkflowId}.${phase}-${n}`;
    return this.deps.children.phase;
  }

  /** A phase child ended: its usage joins the run's (and closes its loan), the rung it learned comes back. */
  private usageOf<T>(r: { value: T; usage: TokenUsage; llmRung?: unknown }): T {
    const { children, entity, ledger, form } = this.deps;
    const ended = children.phase;
    children.phase = undefined; // the phase child ended: nothing more to tell it
    form.learned(r);
    entity.apply((s) => addPlanningUsage(s, r.usage));
    if (ended) ledger.childEnded(ended, r.usage);
    return r.value;
  }

  /** The child's loan from the run's budget (absent: no budget). */
  private leaseOf(childId: string): { budget?: LeaseInput } {
    const budget = this.deps.ledger.leaseFor(childId);
    return budget ? { budget } : {};
  }

  /** What a replan (or the user's answers) left for this phase's prompt, taken once. */
  private feedbackFor(phase: Phase): { feedback?: string } {
    let feedback: string | undefined;
    this.deps.entity.apply((s) => {
      const r = takeFeedback(s, phase);
      feedback = r.feedback;
      return r.state;
    });
    return feedback ? { feedback } : {};
  }

  /** A replan's jump applied to the plan; the phase it jumps to. */
  private jump(j: Jump): Phase {
    this.deps.entity.apply((s) => {
      const applied = applyJump(s, j, this.deps.config.planning.maxTasks, isoNow());
      if (applied.added.length || applied.dropped) {
        log.info(`plan revision: added ${applied.added.join(', ') || 'no task'}; ${applied.dropped} over planning.maxTasks dropped`);
      }
      return applied.state;
    });
    return j.target;
  }
}
