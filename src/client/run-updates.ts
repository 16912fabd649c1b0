// Acting on a run: answer its questions and consultations (Updates), pause, resume, cancel. Each
// says NotFound for an unknown run and AlreadyEnded / RunEnded for one that ended.
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { taskWorkflowId } from '../workflows/execution/types';
import {
  answerClarificationUpdate,
  answerConsultationUpdate,
  pauseUpdate,
  resumeUpdate,
  type ClarificationAnswerAck,
  type ConsultationAnswerAck,
  type ConsultationAnswerInput,
  type PauseAck,
} from '../workflows/messages';
import { AlreadyEnded, AnswerRejected, NotFound, RunEnded } from './errors';
import { endedStatus } from './run-inspect';
import { workflowIdOf } from './runs';

/** Cancels a running run; a run that already ended is reported as such (AlreadyEnded), not "cancelled". */
export async function cancelRun(client: Client, runId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowIdOf(runId));
  try {
    const desc = await handle.describe();
    if (desc.status.name !== 'RUNNING') {
      const final = endedStatus(desc);
      throw new AlreadyEnded(`run ${runId} already ended (${final}); nothing to cancel`);
    }
    await handle.cancel();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}"`, { cause: err });
    throw err;
  }
}

/** Answer a task's pending consultation (Update `answerConsultation` on `run-<id>.task-<taskId>`). */
export async function answerConsultation(
  client: Client,
  runId: string,
  taskId: string,
  answer: ConsultationAnswerInput,
): Promise<ConsultationAnswerAck> {
  const workflowId = taskWorkflowId(workflowIdOf(runId), taskId);
  return sendAnswer(
    () => client.workflow.getHandle(workflowId).executeUpdate(answerConsultationUpdate, { args: [answer] }),
    `no task "${taskId}" in run "${runId}" (workflow ${workflowId} not found or finished)`,
  );
}

/** An answering Update: a missing workflow is NotFound, a validator's rejection AnswerRejected. */
async function sendAnswer<T>(update: () => Promise<T>, notFound: string): Promise<T> {
  try {
    return await update();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFound(notFound, { cause: err });
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = (err as { cause?: unknown }).cause;
      throw new AnswerRejected(cause instanceof Error ? cause.message : err.message, { cause: err });
    }
    throw err;
  }
}

/** Answer a question of the run (Update `answerClarification` on `run-<id>`); a run that already ended is AlreadyEnded. */
export async function answerQuestion(client: Client, runId: string, questionId: string, answer: string): Promise<ClarificationAnswerAck> {
  const workflowId = workflowIdOf(runId);
  const handle = client.workflow.getHandle(workflowId);
  try {
    return await sendAnswer(
      () => handle.executeUpdate(answerClarificationUpdate, { args: [{ questionId, answer }] }),
      `no run "${runId}" (workflow ${workflowId} not found)`,
    );
  } catch (err) {
    if (!(err instanceof NotFound)) throw err;
    // A closed workflow takes no update either: say how it ended rather than "not found".
    const d = await handle.describe().catch(() => undefined);
    if (!d || d.status.name === 'RUNNING') throw err;
    const final = endedStatus(d);
    throw new AlreadyEnded(`run ${runId} already ended (${final}); its questions can no longer be answered`, { cause: err });
  }
}

/** Pause a run (Update `pause` on `run-<id>`); pausing a paused run is acknowledged (changed: false). */
export async function pauseRun(client: Client, runId: string, reason?: string): Promise<PauseAck> {
  return sendPause(client, runId, (h) => h.executeUpdate(pauseUpdate, { args: [reason ? { reason } : {}] }));
}

/** Resume a paused run (Update `resume`); resuming a running run is acknowledged (changed: false). */
export async function resumeRun(client: Client, runId: string): Promise<PauseAck> {
  return sendPause(client, runId, (h) => h.executeUpdate(resumeUpdate, { args: [] }));
}

async function sendPause(
  client: Client,
  runId: string,
  update: (h: ReturnType<Client['workflow']['getHandle']>) => Promise<PauseAck>,
): Promise<PauseAck> {
  const handle = client.workflow.getHandle(workflowIdOf(runId));
  try {
    return await update(handle);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      // The validator refused: the run ended (its status is in the reason) or a bad payload.
      const cause = (err as { cause?: unknown }).cause;
      const message = cause instanceof Error ? cause.message : err.message;
      const ended = /already ended: (\w+)/.exec(message);
      throw ended ? new RunEnded(`run "${runId}" already ended: ${ended[1]}`, ended[1]!, { cause: err }) : err;
    }
    // A closed workflow takes no update: say how it ended, or that there is no such run.
    const d = await handle.describe().catch((e: unknown) => {
      if (e instanceof WorkflowNotFoundError) throw new NotFound(`no run "${runId}" (workflow ${workflowIdOf(runId)} not found)`, { cause: e });
      throw err;
    });
    if (d.status.name !== 'RUNNING') {
      const status = endedStatus(d);
      throw new RunEnded(`run "${runId}" already ended: ${status}`, status, { cause: err });
    }
    throw err;
  }
}
