// TaskWorkflow: one task, looping worker → judge (J1, J2) until DONE, BLOCKED, or a request to
// re-decompose. The loop limit comes from the Duck Pacemaker (P1–P6), recomputed after every
// iteration from measured vitals; when it sees trouble it consults the user and waits durably (P7).
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import {
  applyConsultationAnswer,
  applyConsultationTimeout,
  calculateMaxLoops,
  detectProgress,
  DEFAULT_PACEMAKER_CONFIG,
  evaluatePacemaker,
  initialPacemakerState,
  measureVitals,
  NEUTRAL_VITALS,
  pacemakerLogLine,
  recordIteration,
  takePendingGuidance,
  validateConsultationAnswer,
  type ComplexityInput,
  type ConsultationOutcome,
  type ProgressMarks,
  type Intervention,
  type PacemakerState,
  type ResolvedConsultationAnswer,
} from '../domain/pacemaker';
import { addFileChanges, type FileChange } from '../domain/file-changes';
import { judgeOutcome } from '../domain/replan/judge-outcome';
import { addStepLine, taskDetails, TASK_DETAIL_STEPS, type TaskStepLine } from '../domain/task-details';
import type { TaskSpec } from '../domain/types';
import type { Activities, RunRef } from '../activities';
import type { Judgement } from '../llm/schemas';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../domain/usage';
import {
  answerConsultationSignal,
  answerConsultationUpdate,
  taskConsultationSignal,
  taskConsultationStateQuery,
  taskStatusQuery,
  type PendingConsultation,
  type TaskStatus,
} from './messages';
import { llmActivityOptions, type RunOptions } from './options';
import { runWorkerIteration } from './worker-loop';
import { installLease, type LeaseInput } from './budget-lease';
import { installChildGate } from './child-gate';
import { rungReport } from './llm-form';
import type { LlmRungReport } from '../domain/llm-form';
import { explainActivityFailure } from './failures';
import { touchesWorkspace } from '../domain/workspace-host';

export interface TaskInput {
  run: RunRef;
  task: TaskSpec;
  steps: string[];
  options: RunOptions;
  /** The RunWorkflow to tell about consultations (P7); absent → not told. */
  runWorkflowId?: string;
  /** O3: the tokens the execution phase lends this task (absent: no budget). */
  budget?: LeaseInput;
}

export interface TaskOutcome extends LlmRungReport {
  taskId: string;
  /** REPLAN: the judge (J2) or the user (P7 redecompose / simplify) asked for re-decomposition; the execution phase decides what to do. */
  state: 'DONE' | 'BLOCKED' | 'REPLAN';
  reason: string;
  iterations: number;
  usage: TokenUsage;
  judge?: Judgement;
  /** Workspace-relative directory of the last worker iteration's transcript (prompt.json, step-NNN.json). */
  logPath?: string;
}

/** Signals kept for the vitals (P2) and complexity (P3): small, bounded lists only. */
const SIGNAL_WINDOW = 12;
/** P8: pacemaker lines kept in the task's status. */
const PACEMAKER_LOG_LINES = 20;

export async function TaskWorkflow(input: TaskInput): Promise<TaskOutcome> {
  const { task, options } = input;
  const pm = options.pacemaker ?? DEFAULT_PACEMAKER_CONFIG;

  // P2/P3 signals, measured from real worker and judge results (measureVitals):
  //  mood    = mean of the judge's last 3 `confidence` values (neutral 0.7 while it gives none);
  //  focus   = 1 − repetition among the worker's last tool-call signatures and failed tool calls;
  //  stamina = 1 − worker iterations used / the current limit.
  // "No progress" (P7 no_progress): detectProgress (src/domain/pacemaker/vitals).
  const sig = {
    judgeConfidences: [] as number[],
    actions: [] as string[],
    errors: [] as string[],
    historyTurns: 0,
    toolRuns: 0,
    toolErrors: 0,
    lastMarks: {} as ProgressMarks,
  };
  // P3: files = the task's scope paths; history turns = worker steps; error rate = failed / all tool calls.
  const complexity = (): ComplexityInput => ({
    files: task.scopePaths.length,
    historyTurns: sig.historyTurns,
    toolRuns: sig.toolRuns,
    toolErrors: sig.toolErrors,
  });
  const start = calculateMaxLoops({ profile: task.profile, complexity: complexity(), config: pm });
  let pace: PacemakerState = initialPacemakerState(start.max_loops, NEUTRAL_VITALS);
  /** A limit set by a consultation (raised) is never lowered by a recomputation. */
  let limitFloor = 0;

  const status: TaskStatus = {
    taskId: task.id,
    state: 'RUNNING',
    iteration: 0,
    maxIterations: pace.maxLoops,
    usage: ZERO_USAGE,
  };
  /** P8: every [DUCK_PACEMAKER] line goes to the worker log and, the newest few, to `taskStatus`. */
  const paceLog = (line: string) => {
    log.info(line);
    status.pacemakerLog = [...(status.pacemakerLog ?? []), line].slice(-PACEMAKER_LOG_LINES);
  };
  paceLog(pacemakerLogLine('start', { taskId: task.id, result: start }));
  const refreshStatus = () => {
    status.maxIterations = pace.maxLoops;
    status.pacemaker = { maxLoops: pace.maxLoops, vitals: pace.vitals, interventions: pace.interventions.length };
  };
  refreshStatus();
  // V1: the task's current details in the Web UI: its loop and the worker steps so far (no history event).
  let stepLines: TaskStepLine[] = [];
  let stepsSeen = 0;
  // V3: the files changed, from the worker steps' own results.
  let changes: { files: FileChange[]; unlisted: number } = { files: [], unlisted: 0 };
  const showDetails = () =>
    setCurrentDetails(
      taskDetails({
        taskId: task.id,
        title: task.title,
        state: status.state,
        iteration: status.iteration,
        maxIterations: status.maxIterations,
        steps: stepLines,
        earlierSteps: Math.max(0, stepsSeen - TASK_DETAIL_STEPS),
        files: changes.files,
        unlistedFiles: changes.unlisted,
        ...(status.lastJudgeReason ? { lastJudgeReason: status.lastJudgeReason } : {}),
        ...(status.consultation ? { consultation: `${status.consultation.id}: ${status.consultation.message}` } : {}),
      }),
    );
  showDetails();

  // P7: the pending consultation and its answer.
  let pending: PendingConsultation | undefined;
  let answer: ResolvedConsultationAnswer | undefined;
  let consultations = 0;
  // P7: one validation (src/domain/pacemaker) for the update's validator and the signal.
  const validateAnswer = (a: unknown): ResolvedConsultationAnswer => {
    const v = validateConsultationAnswer(pending && !answer ? pending : undefined, a);
    if (!v.ok) throw new Error(`task ${task.id}: ${v.error}`);
    return v.answer;
  };

  // O1: told by the execution phase; every worker step and the judge wait here while paused.
  // O3: every worker step and judge call also waits until it fits the task's loan (asks for more when used up).
  const lease = installLease(input.budget);
  // M1: the ladder's rung, from the execution phase and this task's calls (reported with the outcome).
  const gate = installChildGate(options, lease);
  // V2: with the worker steps the details show, for `watch` (a query: no history event).
  setHandler(taskStatusQuery, () => ({ ...status, steps: stepLines }));
  setHandler(
    answerConsultationUpdate,
    (a) => {
      const resolved = validateAnswer(a);
      const id = pending!.id;
      answer = resolved;
      return { taskId: task.id, consultationId: id, effect: resolved.choice.effect, choice: resolved.choice.key };
    },
    { validator: (a: unknown) => void validateAnswer(a) },
  );
  setHandler(answerConsultationSignal, (payload: unknown) => {
    try {
      answer = validateAnswer(payload);
    } catch (e) {
      log.warn(`ignored an invalid answerConsultationSignal on task ${task.id}: ${(e as Error).message}`);
    }
  });

  // S2: the run reads this task's consultation from here (a poke says only "look again").
  setHandler(taskConsultationStateQuery, () => status.consultation ?? null);
  const tellRun = async () => {
    if (!input.runWorkflowId) return;
    try {
      await getExternalWorkflowHandle(input.runWorkflowId).signal(taskConsultationSignal, { taskId: task.id });
    } catch (e) {
      log.warn(`could not tell the run about consultation of task ${task.id}: ${(e as Error).message}`);
    }
  };

  /** P7: ask the user and wait durably for the answer or the timeout. */
  const consult = async (iv: Intervention): Promise<{ outcome: ConsultationOutcome; answered: boolean }> => {
    consultations += 1;
    pending = {
      id: `${task.id}-c${consultations}`,
      taskId: task.id,
      kind: iv.kind,
      iteration: iv.iteration,
      maxLoops: iv.maxLoops,
      message: iv.message.en,
      trigger: iv.trigger,
      choices: iv.choices.map((c) => ({ number: c.number, key: c.key, effect: c.effect, label: c.label.en, ja: c.label.ja, needsText: c.needsText })),
      timeoutMinutes: pm.consultation_timeout_minutes,
    };
    answer = undefined;
    status.consultation = pending;
    showDetails();
    paceLog(pacemakerLogLine('intervention', { taskId: task.id, kind: iv.kind, iteration: iv.iteration, maxLoops: iv.maxLoops }));
    await tellRun();
    const timeoutMs = pm.consultation_timeout_minutes * 60_000;
    const answered = timeoutMs > 0 ? await condition(() => answer !== undefined, timeoutMs) : false;
    const before = pace.maxLoops;
    // Set by the update/signal handler while we waited (TS cannot see that mutation).
    const got = answer as ResolvedConsultationAnswer | undefined;
    const result = answered && got ? applyConsultationAnswer(pace, got, pm) : applyConsultationTimeout(pace, iv.kind, pm);
    pace = result.state;
    const outcome = result.outcome;
    if ('maxLoops' in outcome) limitFloor = Math.max(limitFloor, outcome.maxLoops);
    paceLog(
      pacemakerLogLine('intervention', {
        taskId: task.id,
        kind: iv.kind,
        iteration: iv.iteration,
        maxLoops: before,
        effect: outcome.effect,
        timedOut: !answered,
        newMaxLoops: pace.maxLoops,
      }),
    );
    pending = undefined;
    answer = undefined;
    delete status.consultation;
    refreshStatus();
    showDetails();
    await tellRun();
    return { outcome, answered };
  };

  let feedback: string | undefined;
  let last: { judge?: Judgement; logPath?: string } = {};
  const finish = (state: TaskOutcome['state'], reason: string): TaskOutcome => {
    status.state = state === 'DONE' ? 'DONE' : state === 'BLOCKED' ? 'BLOCKED' : 'RUNNING';
    showDetails();
    paceLog(
      pacemakerLogLine('end', {
        taskId: task.id,
        loopsUsed: pace.iteration,
        maxLoops: pace.maxLoops,
        interventions: pace.interventions,
        outcome: state === 'DONE' ? 'success' : `${state.toLowerCase()}: ${reason}`,
      }),
    );
    return { taskId: task.id, state, reason, iterations: pace.iteration, usage: status.usage, ...last, ...rungReport(options) };
  };

  try {
    for (;;) {
      status.iteration = pace.iteration + 1;
      status.state = 'RUNNING';
      const g = takePendingGuidance(pace);
      pace = g.state;
      const worker = await runWorkerIteration({
        run: input.run,
        task,
        steps: input.steps,
        iteration: status.iteration,
        feedback,
        guidance: g.guidance,
        options,
        gate,
        onStep: (step, r) => {
          stepsSeen += 1;
          stepLines = addStepLine(stepLines, status.iteration, step, r);
          changes = addFileChanges(changes, r.files, r.moreFiles);
          showDetails();
        },
      });
      status.usage = addUsage(status.usage, worker.usage);
      const judged = await gate
        .gated(proxyActivities<Activities>(llmActivityOptions(options, `judge: ${task.title}`, touchesWorkspace('judgeTask'))))
        .judgeTask({
          ...input.run,
          task,
          workerSummary: worker.summary,
          logPath: worker.logPath,
        });
      status.usage = addUsage(status.usage, judged.usage);
      const judge = judged.value;
      status.lastJudgeReason = judge.reason;
      showDetails();
      last = { judge, logPath: worker.logPath };

      // P2/P3: record what this iteration showed.
      if (typeof judge.confidence === 'number') sig.judgeConfidences = [...sig.judgeConfidences, judge.confidence].slice(-3);
      const actions = worker.actionSignatures ?? [];
      sig.actions = [...sig.actions, ...actions].slice(-SIGNAL_WINDOW);
      sig.errors = [...sig.errors, ...actions.filter((a) => a.endsWith('!'))].slice(-SIGNAL_WINDOW);
      sig.historyTurns += worker.steps;
      sig.toolRuns += worker.toolCalls;
      sig.toolErrors += worker.toolErrors;
      const { progressed, marks } = detectProgress(sig.lastMarks, judge.missingRequirements, actions);
      sig.lastMarks = marks;
      const vitals = measureVitals({
        judgeConfidences: sig.judgeConfidences,
        recentActions: sig.actions,
        recentErrors: sig.errors,
        attemptsUsed: pace.iteration + 1,
        maxAttempts: pace.maxLoops,
      });
      const vitalsBefore = pace.vitals;
      pace = recordIteration(pace, { progressed, vitals });
      const limit = calculateMaxLoops({ profile: task.profile, vitals, complexity: complexity(), config: pm });
      pace = { ...pace, maxLoops: Math.max(limit.max_loops, limitFloor) };
      refreshStatus();
      // P8: the per-loop lines.
      if (!progressed) {
        paceLog(
          pacemakerLogLine('stall', {
            taskId: task.id,
            iteration: pace.iteration,
            maxLoops: pace.maxLoops,
            noProgressIterations: pace.noProgressIterations,
          }),
        );
      }
      paceLog(pacemakerLogLine('vitals', { taskId: task.id, iteration: pace.iteration, before: vitalsBefore, after: pace.vitals }));

      const outcome = judgeOutcome(judge); // J2
      if (outcome !== 'NEEDS_CONTINUATION') return finish(outcome, judge.reason);
      status.state = 'NEEDS_CONTINUATION';
      feedback = [judge.reason, ...judge.missingRequirements.map((m) => `- missing: ${m}`)].join('\n');

      // P7: should the pacemaker step in?
      const step = evaluatePacemaker(pace, pm);
      if (step.action === 'stop') {
        return finish('BLOCKED', `not done after ${pace.iteration} worker iterations (${step.reason}): ${judge.reason}`.trim());
      }
      if (step.action === 'consult') {
        const { outcome, answered } = await consult(step.intervention);
        const end = consultationEnd(outcome, answered);
        if (end) return finish(end.state, end.reason);
      }
    }
  } catch (err) {
    if (isCancellation(err) && pending) {
      pending = undefined;
      delete status.consultation;
      await CancellationScope.nonCancellable(() => tellRun());
    }
    throw explainActivityFailure(`task ${task.id}`, err);
  }
}

/** P7: the consultation effects that end the task, and how; undefined → the loop goes on. */
function consultationEnd(outcome: ConsultationOutcome, answered: boolean): { state: TaskOutcome['state']; reason: string } | undefined {
  switch (outcome.effect) {
    case 'stop':
      return { state: 'BLOCKED', reason: answered ? `stopped by the user (${outcome.reason})` : outcome.reason };
    case 'accept':
      return { state: 'DONE', reason: outcome.reason };
    case 'redecompose':
    case 'simplify':
      return { state: 'REPLAN', reason: outcome.reason };
    default:
      return undefined;
  }
}
