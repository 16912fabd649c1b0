// The pacemaker's consultation with the user, in a task. The task asks (its status shows the
// pending consultation; the run is poked and reads it itself), waits durably for an answer
// (the `answerConsultation` update or signal, validated by the domain) or the timeout, and goes on
// with what the answer (or the timeout) does.
import { ApplicationFailure, CancellationScope, condition, getExternalWorkflowHandle, log, setHandler } from '@temporalio/workflow';
import {
  endConsultation,
  pacemakerLogLine,
  validateConsultationAnswer,
  type ConsultationOutcome,
  type Intervention,
  type PacemakerConfig,
  type ResolvedConsultationAnswer,
} from '../../domain/pacemaker';
import type { TaskSpec } from '../../domain/types';
import {
  answerConsultationSignal,
  answerConsultationUpdate,
  taskConsultationSignal,
  taskConsultationStateQuery,
  type PendingConsultation,
} from '../messages';
import type { Pacer } from './pacer';
import type { TaskView } from './view';

export interface Consultations {
  /** Ask the user and wait durably for the answer or the timeout; the pacer has the result. */
  consult(iv: Intervention): Promise<{ outcome: ConsultationOutcome; answered: boolean }>;
  /** A cancelled task withdraws the consultation it waits on (the run is told). */
  withdraw(): Promise<void>;
}

/** The consultation handlers of a task; `runWorkflowId`: the run to poke (absent: none). */
export function installConsultations(task: TaskSpec, config: PacemakerConfig, view: TaskView, pacer: Pacer, runWorkflowId?: string): Consultations {
  let pending: PendingConsultation | undefined;
  let answer: ResolvedConsultationAnswer | undefined;
  let asked = 0;
  // One validation (the domain's) for the update's validator, its handler and the signal. It
  // refuses with the update's own failure: a plain Error thrown from an update handler would fail
  // the task's workflow task instead of the update.
  const validateAnswer = (a: unknown): ResolvedConsultationAnswer => {
    const v = validateConsultationAnswer(pending && !answer ? pending : undefined, a);
    if (!v.ok) throw ApplicationFailure.create({ type: 'Refused', message: `task ${task.id}: ${v.error}`, nonRetryable: true });
    return v.answer;
  };
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
  // The run reads this task's consultation from here (a poke says only "look again").
  setHandler(taskConsultationStateQuery, () => view.status.consultation ?? null);
  const tellRun = async () => {
    if (!runWorkflowId) return;
    try {
      await getExternalWorkflowHandle(runWorkflowId).signal(taskConsultationSignal, { taskId: task.id });
    } catch (e) {
      log.warn(`could not tell the run about consultation of task ${task.id}: ${(e as Error).message}`);
    }
  };
  const ask = (iv: Intervention): PendingConsultation => ({
    id: `${task.id}-c${asked}`,
    taskId: task.id,
    kind: iv.kind,
    iteration: iv.iteration,
    maxLoops: iv.maxLoops,
    message: iv.message.en,
    // V9: the Japanese words too: a run whose instruction is Japanese shows them.
    messageJa: iv.message.ja,
    trigger: iv.trigger,
    choices: iv.choices.map((c) => ({ number: c.number, key: c.key, effect: c.effect, label: c.label.en, ja: c.label.ja, needsText: c.needsText })),
    timeoutMinutes: config.consultation_timeout_minutes,
  });

  return {
    async consult(iv) {
      asked += 1;
      pending = ask(iv);
      answer = undefined;
      view.status.consultation = pending;
      view.show();
      view.paceLog(pacemakerLogLine('intervention', { taskId: task.id, kind: iv.kind, iteration: iv.iteration, maxLoops: iv.maxLoops }));
      await tellRun();
      const timeoutMs = config.consultation_timeout_minutes * 60_000;
      const answered = timeoutMs > 0 ? await condition(() => answer !== undefined, timeoutMs) : false;
      const before = pacer.state.maxLoops;
      // Set by the update/signal handler while we waited (TS cannot see that mutation).
      const got = answer as ResolvedConsultationAnswer | undefined;
      const result = endConsultation(pacer.state, iv.kind, answered ? got : undefined, config);
      pacer.consulted(result);
      view.paceLog(
        pacemakerLogLine('intervention', {
          taskId: task.id,
          kind: iv.kind,
          iteration: iv.iteration,
          maxLoops: before,
          effect: result.outcome.effect,
          timedOut: !answered,
          newMaxLoops: pacer.state.maxLoops,
        }),
      );
      pending = undefined;
      answer = undefined;
      delete view.status.consultation;
      view.show();
      await tellRun();
      return { outcome: result.outcome, answered };
    },
    async withdraw() {
      if (!pending) return;
      pending = undefined;
      delete view.status.consultation;
      await CancellationScope.nonCancellable(() => tellRun());
    },
  };
}
