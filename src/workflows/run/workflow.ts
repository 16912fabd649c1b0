// RunWorkflow: one per instruction, an entity (docs/architecture.md, "The workflows of one run"). It holds one RunState
// (./entity.ts) and changes it only through pure transitions. Read top to bottom: the run's parts,
// every message handler (one line each, delegating), then the phase loop: goal → tasks → actions →
// execution → reflection, each phase a child workflow followed by "replan?" (a replan jumps back to its target phase; ./steps.ts).
import { CancellationScope, log, patched, setDefaultSignalHandler, setHandler, workflowInfo } from '@temporalio/workflow';
import { notifyTargetOf } from '../../domain/notifications';
import { pullRequestProjectOf } from '../../domain/pull-request/run-state';
import { endUnprobedOutage, isPaused, noteLlmRung, pauseKinds } from '../../domain/run/pause';
import type { Phase } from '../../domain/types';
import { runCallGate } from '../call-gate';
import {
  ANSWER_SIGNAL_HELP,
  answerClarificationSignal,
  answerClarificationUpdate,
  answerSignal,
  budgetRequestSignal,
  decisionsQuery,
  eventsQuery,
  llmTroubleSignal,
  pauseSignal,
  pauseUpdate,
  resumeSignal,
  resumeUpdate,
  statusQuery,
  taskConsultationSignal,
  taskProgressSignal,
  workspaceHoldUpdate,
} from '../messages';
import { startPauseRelay } from '../pause-relay';
import { createReplanning } from './replanning';
import { startRunLedger } from './budget-ledger';
import { ChildReads, RunningChildren } from './child-reads';
import { completed, continueAsNewIfDue, endedEarly, outcome, refused } from './ending';
import { runBranchOf } from './git-branch';
import { pullRequestFlowOf } from './pull-request';
import { isoNow, RunEntity } from './entity';
import { startNotifier } from './notifications';
import { configure, runStartOf, type RunInput, type RunResult } from './start';
import { PhaseSteps, type NextPhase } from './steps';
import { RunWorkspace } from './workspace';
import { afterCompletions } from './update-order';

/**
 * O6: the run uses no local activity (its reads of its children and its workspace lock's are ordinary
 * activities), so no cache eviction can drop one with its workflow task. Runs recorded before it replay with theirs.
 */
const RUN_WITHOUT_LOCAL_ACTIVITIES = 'run-without-local-activities';

export async function RunWorkflow(input: RunInput): Promise<RunResult> {
  const withoutLocalActivities = patched(RUN_WITHOUT_LOCAL_ACTIVITIES);
  const start = runStartOf(input);
  const { options, run } = start;
  const runWorkflowId = workflowInfo().workflowId;
  const entity = new RunEntity(start.initial);
  const children = new RunningChildren();
  // The phase child running now is kept told whether the run is paused.
  const relay = startPauseRelay(
    () => pauseKinds(entity.state),
    () => (children.phase ? [children.phase] : []),
  );
  entity.whenResumed(() => relay.retell());
  const reads = new ChildReads(entity, children, runWorkflowId, withoutLocalActivities);
  // The run is the budget's ledger; "stop" as the budget question's answer cancels the phases
  // (`main`, below) and ends the run STOPPED.
  const main = new CancellationScope();
  const ledger = startRunLedger({ entity, now: isoNow, currentChild: () => children.phase, onStop: () => main.cancel() });
  // The run's call gate (call-gate.ts): the run's safe points wait on it while paused; the run's own
  // LLM calls (replan decisions) wait until they fit the ledger, report LLM trouble straight into its
  // state (a call its workspace host did not start pauses it); a lower fallback level any call of the
  // run learns is kept in its state.
  const gate = runCallGate({
    options,
    budget: ledger,
    isPaused: () => isPaused(entity.state),
    kinds: () => pauseKinds(entity.state),
    llmTrouble: (m) => entity.llmTrouble(m),
    onLower: (rung, stream) => entity.apply((s) => noteLlmRung(s, rung, stream)),
  });
  // The workspace's lock (one running run per workspace), taken as the run's first step.
  const workspace = new RunWorkspace(input, withoutLocalActivities);

  // ------------------------------------------------------------ every message of the run
  setHandler(statusQuery, () => entity.status());
  setHandler(decisionsQuery, () => entity.decisions());
  setHandler(eventsQuery, (afterSeq?: unknown) => entity.events(afterSeq));
  setHandler(
    answerClarificationUpdate,
    afterCompletions((a: Parameters<RunEntity['answer']>[0]) => entity.answer(a)),
    { validator: (a: unknown) => entity.refuseAnswer(a) },
  );
  setHandler(answerClarificationSignal, (payload: unknown) => entity.answerSignalled(payload));
  setHandler(answerSignal, (payload: unknown) => entity.answerFromWebUi(payload), { description: ANSWER_SIGNAL_HELP });
  setHandler(workspaceHoldUpdate, () => workspace.hold());
  setHandler(
    pauseUpdate,
    afterCompletions((...a: unknown[]) => entity.pauseOrResume('pause', a[0])),
    {
      validator: (...a: unknown[]) => entity.refusePauseOrResume('pause', a[0]),
    },
  );
  setHandler(
    resumeUpdate,
    afterCompletions((...a: unknown[]) => entity.pauseOrResume('resume', a[0])),
    {
      validator: (...a: unknown[]) => entity.refusePauseOrResume('resume', a[0]),
    },
  );
  setHandler(pauseSignal, (payload?: unknown) => entity.pauseOrResumeSignalled('pause', payload));
  setHandler(resumeSignal, (payload?: unknown) => entity.pauseOrResumeSignalled('resume', payload));
  // Pokes from the run's own children: what they are about is read from the child itself.
  setHandler(taskProgressSignal, (payload?: unknown) => reads.progressReported(payload));
  setHandler(llmTroubleSignal, (payload: unknown) => reads.troublePoked(payload));
  setHandler(taskConsultationSignal, (payload: unknown) => reads.consultationPoked(payload));
  setHandler(budgetRequestSignal, (payload: unknown) => ledger.requested(payload));
  // A signal of no known name is dropped (otherwise the SDK would buffer it for a handler that never comes).
  setDefaultSignalHandler((name) => log.warn(`ignored unknown signal "${name}"`));

  // ------------------------------------------------------------ the phases
  const body = async (): Promise<RunResult> => {
    const config = configure(input, start, entity);
    // The run's first step: it holds its workspace, or it is refused at once, naming the holder.
    const hold = await workspace.take();
    if (!hold.held) await refused(entity, hold, () => workspace.awaitDeletion());
    const replanningDeps = { run, options, config, entity, gate };
    const replanning = createReplanning(replanningDeps);
    // Notifications and the plan checklist: the issue or merge request of the config, told of every
    // published state (delivered in the background).
    const notifier = startNotifier({ target: notifyTargetOf(config.notifications), options, entity, now: isoNow });
    // G1: with a branch of its own the run commits each task that ends DONE (made as its first step).
    const branch = runBranchOf({ entity, options, config, service: pullRequestProjectOf(config)?.service });
    // (awaited only when there is one: a run without it runs exactly as before, command for command)
    if (branch) await branch.start();
    // G3 / G4: and with a pull request, it opens it after the first push and follows it once the phases run out.
    const lock = () => workspace.held;
    const pullRequest = branch && pullRequestFlowOf({ entity, config, options, input, notifier, lock, gate, replanning, replanningDeps, branch });
    entity.onPublish((s) => {
      notifier.observe(s);
      branch?.observe(s);
      pullRequest?.observe(s);
    });
    const steps = new PhaseSteps({ run, options, config, entity, children, reads, ledger, gate, replanning, runWorkflowId });
    entity.publish();

    const phases = async (): Promise<void> => {
      let phase: Phase | 'done' = input.carry?.following ? 'done' : (input.carry?.next ?? 'goal_understanding');
      for (let phasesRun = 0; ; phasesRun++) {
        if (phase === 'done') {
          // The phases ran out: the last commits are made before the run ends; with a pull request
          // the run follows it, and feedback may send it back to a phase.
          if (branch && !pullRequest) await branch.settled();
          const back = pullRequest ? await pullRequest.afterPhases() : undefined;
          if (back === undefined) return;
          phase = back;
        }
        await continueAsNewIfDue({ input, options, entity, notifier, next: phase, phasesRun, lock: workspace.held, settle: branch });
        // The safe point between phases: no phase starts while paused (an outage pause nobody probes any more ends here).
        entity.apply(endUnprobedOutage);
        await gate.ready();
        let next: NextPhase;
        try {
          next = await steps.step(phase);
        } catch (err) {
          next = await steps.afterFailure(err);
        }
        children.phase = undefined;
        phase = next;
      }
    };
    try {
      // The phase loop runs in `main`, which the answer "stop" to the budget question cancels.
      await main.run(phases);
      await completed({ entity, notifier });
    } catch (err) {
      return endedEarly(err, { entity, notifier });
    }
    return outcome(entity);
  };
  // However the run ends (not continue-as-new), its workspace lock ends with it.
  try {
    const result = await body();
    await workspace.ended();
    return result;
  } catch (err) {
    await workspace.ended(err);
    throw err;
  }
}
