// ExecutionWorkflow (phase 4): runs the task graph as TaskWorkflow children in DAG order, at most
// maxParallelTasks at once; a freed slot or a newly ready task starts at once (B1). After each
// finished action it asks the replan-decision LLM (X1, X4) BESIDE the scheduler, never in front of
// it; a decision that wants a replan stops further starts from then on (running tasks and pending
// decisions finish first). A task the judge sends back is re-decomposed beside it too (J6). Every
// decision, replan or not, goes to the run in this phase's result (one route, unforgeable): the
// run owns the policy, counters, log and questions. Progress reports to the run keep `status`
// live without being awaited: one per scheduler turn, only when a task changed. The history is
// about a dozen events per task; past the run's continue-as-new threshold no task starts and the
// run's next execution round takes the READY rest, so no plan size makes it grow without bound.
import {
  CancellationScope,
  executeChild,
  proxyLocalActivities,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { activeTasks, planSizeVerdict } from '../domain/plan-size';
import type { TaskReplanningConfig } from '../domain/config';
import { blockedByDependency, changedTasks, executionHistoryFull, tasksToStart } from '../domain/graph';
import {
  applyRedecomposition,
  canRedecompose,
  emptyProgress,
  recordActionResult,
  remainingForPrompt,
  wantsReplan,
  type ExecutionProgress,
  type ReplanDecision,
} from '../domain/replan';
import { decisionsForRun } from '../domain/replan/decision-order';
import { executionDecisionNote, MAX_NOTES_PER_READ } from '../domain/run/event-log';
import { TaskState, type ActionPlan, type TaskRecord } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import type { ReplanContext } from '../domain/replan/prompt-context';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../domain/usage';
import { rootMessage } from './failures';
import { executionProgressQuery } from './messages';
import { llmActivityOptions, type RunOptions } from './options';
import { installLease, type LeaseInput } from './budget-lease';
import { installChildGate } from './child-gate';
import { inbox } from './inbox';
import { startPauseRelay, type PauseRelay } from './pause-gate';
import { llmFormOn, rungReport } from './llm-form';
import type { LlmRungReport } from '../domain/llm-form';
import { TaskWorkflow, type TaskOutcome } from './task';
import { touchesWorkspace } from '../domain/workspace-host';

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
  /** O3: the tokens the run lends this phase, which lends on to its tasks (absent: no budget). */
  budget?: LeaseInput;
}

/** X1: a replan decision asked after an action (task) of this phase. */
export interface ExecutionDecision {
  /** The task whose outcome the decision is about. */
  taskId: string;
  decision: ReplanDecision;
  parseError?: string;
  context: ReplanContext;
}

export interface ExecutionResult extends LlmRungReport {
  tasks: TaskRecord[];
  usage: TokenUsage;
  /** Every decision asked: those wanting no replan first, then those wanting one (the phase then ended early), each in answer order. */
  decisions: ExecutionDecision[];
}

export function taskWorkflowId(runWorkflowId: string, taskId: string, round = 1): string {
  return `${runWorkflowId}.task-${taskId}${round > 1 ? `.${round}` : ''}`;
}

const OPEN: TaskState[] = [TaskState.READY, TaskState.RUNNING, TaskState.NEEDS_CONTINUATION];

/** What the scheduler waits for: a task child ends, or a job run beside it after a task ends. */
type SchedulerEvent =
  | { kind: 'task'; id: string; outcome?: TaskOutcome; error?: unknown }
  | { kind: 'redecomposed'; id: string; job: number; error?: unknown }
  | { kind: 'decided'; job: number; error?: unknown };

export async function ExecutionWorkflow(input: ExecutionInput): Promise<ExecutionResult> {
  let tasks = input.tasks.map((t) => ({ ...t }));
  let usage = ZERO_USAGE;
  const decisions: ExecutionDecision[] = [];
  /** A decision wants a replan: no task starts any more. */
  let stop = false;
  /** The history is full (executionHistoryFull): no task starts; the run's next round takes the READY rest. */
  let handedOver = false;
  let started = 0;
  /** Task children by task id. */
  const running = new Map<string, Promise<SchedulerEvent>>();
  /** Re-decompositions and replan decisions, run beside the scheduler (never in front of it). */
  const beside = new Map<number, Promise<SchedulerEvent>>();
  /** Both kinds' events, in the order they happened (inbox.ts: one subscription per source, not one per turn). */
  const events = inbox<SchedulerEvent>();
  let jobs = 0;
  // The poke is a local activity: one marker in this history where a signal command is two events
  // (initiated, signaled), at one poke per scheduler turn that changed a task (issue 21: history per
  // LLM call). It holds this workflow task's completion for one signal round trip (a few ms).
  const pokeRun = proxyLocalActivities<Activities>({
    startToCloseTimeout: '10 seconds',
    retry: { initialInterval: '200 milliseconds', maximumAttempts: 3 },
  }).pokeRunProgress;
  // Progress to the run (status stays live), SPEC S2: this phase only pokes the run ("look again");
  // the run reads the task states from this workflow itself (executionProgress query, through a
  // local activity that checks this workflow is its child), so a poke forged from outside shows
  // nothing this phase did not do. Pokes are fired, never awaited on the critical path; one for the
  // events taken together; none when nothing changed since the last. The query answers a delta (the tasks
  // changed after the version the run has), so the run's history grows with the changes, not with
  // the plan's size times its changes.
  /** Version of the task list: bumped by every change; each task remembers the version it last changed in. */
  let version = 0;
  const changedIn = new Map<string, number>();
  let poked = 0;
  let inFlight: Promise<void> | undefined;
  /** Set when the phase ends: its result carries the final states. */
  let closing = false;
  // A poke's reply may reach this workflow in a later workflow task than the one that sent it (the
  // worker evicted it meanwhile, or the task was heartbeated), and a replay delivers that reply at
  // the start of the task that recorded it: earlier than it came. So what is sent must not depend
  // on when replies come: each change is poked once, when this turn's events are all taken, however
  // many pokes are still in flight. Runs recorded before this rule keep the old one (one poke in
  // flight at a time, the next sent when it answers), which replays only what it recorded.
  const pokeOnce = patched('execution-pokes-independent-of-replies');
  const pokes = new Set<Promise<void>>();
  const commit = (next: TaskRecord[]) => {
    const changed = changedTasks(tasks, next);
    tasks = next;
    if (!changed.length) return;
    version += 1;
    for (const t of changed) changedIn.set(t.id, version);
  };
  setHandler(executionProgressQuery, (since?: unknown, decisionsFrom?: unknown) => {
    const from = typeof since === 'number' && Number.isFinite(since) ? since : 0;
    const changed = tasks.filter((t) => (changedIn.get(t.id) ?? 0) > from);
    // V2: the decisions asked since the run's count, so `watch` shows them while the phase runs.
    const told = typeof decisionsFrom === 'number' && Number.isSafeInteger(decisionsFrom) && decisionsFrom >= 0 ? decisionsFrom : decisions.length;
    const notes = decisions.slice(told, told + MAX_NOTES_PER_READ).map((d) => executionDecisionNote(d.taskId, d.decision, d.parseError));
    return { round: input.round, seq: version, tasks: changed, usage, ...(notes.length ? { decisions: notes, decisionsFrom: told } : {}) };
  });
  const poke = () => CancellationScope.nonCancellable(() => pokeRun({ runWorkflowId: input.runWorkflowId }));
  /**
   * A poke when something changed since the last one, while a task runs (when none runs, the phase is
   * about to end and its result carries the states) or `force` (the run paused while only decisions are pending).
   */
  const report = (force = false) => {
    if (pokeOnce) {
      if (closing || version <= poked) return;
      if (!force && !tasks.some((t) => t.state === TaskState.RUNNING)) return;
      poked = version;
      // A poke must not be interrupted by a cancellation, or the run would show stale states.
      const sent: Promise<void> = poke().then(
        () => void pokes.delete(sent),
        (e: unknown) => {
          pokes.delete(sent);
          log.warn(`could not tell the run about progress: ${rootMessage(e)}`);
        },
      );
      pokes.add(sent);
      return;
    }
    if (inFlight || closing || version <= poked) return;
    if (!force && !tasks.some((t) => t.state === TaskState.RUNNING)) return;
    const sent = version;
    inFlight = poke().then(
      () => {
        poked = sent;
        inFlight = undefined;
        report(force);
      },
      (e: unknown) => {
        inFlight = undefined;
        log.warn(`could not tell the run about progress: ${rootMessage(e)}`);
      },
    );
  };
  /** Before the phase returns: no poke is left in flight. */
  const reportsDelivered = async () => {
    closing = true;
    if (pokeOnce) await CancellationScope.nonCancellable(() => Promise.all([...pokes]));
    while (inFlight) await CancellationScope.nonCancellable(() => inFlight!);
  };
  const setTask = (id: string, patch: Partial<TaskRecord>) => {
    commit(tasks.map((t) => (t.id === id ? { ...t, ...patch } : t)));
  };
  // O1: told by the run; relayed to the running tasks (again on every resume); gates this phase's LLM calls and task starts.
  // (a holder: a buffered pauseGate signal may arrive while the gate is being installed)
  const relay: { current?: PauseRelay } = {};
  // O3: this phase's loan from the run; its tasks borrow from it, and ask it when theirs runs out.
  const childId = (taskId: string) => taskWorkflowId(input.runWorkflowId, taskId, input.round);
  const lease = installLease(input.budget);
  lease.serveChildren((wfId) => [...running.keys()].some((id) => childId(id) === wfId));
  // A pause may hold the decisions beside for long: status must not wait for the phase's result.
  // M1: the ladder's rung, from the run and from this phase's calls and tasks (given to the tasks it starts).
  const form = llmFormOn(input.options);
  const gate = installChildGate(input.options, lease, {
    form,
    onPauseChange: (paused: boolean) => (paused ? report(true) : relay.current?.retell()),
  });
  relay.current = startPauseRelay(
    () => gate.kinds(),
    () => [...running.keys()].map((id) => taskWorkflowId(input.runWorkflowId, id, input.round)),
  );
  // Workspace affinity: a call that reads the workspace runs on its host (touchesWorkspace).
  const llm = (summary: string, onHost: boolean, timeout?: number) =>
    gate.gated(
      proxyActivities<Activities>({
        ...llmActivityOptions(input.options, summary, onHost),
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
    remainingForPrompt(
      active()
        .filter((t) => OPEN.includes(t.state))
        .map((t) => `${t.id}: ${t.title}`),
    );

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
        const r = await llm(
          `re-decompose task ${task.id}`,
          touchesWorkspace('replanTask', { instructionFile: input.run.instructionFile !== undefined, readsRunLog: o.logPath !== undefined }),
          cfg.timeoutSeconds * 1000,
        ).replanTask({
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
        const size = planSizeVerdict(activeTasks(applied.tasks).length, maxTasks, sizeRepairs);
        if (size.kind === 'ask_again') {
          feedback = size.feedback;
          continue;
        }
        if (size.kind === 'refuse') {
          setTask(task.id, { state: TaskState.BLOCKED, summary: `re-decomposition refused: ${size.problem}` });
          return;
        }
        commit(applied.tasks);
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
    const r = await llm(
      `replan? after task ${task.id}`,
      touchesWorkspace('decideReplan', { instructionFile: input.run.instructionFile !== undefined }),
    ).decideReplan({ ...input.run, ...replan, context });
    usage = addUsage(usage, r.usage);
    decisions.push({ taskId: task.id, decision: r.value, ...(r.parseError ? { parseError: r.parseError } : {}), context });
    if (!r.parseError && wantsReplan(r.value)) stop = true;
  };

  /** Runs `job` beside the scheduler; its event says when it ended (it never rejects). */
  const besides = (job: Promise<void>, event: (n: number) => SchedulerEvent) => {
    const n = ++jobs;
    const ended = job.then(
      () => event(n),
      (error: unknown) => ({ ...event(n), error }),
    );
    beside.set(n, ended);
    events.add(ended);
  };
  /** A task reached its end state: ask "replan?" beside the scheduler (X1), unless a replan is already wanted. */
  const finished = (id: string) => {
    const task = tasks.find((t) => t.id === id)!;
    if (!input.replan || stop || task.state === TaskState.REPLACED_BY_REPLAN) return;
    besides(decideAfter(task, task.state === TaskState.DONE, input.replan), (job) => ({ kind: 'decided', job }));
  };
  const rethrowCancellation = (error: unknown) => {
    // isCancellation holds only for Temporal's cancellation failures, which are Errors.
    if (error !== undefined && isCancellation(error)) throw error as Error;
  };

  try {
    for (;;) {
      const info = workflowInfo();
      const full = executionHistoryFull(info.historyLength, info.continueAsNewSuggested, input.options.continueAsNewAfterEvents);
      // Only after this round started a task: every round makes progress.
      if (full && !handedOver && started > 0) {
        handedOver = true;
        log.info(`execution history at ${info.historyLength} events: no new task starts, the next round takes the rest`);
      }
      const startable = tasksToStart(tasks, new Set(running.keys()), input.options.maxParallelTasks, stop || handedOver);
      // O1: the safe point before starting tasks.
      if (startable.length) await gate.ready();
      for (const t of startable) {
        setTask(t.id, { state: TaskState.RUNNING });
        started += 1;
        const budget = lease.leaseFor(childId(t.id));
        const ended = executeChild(TaskWorkflow, {
          workflowId: childId(t.id),
          args: [
            {
              run: input.run,
              task: t,
              steps: input.actions[t.id] ?? [],
              options: input.options,
              runWorkflowId: input.runWorkflowId,
              ...(budget ? { budget } : {}),
            },
          ],
          staticSummary: `task ${t.id}: ${t.title}`,
        }).then(
          (outcome): SchedulerEvent => ({ kind: 'task', id: t.id, outcome }),
          (error: unknown): SchedulerEvent => ({ kind: 'task', id: t.id, error }),
        );
        running.set(t.id, ended);
        events.add(ended);
      }
      // (pokeOnce: one poke for the events taken together, not one per event)
      if (!pokeOnce || !events.waiting()) report();
      if (running.size === 0 && beside.size === 0) break;

      const ev = await events.take();
      if (ev.kind === 'task') {
        running.delete(ev.id);
        lease.childEnded(childId(ev.id), ev.outcome?.usage);
        form.learned(ev.outcome);
        rethrowCancellation(ev.error);
        if (ev.error !== undefined) {
          setTask(ev.id, { state: TaskState.BLOCKED, summary: `task failed: ${rootMessage(ev.error)}` });
          finished(ev.id);
        } else if (ev.outcome) {
          const o = ev.outcome;
          usage = addUsage(usage, o.usage);
          if (o.state === 'REPLAN') {
            // J6: the task stays RUNNING (its dependents wait) while the planner answers.
            const task = tasks.find((t) => t.id === ev.id)!;
            besides(redecompose(task, o, input.taskReplanning), (job) => ({ kind: 'redecomposed', id: ev.id, job }));
          } else {
            setTask(ev.id, { state: o.state === 'DONE' ? TaskState.DONE : TaskState.BLOCKED, summary: o.reason });
            finished(ev.id);
          }
        }
      } else {
        beside.delete(ev.job);
        rethrowCancellation(ev.error);
        // A failing decision fails the phase, as it did when it was awaited in line.
        if (ev.error !== undefined) throw ev.error instanceof Error ? ev.error : new Error(rootMessage(ev.error));
        if (ev.kind === 'redecomposed') finished(ev.id);
      }
    }
    if (!stop && !handedOver) {
      // Tasks that can never start: a dependency is BLOCKED.
      const stuck = blockedByDependency(tasks);
      for (const x of stuck) setTask(x.taskId, { state: TaskState.BLOCKED, summary: `blocked by ${x.blockedBy}` });
    }
    // The result carries the final states; earlier reports must not arrive after it.
    await reportsDelivered();
    return { tasks, usage, decisions: decisionsForRun(decisions), ...rungReport(input.options) };
  } catch (err) {
    if (isCancellation(err)) {
      for (const t of tasks) {
        if (OPEN.includes(t.state)) setTask(t.id, { state: TaskState.CANCELLED });
      }
      // Wait for the children and the jobs beside them to finish cancelling (their activities stop first).
      await CancellationScope.nonCancellable(() => Promise.all([...running.values(), ...beside.values()]));
    }
    // The last states (cancelled ones too) reach the run only by a report: a failed or cancelled phase has no result.
    await reportsDelivered();
    closing = false;
    report(true);
    await reportsDelivered();
    throw err;
  }
}
