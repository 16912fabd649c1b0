// ExecutionWorkflow (phase 4): runs the task graph as TaskWorkflow children in DAG order, at most
// maxParallelTasks at once; a freed slot or a newly ready task starts at once. What follows a
// task's end runs beside the scheduler, never in front of it (follow-ups.ts): the replan decision
// after each action (replan-decision.ts), and the re-decomposition of a task its judge sent back
// (redecompose.ts). The run sees the task states live (progress.ts). The history is about a dozen
// events per task; past the run's continue-as-new threshold no task starts and the run's next
// execution round takes the READY rest, so no plan size makes it grow without bound.
import { CancellationScope, executeChild, isCancellation, log, workflowInfo } from '@temporalio/workflow';
import { blockedByDependency, executionHistoryFull, tasksToStart } from '../../domain/graph';
import { decisionsForRun } from '../../domain/replan/decision-order';
import { TaskState, type TaskRecord } from '../../domain/types';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../../domain/usage';
import { installLease } from '../budget-lease';
import { installChildGate } from '../child-gate';
import { rootMessage } from '../failures';
import { llmFormOn, rungReport } from '../llm-form';
import { startPauseRelay, type PauseRelay } from '../pause-gate';
import { TaskWorkflow } from '../task';
import { OPEN, taskBoard } from './board';
import { followUps } from './follow-ups';
import { inbox } from './inbox';
import { llmCalls } from './llm-calls';
import { reportProgress } from './progress';
import { redecompose } from './redecompose';
import { replanDecisions } from './replan-decision';
import { taskWorkflowId, type ExecutionDecision, type ExecutionInput, type ExecutionResult, type SchedulerEvent } from './types';

export async function ExecutionWorkflow(input: ExecutionInput): Promise<ExecutionResult> {
  const board = taskBoard(input.tasks);
  let usage = ZERO_USAGE;
  const spend = (u: TokenUsage) => void (usage = addUsage(usage, u));
  /** The history is full (executionHistoryFull): no task starts; the run's next round takes the READY rest. */
  let handedOver = false;
  let started = 0;
  /** Task children by task id. */
  const running = new Map<string, Promise<SchedulerEvent>>();
  /** Task ends and follow-up ends, in the order they happened (inbox.ts: one subscription per source, not one per turn). */
  const events = inbox<SchedulerEvent>();
  const jobs = followUps(events);
  /** Every replan decision asked, in answer order. */
  const asked: ExecutionDecision[] = [];
  const reports = reportProgress(input, board, events, () => ({ usage, decisions: asked }));
  // This phase's loan from the run; its tasks borrow from it, and ask it when theirs runs out.
  const childId = (taskId: string) => taskWorkflowId(input.runWorkflowId, taskId, input.round);
  const lease = installLease(input.budget);
  lease.serveChildren((wfId) => [...running.keys()].some((id) => childId(id) === wfId));
  // The structured-output fallback ladder's rung, from the run and from this phase's calls and tasks (given to the tasks it starts).
  const form = llmFormOn(input.options);
  // The run's pause, told by the run; relayed to the running tasks (again on every resume); gates this phase's
  // LLM calls and task starts. A pause may hold the follow-ups for long: status must not wait for
  // the phase's result. (A holder: a buffered pauseGate signal may arrive while the gate is being installed.)
  const relay: { current?: PauseRelay } = {};
  const gate = installChildGate(input.options, lease, {
    form,
    onPauseChange: (paused: boolean) => (paused ? reports.report(true) : relay.current?.retell()),
  });
  relay.current = startPauseRelay(
    () => gate.kinds(),
    () => [...running.keys()].map(childId),
  );
  const llm = llmCalls(input.options, gate);
  const replans = replanDecisions(input, board, llm, spend, asked);

  /** A task reached its end state: ask "replan?" beside the scheduler, unless a replan is already wanted. */
  const finished = (id: string) => {
    const task = board.get(id);
    if (!input.replan || replans.replanWanted || task.state === TaskState.REPLACED_BY_REPLAN) return;
    jobs.start(replans.decideAfter(task, task.state === TaskState.DONE, input.replan), (job) => ({ kind: 'decided', job }));
  };
  const startTask = (t: TaskRecord) => {
    board.set(t.id, { state: TaskState.RUNNING });
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
  };
  const taskEnded = (ev: Extract<SchedulerEvent, { kind: 'task' }>) => {
    running.delete(ev.id);
    lease.childEnded(childId(ev.id), ev.outcome?.usage);
    form.learned(ev.outcome);
    rethrowCancellation(ev.error);
    if (ev.error !== undefined) {
      board.set(ev.id, { state: TaskState.BLOCKED, summary: `task failed: ${rootMessage(ev.error)}` });
      return finished(ev.id);
    }
    const o = ev.outcome;
    if (!o) return;
    spend(o.usage);
    if (o.state === 'REPLAN') {
      // Re-decomposition: the task stays RUNNING (its dependents wait) while the planner answers.
      const calls = { llm, spend, planChanged: () => replans.planChanged() };
      return jobs.start(redecompose(input, board, calls, board.get(ev.id), o), (job) => ({ kind: 'redecomposed', id: ev.id, job }));
    }
    board.set(ev.id, { state: o.state === 'DONE' ? TaskState.DONE : TaskState.BLOCKED, summary: o.reason, ...(o.stuck ? { stuck: o.stuck } : {}) });
    finished(ev.id);
  };
  const followUpEnded = (ev: Exclude<SchedulerEvent, { kind: 'task' }>) => {
    jobs.ended(ev.job);
    rethrowCancellation(ev.error);
    // A failing decision fails the phase, as it did when it was awaited in line.
    if (ev.error !== undefined) throw ev.error instanceof Error ? ev.error : new Error(rootMessage(ev.error));
    if (ev.kind === 'redecomposed') finished(ev.id);
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
      const startable = tasksToStart(board.tasks, new Set(running.keys()), input.options.maxParallelTasks, replans.replanWanted || handedOver);
      // The safe point before starting tasks.
      if (startable.length) await gate.ready();
      for (const t of startable) startTask(t);
      reports.turnDone();
      if (running.size === 0 && jobs.size === 0) break;
      const ev = await events.take();
      if (ev.kind === 'task') taskEnded(ev);
      else followUpEnded(ev);
    }
    if (!replans.replanWanted && !handedOver) {
      // Tasks that can never start: a dependency is BLOCKED.
      for (const x of blockedByDependency(board.tasks)) board.set(x.taskId, { state: TaskState.BLOCKED, summary: `blocked by ${x.blockedBy}` });
    }
    // The result carries the final states; earlier reports must not arrive after it.
    await reports.delivered();
    return { tasks: board.tasks, usage, decisions: decisionsForRun(asked), ...rungReport(input.options) };
  } catch (err) {
    if (isCancellation(err)) {
      for (const t of board.tasks) if (OPEN.includes(t.state)) board.set(t.id, { state: TaskState.CANCELLED });
      // Wait for the children and the follow-ups to finish cancelling (their activities stop first).
      await CancellationScope.nonCancellable(() => Promise.all([...running.values(), ...jobs.running()]));
    }
    // The last states (cancelled ones too) reach the run only by a report: a failed or cancelled phase has no result.
    await reports.lastReport();
    throw err;
  }
}

function rethrowCancellation(error: unknown): void {
  // isCancellation holds only for Temporal's cancellation failures, which are Errors.
  if (error !== undefined && isCancellation(error)) throw error as Error;
}
