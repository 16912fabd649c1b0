// TaskWorkflow: one task, looping worker → judge until DONE, BLOCKED, or a request to re-decompose
// it into smaller tasks (REPLAN, for the execution phase). The loop limit comes from the Duck
// Pacemaker, recomputed after every iteration from measured vitals; when it sees trouble it
// consults the user and waits durably for the answer (P7). Each part in its own file beside this
// one: the iteration's activities (iteration.ts), the pacemaker's state (pacer.ts), the
// consultation (consultation.ts), the stuck detector's window (stuck.ts) and what the task shows
// while it runs (view.ts).
import { isCancellation } from '@temporalio/workflow';
import { consultationEnd, DEFAULT_PACEMAKER_CONFIG, pacemakerLogLine } from '../../domain/pacemaker';
import { judgeOutcome, type JudgeResult } from '../../domain/replan/judge-outcome';
import { stuckNote, stuckStatusLine } from '../../domain/stuck';
import { addUsage } from '../../domain/usage';
import { workerStepLimit } from '../../domain/worker-steps';
import type { StuckPromptInput } from '../../llm/prompts/task';
import { installLease } from '../budget-lease';
import { installChildGate } from '../child-gate';
import { explainActivityFailure } from '../failures';
import { rungReport } from '../llm-form';
import { installConsultations } from './consultation';
import { judgeIteration, runWorkerIteration } from './iteration';
import { startPacer } from './pacer';
import { installStuckWatch } from './stuck';
import type { TaskInput, TaskOutcome } from './types';
import { taskView } from './view';

export type { TaskOutcome } from './types';

export async function TaskWorkflow(input: TaskInput): Promise<TaskOutcome> {
  const { task, options } = input;
  const config = options.pacemaker ?? DEFAULT_PACEMAKER_CONFIG;
  // What the task shows (details, events, pacemaker log lines); its first loop limit.
  const view = taskView(task);
  const pacer = startPacer(task, config, view);
  const status = view.status;
  view.show();
  // The run's pause, told by the execution phase; every worker step and the judge wait here while paused.
  // Every worker step and judge call also waits until it fits the task's loan (asks for more when used up).
  const lease = installLease(input.budget);
  // The structured-output fallback ladder's rung, from the execution phase and this task's calls (reported with the outcome).
  const gate = installChildGate(options, lease);
  // The user's answers to the pacemaker's consultations.
  const consultations = installConsultations(task, config, view, pacer, input.runWorkflowId);

  // The stuck detector, fed each worker step; its window is this workflow's state.
  const stuckWatch = installStuckWatch(config, view);
  let stuckPrompt: StuckPromptInput | undefined;

  let feedback: string | undefined;
  let last: { judge?: JudgeResult; logPath?: string } = {};
  const finish = (state: TaskOutcome['state'], reason: string): TaskOutcome => {
    status.state = state === 'DONE' ? 'DONE' : state === 'BLOCKED' ? 'BLOCKED' : 'RUNNING';
    view.show();
    const pace = pacer.state;
    view.paceLog(
      pacemakerLogLine('end', {
        taskId: task.id,
        loopsUsed: pace.iteration,
        maxLoops: pace.maxLoops,
        interventions: pace.interventions,
        outcome: state === 'DONE' ? 'success' : `${state.toLowerCase()}: ${reason}`,
      }),
    );
    const stuck = status.stuck ? { stuck: stuckStatusLine(status.stuck) } : {};
    return { taskId: task.id, state, reason, iterations: pace.iteration, usage: status.usage, ...stuck, ...last, ...rungReport(options) };
  };

  try {
    for (;;) {
      // The worker works (with the judge's feedback and the user's guidance, if any) …
      status.iteration = pacer.state.iteration + 1;
      status.state = 'RUNNING';
      const guidance = pacer.takeGuidance();
      const worker = await runWorkerIteration({
        run: input.run,
        task,
        steps: input.steps,
        iteration: status.iteration,
        feedback,
        guidance,
        options,
        gate,
        onStep: (step, r) => view.stepDone(status.iteration, step, r),
        ...(stuckPrompt ? { stuck: stuckPrompt } : {}),
        watch: (step, r) => stuckWatch.watch(step, r),
      });
      // The next iteration's prompt says what this one repeated and what the tools answered.
      const stuck = worker.stuck;
      stuckPrompt = stuckWatch.promptAfter(stuck);
      status.usage = addUsage(status.usage, worker.usage);
      // … and the judge says whether the task is done.
      const judged = await judgeIteration(input.run, task, worker, options, gate);
      status.usage = addUsage(status.usage, judged.usage);
      const judge = judged.value;
      status.lastJudgeReason = judge.reason;
      view.show();
      last = { judge, logPath: worker.logPath };

      // What this iteration showed: the vitals and the limit.
      pacer.afterIteration({
        judgeConfidence: judge.confidence,
        missingRequirements: judge.missingRequirements,
        actionSignatures: worker.actionSignatures ?? [],
        steps: worker.steps,
        toolCalls: worker.toolCalls,
        toolErrors: worker.toolErrors,
        ...(stuck ? { stuck: { finding: stuck, stepLimit: workerStepLimit(options.workerMaxSteps) } } : {}),
      });

      const outcome = judgeOutcome(judge); // the judge's verdict: done, continue, re-decompose or blocked
      if (outcome !== 'NEEDS_CONTINUATION') return finish(outcome, judge.reason);
      status.state = 'NEEDS_CONTINUATION';
      feedback = [judge.reason, ...judge.missingRequirements.map((m) => `- missing: ${m}`)].join('\n');

      // Should the pacemaker step in?
      const step = pacer.next(stuck ? stuckNote(stuck) : undefined);
      if (step.action === 'stop') {
        return finish('BLOCKED', `not done after ${pacer.state.iteration} worker iterations (${step.reason}): ${judge.reason}`.trim());
      }
      if (step.action === 'consult') {
        const { outcome: effect, answered } = await consultations.consult(step.intervention);
        const end = consultationEnd(effect, answered);
        if (end) return finish(end.state, end.reason);
      }
    }
  } catch (err) {
    if (isCancellation(err)) await consultations.withdraw();
    throw explainActivityFailure(`task ${task.id}`, err);
  }
}
