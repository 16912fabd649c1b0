// ExecutionWorkflow (phase 4): runs the task graph as TaskWorkflow children in DAG order, at most
// maxParallelTasks at once, and reports every state change to its run so `status` stays live.
// A task the judge sends back is re-decomposed here (J6). After each finished action it asks the
// replan-decision LLM (X1, X4); a decision that wants a replan ends the phase (running tasks
// finish first, none start). Every decision, replan or not, goes to the run in this phase's
// result (one route, unforgeable): the run owns the policy, counters, log and questions.
import { CancellationScope, executeChild, getExternalWorkflowHandle, isCancellation, log, proxyActivities } from '@temporalio/workflow';
import { activeTasks, planSizeFeedback, planSizeProblem } from '../domain/bounds';
import type { TaskReplanningConfig } from '../domain/config';
import { blockedByDependency, readyTasks } from '../domain/graph';
import {
  applyRedecomposition,
  canRedecompose,
  emptyProgress,
  recordActionResult,
  wantsReplan,
  type ExecutionProgress,
  type ReplanDecision,
} from '../domain/replan';
import { TaskState, type TaskRecord } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import type { ReplanContext } from '../llm/prompts/replan';
import type { ActionPlan } from '../llm/schemas';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../llm/usage';
import { rootMessage } from './failures';
import { taskProgressSignal } from './messages';
import { llmActivityOptions, type RunOptions } from './options';
import { installPauseGate, startPauseRelay, type PauseRelay } from './pause-gate';
import { TaskWorkflow, type TaskOutcome } from './task';

/** What the run gives the phase for its replan-decision prompts (X6 loop warning, X9 history). */
export interface ExecutionReplanInput {
  loopWarning?: string;
  history?: string[];
  userAnswers?: string[];
}

export interface ExecutionInput {
  run: RunRef;
  options: RunOptions;
  tasks: TaskRecord[];
  actions: ActionPlan;
  /** Workflow id of the RunWorkflow to report progress to. */
  runWorkflowId: string;
  /** Execution round of the run (1, 2, … after replans); from 2 on, task workflow ids get `.<round>`. */
  round: number;
  /** X1: ask the replan-decision LLM after each action; null: replanning is disabled. */
  replan: ExecutionReplanInput | null;
  /** J6–J8: re-decompose a task the judge sends back. */
  taskReplanning: TaskReplanningConfig;
  /** S3: planning.maxTasks, for the plan's size after a re-decomposition. */
  maxTasks: number;
}

/** X1: a replan decision asked after an action (task) of this phase. */
export interface ExecutionDecision {
  /** The task whose outcome the decision is about. */
  taskId: string;
  decision: ReplanDecision;
  parseError?: string;
  context: ReplanContext;
}

export interface ExecutionResult {
  tasks: TaskRecord[];
  usage: TokenUsage;
  /** Every decision asked, in order; when the last wants a replan, the phase ended early. */
  decisions: ExecutionDecision[];
}

export function taskWorkflowId(runWorkflowId: string, taskId: string, round = 1): string {
  return `${runWorkflowId}.task-${taskId}${round > 1 ? `.${round}` : ''}`;
}

const OPEN: TaskState[] = [TaskState.READY, TaskState.RUNNING, TaskState.NEEDS_CONTINUATION];

export async function ExecutionWorkflow(input: ExecutionInput): Promise<ExecutionResult> {
  let tasks = input.tasks.map((t) => ({ ...t }));
  let usage = ZERO_USAGE;
  const decisions: ExecutionDecision[] = [];
  /** A decision wants a replan: no task starts any more. */
  let stop = false;
  let seq = 0;
  const running = new Map<string, Promise<{ id: string; outcome?: TaskOutcome; error?: unknown }>>();
  const parent = getExternalWorkflowHandle(input.runWorkflowId);
  const report = () =>
    // Reporting must not be interrupted by a cancellation, or the run would show stale states.
    CancellationScope.nonCancellable(() => parent.signal(taskProgressSignal, { round: input.round, seq: ++seq, tasks, usage }));
  const setTask = (id: string, patch: Partial<TaskRecord>) => {
    tasks = tasks.map((t) => (t.id === id ? { ...t, ...patch } : t));
  };
  // O1: told by the run; relayed to the running tasks (again on every resume); gates this phase's LLM calls and task starts.
  // (a holder: a buffered pauseGate signal may arrive while the gate is being installed)
  const relay: { current?: PauseRelay } = {};
  const gate = installPauseGate((paused) => (paused ? undefined : relay.current?.retell()));
  relay.current = startPauseRelay(
    () => gate.paused,
    () => [...running.keys()].map((id) => taskWorkflowId(input.runWorkflowId, id, input.round)),
  );
  const llm = (summary: string, timeout?: number) =>
    gate.gated(
      proxyActivities<Activities>({
        ...llmActivityOptions(input.options, summary),
        ...(timeout ? { startToCloseTimeout: timeout } : {}),
      }),
    );
  // X4: progress over the actions (tasks) of this plan.
  const active = () => tasks.filter((t) => t.state !== TaskState.REPLACED_BY_REPLAN);
  let progress: ExecutionProgress = {
    ...emptyProgress(active().length),
    completed: active().filter((t) => t.state === TaskState.DONE).length,
  };
  const remaining = () =>
    active()
      .filter((t) => OPEN.includes(t.state))
      .map((t) => `${t.id}: ${t.title}`);

  /** J6/J7: replace a task by its re-decomposition, or block it when that may not or cannot happen. */
  const redecompose = async (task: TaskRecord, o: TaskOutcome, cfg: TaskReplanningConfig): Promise<void> => {
    const can = canRedecompose(task, { task_replanning: cfg });
    if (!can.ok) {
      setTask(task.id, { state: TaskState.BLOCKED, summary: `${o.reason}${o.reason ? ' — ' : ''}${can.message}` });
      return;
    }
    const maxTasks = input.maxTasks;
    try {
      let feedback: string | undefined;
      for (let sizeRepairs = 0; ; sizeRepairs++) {
        const r = await llm(`re-decompose task ${task.id}`, cfg.timeoutSeconds * 1000).replanTask({
          ...input.run,
          task,
          reason: o.reason,
          missingRequirements: o.judge?.missingRequirements ?? [],
          logPath: o.logPath,
          otherTasks: tasks.filter((t) => t.id !== task.id).map((t) => ({ id: t.id, title: t.title, state: t.state })),
          ...(feedback ? { feedback } : {}),
        });
        usage = addUsage(usage, r.usage);
        const applied = applyRedecomposition(tasks, task.id, r.value, o.reason, cfg.maxIterations);
        if (!applied.ok) {
          setTask(task.id, { state: TaskState.BLOCKED, summary: `re-decomposition failed: ${applied.reason}` });
          return;
        }
        // S3: the whole plan after the replacement counts; once back to the planner, then BLOCKED.
        const tooLarge = planSizeProblem(activeTasks(applied.tasks).length, maxTasks);
        if (tooLarge && sizeRepairs < 1) {
          feedback = planSizeFeedback(tooLarge, maxTasks);
          continue;
        }
        if (tooLarge) {
          setTask(task.id, { state: TaskState.BLOCKED, summary: `re-decomposition refused: ${tooLarge}` });
          return;
        }
        tasks = applied.tasks;
        log.info(`task ${task.id} re-decomposed into ${applied.replacementIds.join(', ')}`);
        progress = { ...progress, total: active().length, remaining: remaining() };
        return;
      }
    } catch (err) {
      if (isCancellation(err)) throw err;
      // J7: a failing planner blocks the task (fallback), it does not fail the run.
      setTask(task.id, { state: TaskState.BLOCKED, summary: `re-decomposition failed: ${rootMessage(err)}` });
    }
  };

  /** X1/X4: after an action, should the run replan? A wanted replan stops starting tasks. */
  const decideAfter = async (task: TaskRecord, ok: boolean, replan: ExecutionReplanInput): Promise<void> => {
    progress = { ...recordActionResult(progress, ok), total: active().length, remaining: remaining() };
    const context: ReplanContext = {
      phase: 'execution',
      executed: { taskId: task.id, title: task.title, state: task.state, summary: task.summary },
      ...(ok ? {} : { error: task.summary }),
      progress,
    };
    const r = await llm(`replan? after task ${task.id}`).decideReplan({ ...input.run, ...replan, context });
    usage = addUsage(usage, r.usage);
    decisions.push({ taskId: task.id, decision: r.value, ...(r.parseError ? { parseError: r.parseError } : {}), context });
    if (!r.parseError && wantsReplan(r.value)) stop = true;
  };

  try {
    for (;;) {
      const free = input.options.maxParallelTasks - running.size;
      const startable = stop
        ? []
        : readyTasks(tasks)
            .filter((t) => !running.has(t.id))
            .slice(0, Math.max(0, free));
      // O1: the safe point before starting tasks.
      if (startable.length) await gate.ready();
      for (const t of startable) {
        setTask(t.id, { state: TaskState.RUNNING });
        running.set(
          t.id,
          executeChild(TaskWorkflow, {
            workflowId: taskWorkflowId(input.runWorkflowId, t.id, input.round),
            args: [{ run: input.run, task: t, steps: input.actions[t.id] ?? [], options: input.options, runWorkflowId: input.runWorkflowId }],
            staticSummary: `task ${t.id}: ${t.title}`,
          }).then(
            (outcome) => ({ id: t.id, outcome }),
            (error: unknown) => ({ id: t.id, error }),
          ),
        );
      }
      if (startable.length) await report();
      if (running.size === 0) break;

      const done = await Promise.race([...running.values()]);
      running.delete(done.id);
      if (done.error !== undefined) {
        // isCancellation holds only for Temporal's cancellation failures, which are Errors.
        if (isCancellation(done.error)) throw done.error as Error;
        setTask(done.id, { state: TaskState.BLOCKED, summary: `task failed: ${rootMessage(done.error)}` });
      } else if (done.outcome) {
        const o = done.outcome;
        usage = addUsage(usage, o.usage);
        if (o.state === 'REPLAN') {
          await redecompose(
            tasks.find((t) => t.id === done.id)!,
            o,
            input.taskReplanning,
          );
        } else {
          setTask(done.id, {
            state: o.state === 'DONE' ? TaskState.DONE : TaskState.BLOCKED,
            summary: o.reason,
          });
        }
      }
      await report();
      const finished = tasks.find((t) => t.id === done.id)!;
      if (input.replan && !stop && finished.state !== TaskState.REPLACED_BY_REPLAN) {
        await decideAfter(finished, finished.state === TaskState.DONE, input.replan);
      }
    }
    if (stop) return { tasks, usage, decisions };
    // Tasks that can never start: a dependency is BLOCKED.
    const stuck = blockedByDependency(tasks);
    for (const s of stuck) setTask(s.taskId, { state: TaskState.BLOCKED, summary: `blocked by ${s.blockedBy}` });
    if (stuck.length) await report();
    return { tasks, usage, decisions };
  } catch (err) {
    if (isCancellation(err)) {
      for (const t of tasks) {
        if (OPEN.includes(t.state)) setTask(t.id, { state: TaskState.CANCELLED });
      }
      // Wait for the children to finish cancelling (their activities stop first).
      await CancellationScope.nonCancellable(() => Promise.all(running.values()));
      await report();
    }
    throw err;
  }
}
