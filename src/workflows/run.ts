// RunWorkflow: one per instruction, an entity (DESIGN "Entity workflow"). It holds one RunState
// (src/domain/run/state) and changes it only through that module's pure transitions. Read top to
// bottom: every message handler, then the phase loop of seed 004's flowchart — goal → tasks →
// actions → execution → reflection, each phase a child workflow followed by "replan?" (X1, X3).
import { hostPresenceOf } from './host-presence';
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  continueAsNew,
  executeChild,
  startChild,
  isCancellation,
  log,
  proxyLocalActivities,
  setCurrentDetails,
  setDefaultSignalHandler,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { z } from 'zod';
import { checkRunOptions, ConfigError, parseConfig, type ReplannerConfig } from '../domain/config';
import { notifyTargetOf } from '../domain/notifications';
import { runBudgetOf } from '../domain/budget';
import { answerProblem, type QuestionAnswer } from '../domain/replan';
import { instructionForStatus, runInputProblem } from '../domain/run-input';
import { hostNameProblem, hostQueueOf } from '../domain/workspace-host';
import {
  addActions,
  applyJump,
  applyTaskProgress,
  restorePrevious,
  setDecomposition,
  setGoal,
  setReflection,
  specOf,
  takeFeedback,
  tasksToPlan,
  type Jump,
} from '../domain/run/plan';
import {
  activePauses,
  applyLlmTrouble,
  displayStatus,
  endUnprobedOutage,
  isPaused,
  noteLlmRung,
  pauseKinds,
  pauseRun,
  resumeRun,
  type PauseApplied,
} from '../domain/run/pause';
import { addPlanningUsage, cancelRun, completeRun, enterPhase, failRun, finishExecution, nextPhase } from '../domain/run/phases';
import { answerQuestion, applyConsultation, pendingQuestions } from '../domain/run/questions';
import { budgetAnswerProblem, setBudget } from '../domain/run/budget-ledger';
import { decisionsView, inspectionMemo, MEMO_CHECKLIST, statusView } from '../domain/run/views';
import { eventsView, withEvents } from '../domain/run/events';
import { initialRunState, type Applied, type RunState } from '../domain/run/state';
import { checklistMemoDue, runChecklist, runDetails } from '../domain/run/checklist';
import { consultationChange, freshTroubleObservation } from '../domain/run/child-reads';
import { TaskState, type Phase } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import type { ReplanContext } from '../domain/replan/prompt-context';
import type { TokenUsage } from '../domain/usage';
import { startRunLedger } from './budget-lease';
import { ExecutionWorkflow, taskWorkflowId } from './execution';
import { coalescedPerKey } from './coalesce';
import { rootMessage } from './failures';
import {
  answerClarificationSignal,
  answerClarificationUpdate,
  ClarificationAnswerSchema,
  CurrentConsultationSchema,
  decisionsQuery,
  eventsQuery,
  LlmTroubleObservationSchema,
  LlmTroublePokeSchema,
  LlmTroubleSchema,
  llmTroubleSignal,
  parsePayload,
  PauseInputSchema,
  pauseSignal,
  pauseUpdate,
  ResumeInputSchema,
  resumeSignal,
  resumeUpdate,
  statusQuery,
  type PauseAck,
  type Parsed,
  TaskConsultationPokeSchema,
  TaskConsultationSchema,
  taskConsultationSignal,
  TaskProgressSchema,
  taskProgressSignal,
  type RunStatus,
} from './messages';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from './options';
import { startNotifier } from './notifications';
import { gateOn, startPauseRelay } from './pause-gate';
import { llmFormOn } from './llm-form';
import { rungOf } from '../domain/llm-form';
import { ActionSequenceWorkflow, GoalUnderstandingWorkflow, ReflectionWorkflow, TaskDecompositionWorkflow } from './phases';
import { createReplanning, type RunEntity } from './run/replanning';
import { PHASE_KEY, REPLAN_COUNT_KEY, STATUS_KEY } from './search-attributes';

export interface RunInput {
  runId: string;
  /** The whole instruction, or with `instructionFile` only its head (for display). */
  instruction: string;
  /** S3: a long instruction stored beside the run (`instructionFilePath`); activities read prompts' text from it. */
  instructionFile?: string;
  workspace: string;
  /**
   * Workspace affinity: the host whose worker owns the workspace (the client's choice at start,
   * src/domain/workspace-host.ts). Its workspace activities run on `<this run's queue>@<host>`.
   * Absent: every activity on the run's own queue (one machine).
   */
  host?: string;
  /** refinement / pacemaker / commandNetwork come from `config` only. */
  options?: Partial<Omit<RunOptions, 'refinement' | 'pacemaker' | 'commandNetwork'>>;
  /** X12: the replanning config (YAML + env, loaded by the client); validated again at start. Absent: defaults. */
  config?: unknown;
  /** Set by continue-as-new: where the previous run of this workflow left off. */
  carry?: RunCarry;
}

/** Everything a continued run needs: the whole state, and the phase to run next. */
export interface RunCarry {
  state: RunState;
  next: Phase;
}

export type RunResult = Pick<RunStatus, 'runId' | 'status' | 'tasks' | 'reflection' | 'usage' | 'blocked'>;

export function runWorkflowId(runId: string): string {
  return `run-${runId}`;
}

export async function RunWorkflow(input: RunInput): Promise<RunResult> {
  // A start without an object (e.g. `temporal workflow start --input null`) would fail every workflow task.
  if (typeof (input as unknown) !== 'object' || input === null) {
    throw ApplicationFailure.nonRetryable('invalid input: the run input must be an object', 'InvalidInput');
  }
  const options: RunOptions = { ...DEFAULT_RUN_OPTIONS, ...input.options, hostQueue: undefined, runWorkflowId: workflowInfo().workflowId };
  // Workspace affinity: the host queue follows from the run's own queue and its host (never from options).
  if (input.host !== undefined && hostNameProblem(input.host) === undefined) options.hostQueue = hostQueueOf(workflowInfo().taskQueue, input.host);
  // S3: checked before anything is scheduled (a 1 MB instruction would otherwise fail every workflow task).
  const inputProblem = input.carry ? undefined : (runInputProblem(input) ?? (input.host !== undefined ? hostNameProblem(input.host) : undefined));
  const run: RunRef = {
    runId: input.runId,
    workspace: input.workspace,
    instruction: input.instruction,
    ...(input.instructionFile !== undefined ? { instructionFile: input.instructionFile } : {}),
    ...(options.hostQueue !== undefined ? { host: input.host } : {}),
  };
  const wfId = workflowInfo().workflowId;
  const entity = runEntity(
    input.carry?.state ?? initialRunState(inputProblem ? { ...input, instruction: instructionForStatus(input.instruction) } : input),
  );
  const now = () => new Date().toISOString();
  // O1: the run's safe points wait on this gate; its phase child (current below) is kept told. O2:
  // the run's own LLM calls (replan decisions) report LLM trouble straight into its state.
  // M1: the fallback ladder's rung lives in the run's state (carried across continue-as-new);
  // every workflow of the run starts its calls there, and a lower rung any of them learns comes back here.
  const carriedRung = rungOf(entity.state.llmRung);
  if (carriedRung) options.llm = { rung: carriedRung };
  const form = llmFormOn(options, (rung) => entity.apply((s) => noteLlmRung(s, rung)));
  const gate = gateOn(
    () => isPaused(entity.state),
    {
      kinds: () => pauseKinds(entity.state),
      report: async (m) => llmTrouble(m),
    },
    form,
    hostPresenceOf(options.hostQueue),
  );
  let currentChild: string | undefined;
  const relay = startPauseRelay(
    () => pauseKinds(entity.state),
    () => (currentChild ? [currentChild] : []),
  );

  // ------------------------------------------------------------ every message of the run (SPEC S2)
  // Payloads are parsed by their schema, then checked against the state; a refused update throws in
  // its validator (nothing is written to history), a refused signal is logged and changes nothing.
  setHandler(statusQuery, () => statusView(entity.state));
  setHandler(decisionsQuery, () => decisionsView(entity.state));
  // V2: a query (no history event); any argument that is not a seq reads from the start.
  setHandler(eventsQuery, (afterSeq?: unknown) => eventsView(entity.state, typeof afterSeq === 'number' ? afterSeq : 0));
  const checkAnswer = (payload: unknown): Parsed<QuestionAnswer> => {
    const p = parsePayload(ClarificationAnswerSchema, payload);
    const problem = p.ok ? (answerProblem(entity.state.questions, p.value) ?? budgetAnswerProblem(entity.state, p.value)) : undefined;
    return problem ? { ok: false, reason: problem } : p;
  };
  setHandler(
    answerClarificationUpdate,
    (a) => {
      entity.apply((s) => answerQuestion(s, a, now()));
      return { questionId: a.questionId, stillPending: pendingQuestions(entity.state).map((q) => q.id) };
    },
    {
      validator: (a: unknown) => {
        const c = checkAnswer(a);
        if (!c.ok) throw new Error(c.reason);
      },
    },
  );
  setHandler(answerClarificationSignal, (payload: unknown) => {
    const c = checkAnswer(payload);
    if (c.ok) entity.apply((s) => answerQuestion(s, c.value, now()));
    else log.warn(`ignored answerClarificationSignal: ${c.reason}`);
  });
  // Internal progress from the run's own children: accepted only when it fits the run's state.
  const internal =
    <T>(name: string, schema: z.ZodType<T>, transition: (s: RunState, m: T) => Applied) =>
    (payload: unknown) => {
      const p = parsePayload(schema, payload);
      const r: Applied = p.ok ? transition(entity.state, p.value) : p;
      if (r.ok) entity.apply(() => r.state);
      else log.warn(`ignored ${name}: ${r.reason}`);
    };
  // O1: pause / resume. The validator refuses a bad payload or a finished run (with its status); a
  // repeated pause or resume is acknowledged (changed: false).
  const pauseCheck = (payload: unknown): PauseApplied => {
    const p = parsePayload(PauseInputSchema, payload);
    return p.ok ? pauseRun(entity.state, { ...(p.value?.reason ? { reason: p.value.reason } : {}), at: now() }) : p;
  };
  const resumeCheck = (payload: unknown): PauseApplied => {
    const p = parsePayload(ResumeInputSchema, payload);
    return p.ok ? resumeRun(entity.state) : p;
  };
  const pauseApply = (r: PauseApplied, resumed: boolean): PauseAck => {
    if (!r.ok) throw new Error(r.reason);
    if (r.changed) entity.apply(() => r.state);
    // A resume tells every child again: undoes a pause forged on a child.
    if (resumed) relay.retell();
    const s = entity.state;
    const pauses = activePauses(s);
    return { runId: s.runId, status: isPaused(s) ? 'PAUSED' : 'RUNNING', changed: r.changed, ...(pauses[0] ? { pause: pauses[0], pauses } : {}) };
  };
  const throwIfRefused = (r: PauseApplied) => {
    if (!r.ok) throw new Error(r.reason);
  };
  setHandler(pauseUpdate, (...a: unknown[]) => pauseApply(pauseCheck(a[0]), false), {
    validator: (...a: unknown[]) => throwIfRefused(pauseCheck(a[0])),
  });
  setHandler(resumeUpdate, (...a: unknown[]) => pauseApply(resumeCheck(a[0]), true), {
    validator: (...a: unknown[]) => throwIfRefused(resumeCheck(a[0])),
  });
  const pauseSignalled = (check: (p: unknown) => PauseApplied, resumed: boolean, name: string) => (payload?: unknown) => {
    const r = check(payload);
    if (r.ok) pauseApply(r, resumed);
    else log.warn(`ignored ${name}: ${r.reason}`);
  };
  setHandler(pauseSignal, pauseSignalled(pauseCheck, false, 'pauseSignal'));
  setHandler(resumeSignal, pauseSignalled(resumeCheck, true, 'resumeSignal'));
  // S2: progress and LLM trouble from the run's children come as pokes; what they claim is read from
  // the child itself, through a local activity that first checks the workflow is this run's child.
  const inspect = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 },
  }).inspectOwnWorkflow;
  type ChildRef = { workflowId: string; runId: string };
  /** The running execution phase (the run started it, so it knows the exact run). */
  let execution: ChildRef | undefined;
  let fetching = false;
  let fetchAgain = false;
  /** One read of the execution child's task states since the version the run has; applied if it is still that child's turn. */
  const readProgress = async (target: ChildRef, stillCurrent: () => boolean): Promise<void> => {
    const s0 = entity.state;
    const args = [s0.progressSeq, s0.executionDecisions?.length ?? 0];
    const r = await inspect({ ...target, parentWorkflowId: wfId, query: 'executionProgress', args });
    if (!stillCurrent()) return; // the phase ended meanwhile: its result has the final states
    if (!r.ok) return log.warn(`ignored taskProgress: ${r.reason}`);
    internal('taskProgress', TaskProgressSchema, applyTaskProgress)(r.value);
  };
  /** taskProgress: coalesced; while one look is under way, pokes ask for one more after it. */
  const pokedForProgress = () => {
    if (!execution) return log.warn('ignored taskProgress: no execution phase is running');
    if (fetching) return void (fetchAgain = true);
    fetching = true;
    void (async () => {
      try {
        do {
          fetchAgain = false;
          const target: ChildRef | undefined = execution;
          if (!target) break;
          await readProgress(target, () => execution === target);
        } while (fetchAgain);
      } catch (e) {
        log.warn(`could not read the execution phase's progress: ${rootMessage(e)}`);
      } finally {
        fetching = false;
      }
    })();
  };
  /** O2: which workflow of this run `from` may be, and its parent (a phase child, or a task of the running execution). */
  const parentOf = (from: string): string | undefined => {
    if (from === currentChild) return wfId;
    if (!execution || !from.startsWith(`${wfId}.task-`)) return undefined;
    const round = entity.state.phaseRuns.execution ?? 1;
    return entity.state.tasks.some((t) => taskWorkflowId(wfId, t.id, round) === from) ? execution.workflowId : undefined;
  };
  // O2: LLM trouble in any workflow of the run pauses it (outage / rejected access) or ends the outage pause.
  const llmTrouble = internal('llmTrouble', LlmTroubleSchema, (s, m) => applyLlmTrouble(s, m, now()));
  /** S2: per workflow run of the run's children, the number of its last LLM trouble observation taken. */
  const troubleTaken = new Map<string, number>();
  setHandler(llmTroubleSignal, (payload: unknown) => {
    const p = parsePayload(LlmTroublePokeSchema, payload);
    if (!p.ok) return log.warn(`ignored llmTrouble: ${p.reason}`);
    const from = p.value.from;
    const parentWorkflowId = parentOf(from);
    if (!parentWorkflowId) return log.warn(`ignored llmTrouble: ${from} is not a running workflow of this run`);
    void inspect({ workflowId: from, parentWorkflowId, query: 'llmTroubleState' }).then(
      (r) => {
        if (!r.ok) return log.warn(`ignored llmTrouble: ${r.reason}`);
        if (r.value === null) return log.warn(`ignored llmTrouble: ${from} has had no LLM trouble`);
        const o = parsePayload(LlmTroubleObservationSchema, r.value);
        if (!o.ok) return log.warn(`ignored llmTrouble: ${from} answered ${o.reason}`);
        // Each observation once: a poke naming a workflow whose latest trouble was already taken changes nothing.
        const who = `${from}/${r.runId}`;
        if (!freshTroubleObservation(troubleTaken.get(who), o.value.n)) return log.warn(`ignored llmTrouble: nothing new from ${from}`);
        troubleTaken.set(who, o.value.n);
        llmTrouble({ trouble: o.value.trouble, ...(o.value.error !== undefined ? { error: o.value.error } : {}) });
      },
      (e: unknown) => log.warn(`could not ask ${from} about its LLM trouble: ${rootMessage(e)}`),
    );
  });
  setHandler(taskProgressSignal, () => pokedForProgress());
  // P7 / S2: a task's poke; its consultation is read from the task itself (one read per task at a time).
  const applyReadConsultation = internal('taskConsultation', TaskConsultationSchema, applyConsultation);
  const readConsultation = coalescedPerKey(
    async (taskId: string) => {
      const target = execution;
      const from = taskWorkflowId(wfId, taskId, entity.state.phaseRuns.execution ?? 1);
      if (!target || !entity.state.tasks.some((t) => t.id === taskId))
        return log.warn(`ignored taskConsultation: ${taskId} is not a running task of this run`);
      const r = await inspect({ workflowId: from, parentWorkflowId: target.workflowId, query: 'taskConsultationState' });
      if (execution !== target) return; // the phase ended meanwhile: its consultations ended with it
      if (!r.ok) return log.warn(`ignored taskConsultation: ${r.reason}`);
      const c = parsePayload(CurrentConsultationSchema, r.value);
      if (!c.ok) return log.warn(`ignored taskConsultation: task ${taskId} answered ${c.reason}`);
      const change = consultationChange(entity.state, taskId, c.value);
      if (change) applyReadConsultation(change);
    },
    (taskId, e) => log.warn(`could not read task ${taskId}'s consultation: ${rootMessage(e)}`),
  );
  setHandler(taskConsultationSignal, (payload: unknown) => {
    const p = parsePayload(TaskConsultationPokeSchema, payload);
    if (!p.ok) return log.warn(`ignored taskConsultation: ${p.reason}`);
    readConsultation(p.value.taskId);
  });
  // O3: the run is the budget's ledger; its children ask it (budgetRequest) when their loans run out.
  // "stop" as the budget question's answer cancels the phases (main, below) and ends the run STOPPED.
  const main = new CancellationScope();
  const ledger = startRunLedger({ entity, now, currentChild: () => currentChild, onStop: () => main.cancel() });
  // A signal of no known name is dropped (otherwise the SDK would buffer it for a handler that never comes).
  setDefaultSignalHandler((name) => log.warn(`ignored unknown signal "${name}"`));

  // ------------------------------------------------------------ the phases
  if (inputProblem) {
    entity.apply((s) => failRun(s, `invalid input: ${inputProblem}`));
    entity.publish();
    throw ApplicationFailure.nonRetryable(`invalid input: ${inputProblem}`, 'InvalidInput');
  }
  // X12: an invalid config fails the run at once, naming the key.
  let config: ReplannerConfig;
  try {
    config = parseConfig(input.config);
    checkRunOptions(input.options);
  } catch (e) {
    const error = e instanceof ConfigError ? e.message : `invalid config: ${(e as Error).message}`;
    entity.apply((s) => failRun(s, error));
    entity.publish();
    throw ApplicationFailure.nonRetryable(error, 'InvalidConfig');
  }
  // The parsed config is the source of truth for the phases and tasks (never options from the caller).
  options.refinement = config.refinement;
  options.pacemaker = config.pacemaker;
  options.commandNetwork = config.execution.network;
  // M1: llm.timeoutSeconds is every LLM request's timeout (for slow local models).
  if (config.llm.timeoutSeconds !== undefined) options.llm = { ...options.llm, timeoutMs: Math.round(config.llm.timeoutSeconds * 1000) };
  // M1: llm.maxReplyTokens caps every reply (small local models can otherwise generate until their context is full).
  if (config.llm.maxReplyTokens !== undefined) options.llm = { ...options.llm, maxReplyTokens: config.llm.maxReplyTokens };
  entity.apply((s) => setBudget(s, runBudgetOf(config.budget)));
  const rp = createReplanning({ run, options, config, entity, gate, budget: ledger });
  // X10/X11: the issue or merge request of the config, told of every published state (beside the phases).
  const notifier = startNotifier({ target: notifyTargetOf(config.notifications), options, entity, now });
  entity.onPublish((s) => notifier.observe(s));

  /** A phase starts: its child workflow id. */
  const enter = (phase: Phase): string => {
    let n = 0;
    entity.apply((s) => {
      const r = enterPhase(s, phase);
      n = r.n;
      return r.state;
    });
    log.info(`phase ${phase} #${n}`);
    currentChild = `${wfId}.${phase}-${n}`;
    return currentChild;
  };
  const usageOf = <T>(r: { value: T; usage: TokenUsage; llmRung?: unknown }): T => {
    const ended = currentChild;
    currentChild = undefined; // the phase child ended: nothing more to tell it
    form.learned(r);
    entity.apply((s) => addPlanningUsage(s, r.usage));
    if (ended) ledger.childEnded(ended, r.usage);
    return r.value;
  };
  /** O3: the child's loan from the run's budget (absent: no budget). */
  const leaseOf = (childId: string) => {
    const budget = ledger.leaseFor(childId);
    return budget ? { budget } : {};
  };
  const feedbackFor = (phase: Phase): { feedback?: string } => {
    let feedback: string | undefined;
    entity.apply((s) => {
      const r = takeFeedback(s, phase);
      feedback = r.feedback;
      return r.state;
    });
    return feedback ? { feedback } : {};
  };
  const jump = (j: Jump): Phase => {
    entity.apply((s) => {
      const applied = applyJump(s, j, config.planning.maxTasks, now());
      if (applied.added.length || applied.dropped) {
        log.info(`plan revision: added ${applied.added.join(', ') || 'no task'}; ${applied.dropped} over planning.maxTasks dropped`);
      }
      return applied.state;
    });
    return j.target;
  };
  /** X1: "replan?" after a phase: jump back (X3), or go on to the next phase. */
  const replan = async (phase: Phase, context: ReplanContext): Promise<Phase | 'done'> => {
    rp.phaseFinished(phase);
    const j = await rp.afterPhase(phase, context);
    return j ? jump(j) : nextPhase(phase);
  };

  const steps: Record<Phase, () => Promise<Phase | 'done'>> = {
    goal_understanding: async () => {
      const workflowId = enter('goal_understanding');
      const goal = usageOf(
        await executeChild(GoalUnderstandingWorkflow, {
          workflowId,
          args: [{ run, options, ...feedbackFor('goal_understanding'), ...leaseOf(workflowId) }],
          staticSummary: 'understand the goal',
        }),
      );
      entity.apply((s) => setGoal(s, goal));
      return replan('goal_understanding', { phase: 'goal_understanding', goal });
    },
    task_decomposition: async () => {
      const goal = entity.state.goal!;
      const previousTasks = entity.state.tasks.map(specOf);
      const workflowId = enter('task_decomposition');
      const decomposition = await executeChild(TaskDecompositionWorkflow, {
        workflowId,
        args: [
          {
            run,
            options,
            ...leaseOf(workflowId),
            goal,
            maxTasks: config.planning.maxTasks,
            ...feedbackFor('task_decomposition'),
            ...(previousTasks.length ? { previousTasks } : {}),
          },
        ],
        staticSummary: 'decompose into tasks',
      });
      const specs = usageOf(decomposition);
      entity.apply((s) => setDecomposition(s, specs, decomposition.quality));
      return replan('task_decomposition', { phase: 'task_decomposition', goal, tasks: specs });
    },
    action_sequence: async () => {
      const todo = tasksToPlan(entity.state);
      const workflowId = enter('action_sequence');
      const planned = usageOf(
        await executeChild(ActionSequenceWorkflow, {
          workflowId,
          args: [{ run, options, goal: entity.state.goal!, tasks: todo, ...feedbackFor('action_sequence'), ...leaseOf(workflowId) }],
          staticSummary: 'plan the action sequence',
        }),
      );
      entity.apply((s) => addActions(s, planned));
      return replan('action_sequence', { phase: 'action_sequence', tasks: todo, actions: planned });
    },
    execution: async () => {
      const workflowId = enter('execution');
      const s0 = entity.state;
      // Started (not executed) so the run knows the exact child it reads progress from (S2).
      const child = await startChild(ExecutionWorkflow, {
        workflowId,
        args: [
          {
            run,
            options,
            tasks: s0.tasks,
            actions: s0.actions,
            runWorkflowId: wfId,
            round: s0.phaseRuns.execution ?? 1,
            taskReplanning: config.task_replanning,
            maxTasks: config.planning.maxTasks,
            replan: config.replanning.enabled ? rp.executionPromptInput() : null,
            ...leaseOf(workflowId),
          },
        ],
        staticSummary: `execute ${s0.tasks.filter((t) => t.state === TaskState.READY).length} tasks`,
      });
      const started: ChildRef = { workflowId, runId: child.firstExecutionRunId };
      execution = started;
      let executed;
      try {
        executed = await child.result();
      } catch (err) {
        // A failed phase has no result: the run reads its last task states from it (the query
        // replays the ended workflow); a cancelled run marks what was open CANCELLED itself.
        if (!isCancellation(err)) {
          await readProgress(started, () => true).catch((e: unknown) => log.warn(`could not read the failed execution phase: ${rootMessage(e)}`));
        }
        throw err;
      } finally {
        execution = undefined;
      }
      currentChild = undefined;
      entity.apply((s) => finishExecution(s, executed.tasks, executed.usage));
      ledger.childEnded(workflowId, executed.usage);
      form.learned(executed);
      rp.phaseFinished('execution');
      // One route for decisions: each one the phase asked after an action, replan or not, goes
      // through the same policy step as any phase's "replan?".
      for (const d of executed.decisions) {
        const j = await rp.afterPhase('execution', d.context, d);
        if (j) return jump(j);
      }
      // No replan: tasks not started because a replan was proposed run now.
      return entity.state.tasks.some((t) => t.state === TaskState.READY) ? 'execution' : 'reflection';
    },
    reflection: async () => {
      const s0 = entity.state;
      const workflowId = enter('reflection');
      const reflection = usageOf(
        await executeChild(ReflectionWorkflow, {
          workflowId,
          args: [{ run, options, goal: s0.goal!, tasks: s0.tasks, ...leaseOf(workflowId) }],
          staticSummary: 'reflect on the run',
        }),
      );
      entity.apply((s) => setReflection(s, reflection));
      return replan('reflection', { phase: 'reflection', goal: s0.goal!, reflection, tasks: s0.tasks });
    },
  };

  let phase: Phase = input.carry?.next ?? 'goal_understanding';
  let phasesThisRun = 0;
  /** Continue-as-new between phases when the history grows (never right after starting). */
  const maybeContinueAsNew = async () => {
    const info = workflowInfo();
    if (phasesThisRun === 0) return;
    if (!info.continueAsNewSuggested && info.historyLength < options.continueAsNewAfterEvents) return;
    await condition(allHandlersFinished);
    log.info(`continue-as-new before ${phase} (history ${info.historyLength} events)`);
    entity.publish();
    // The continued run carries the checklist comment's id; deliveries in flight finish first.
    await notifier.drain();
    await continueAsNew<typeof RunWorkflow>({ ...input, carry: { state: entity.state, next: phase } });
  };
  entity.publish();

  // O3: the phase loop runs in `main`, which the answer "stop" to the budget question cancels.
  const phases = async (): Promise<void> => {
    for (;;) {
      await maybeContinueAsNew();
      let to: Phase | 'done';
      // O1: the safe point between phases: no phase starts while paused (O2: an outage nobody probes any more ends here).
      entity.apply(endUnprobedOutage);
      await gate.ready();
      try {
        to = await steps[phase]();
      } catch (err) {
        // O3: a phase that failed returned no usage: its loan counts as spent.
        if (currentChild) ledger.childEnded(currentChild, undefined);
        if (isCancellation(err) || !rp.inProgress()) throw err;
        // X13: the replan failed to execute: restore the plan before it, then escalate.
        const failed = await rp.replanFailed(err);
        entity.apply(restorePrevious);
        to = failed.jump ? jump(failed.jump) : nextPhase(failed.resumeAfter);
      }
      currentChild = undefined;
      phasesThisRun += 1;
      if (to === 'done') break;
      phase = to;
    }
  };

  try {
    await main.run(phases);
    entity.apply(completeRun);
    entity.publish();
    await notifier.drain();
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (entity.state.status === 'STOPPED') {
      entity.publish();
      await notifier.drain();
      // O3: the user answered "stop" to the budget question: a failed workflow, typed, with the final result.
      const final = result(statusView(entity.state));
      throw ApplicationFailure.create({
        message: `run ${final.runId} ${entity.state.error ?? 'stopped by its budget'}`,
        type: 'RunStoppedByBudget',
        nonRetryable: true,
        details: [final],
      });
    }
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        entity.apply(cancelRun);
        entity.publish();
      });
      throw err;
    }
    const error = rootMessage(err);
    entity.apply((s) => failRun(s, error));
    entity.publish();
    await notifier.drain();
    throw ApplicationFailure.create({ message: error, type: 'RunFailed', nonRetryable: true, details: [result(statusView(entity.state))] });
  }
  const final = result(statusView(entity.state));
  if (final.status === 'DONE') return final;
  // A run that did not reach its goal is not a green "Completed" in the Web UI or `temporal workflow
  // list`: it fails, typed, with the final result in the failure's details (V1, issue 12).
  const why = final.blocked.map((b) => `${b.taskId}: ${b.reason}`).join('; ');
  throw ApplicationFailure.create({
    message: `run ${final.runId} ended ${final.status}${why ? ` (${why.slice(0, 1000)})` : ''}`,
    type: 'RunBlocked',
    nonRetryable: true,
    details: [final],
  });
}

/**
 * The run's one state; every change goes through `apply`, which keeps the search attributes and the
 * memo current. Issue 11: they are written once per workflow activation, however many changes it
 * made (a phase's decisions, a decision and the next phase): each write is a history event carrying
 * the whole memo. `publish` writes at once; the run calls it before it ends or continues as new.
 */
function runEntity(initial: RunState): RunEntity & { publish(): void; onPublish(f: (s: RunState) => void): void } {
  let state = initial;
  let observer: ((s: RunState) => void) | undefined;
  let published = '';
  let memoized = '';
  let checklist = '';
  let checklistAt = 0;
  let details = '';
  /** `final`: the run ends or continues as new (everything is written). */
  const publish = (final: boolean) => {
    const status = displayStatus(state);
    const key = `${state.phase}|${status}|${state.counters.total}`;
    if (key !== published) {
      published = key;
      upsertSearchAttributes([
        { key: PHASE_KEY, value: state.phase },
        { key: STATUS_KEY, value: status },
        { key: REPLAN_COUNT_KEY, value: state.counters.total },
      ]);
    }
    // O5: what `status` and `decisions` answer, kept in the memo whenever a phase, the status (also
    // PAUSED), a decision, a question or a consultation changes, so a run can be inspected with no worker.
    // X10: a notification given up shows there too (its count; deliveries alone do not rewrite the memo).
    const memoKey = `${key}|${state.log.records.length}|${state.questions.map((q) => q.status).join()}|${state.consultations.map((c) => c.id).join()}|${state.notifications?.failed ?? 0}`;
    // V1 / X11: the plan checklist beside it, written only when its text changed (each write is a
    // history event; the text is bounded by runChecklist).
    const text = runChecklist(state);
    if (memoKey !== memoized) {
      memoized = memoKey;
      checklist = text;
      checklistAt = Date.now();
      upsertMemo(inspectionMemo(state));
    } else if (checklistMemoDue({ changed: text !== checklist, sinceLastMs: Date.now() - checklistAt, final })) {
      checklist = text;
      checklistAt = Date.now();
      upsertMemo({ [MEMO_CHECKLIST]: text });
    }
    // V1: the Web UI's "Current Details" (answered by a worker; no history event).
    const now = runDetails(state, status);
    if (now !== details) {
      details = now;
      setCurrentDetails(now);
    }
    observer?.(state);
  };
  let pending = false;
  /** Publishes when this activation's work is done: a condition is evaluated only after the microtasks ran. */
  const publishLater = () => {
    if (pending) return;
    pending = true;
    let asked = false;
    // Not cancellable: a change made while the run is being cancelled is still published.
    void CancellationScope.nonCancellable(() =>
      condition(() => {
        // false when first asked (condition() evaluates at once), true on the activation's next check
        const ready = asked;
        asked = true;
        return ready;
      }),
    ).then(() => {
      pending = false;
      publish(false);
    });
  };
  return {
    get state() {
      return state;
    },
    apply(t) {
      // V2: every change's events join the run's event log (workflow time; no history event).
      state = withEvents(state, t(state), new Date().toISOString());
      publishLater();
    },
    publish: () => publish(true),
    onPublish(f) {
      observer = f;
    },
  };
}

function result(s: RunStatus): RunResult {
  return { runId: s.runId, status: s.status, tasks: s.tasks, reflection: s.reflection, usage: s.usage, blocked: s.blocked };
}
