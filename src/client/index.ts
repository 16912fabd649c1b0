// Replanner's client library (`require('replanner/client')`, built to dist/src/client/index.js):
// what the `replanner` CLI uses, for scripts that drive runs with @temporalio/client themselves.
// examples/client.ts shows it end to end; README "Using it" lists it beside the CLI.
//
//   const route = routeOf(process.env);                      // the task queue of your endpoint + model
//   await ensureWorker(connection, { address, namespace }, console.log, process.env, route);
//   const { runId } = await startRun(client, { instruction, workspace, taskQueue: route.taskQueue, holdWorkspace: true });
//   const q = await waitForQuestion(client, runId);          // status until a question is pending
//   if (q) await answerQuestion(client, runId, q.id, 'JSON'); // the answerClarification update
//   const final = await watchRun(client, runId, (s) => console.log(s.phase, s.status));

/** Runs: start (queue, memo, search attributes, the workspace lock), list; status and decisions; questions, pause, resume, cancel. */
export { listRuns, runOptionsFromConfig, startRun, workflowIdOf, type RunListing, type StartParams } from './runs';
export { FINAL, getDecisions, getStatus, queueHasWorker, waitForQuestion, watchRun, workerProblem } from './run-inspect';
export { answerConsultation, answerQuestion, cancelRun, pauseRun, resumeRun } from './run-updates';
export { AlreadyEnded, AnswerRejected, NotFound, NoWorker, RunEnded } from './errors';
/** Every event of a run once, in order (the `events` query with a cursor), and watch's printer. */
export { eventPrinter, watchEvents, type WatchHandlers, type WorkerStepEvent } from './watch';
/** One running run per workspace (a lock workflow per workspace). */
export { RunIdTaken, WorkspaceBusy, workspaceLockId } from './workspace-lock';
export { NoWorkspaceHost, workspaceHostOf, workersOn } from './workspace-host';
/** Where runs go (the task queue of an endpoint + model) and the workers the CLI starts for them. */
export { readRecord } from './workers';
export { ensureWorker, stopWorker, WorkerStartError } from './worker-start';
export { routeOf, type Route } from '../route';
/** The Temporal server: connect, or start the persisted local dev server like `replanner run`. */
export { BackendError, connect, ensureBackend, ensureServer, settingsFromEnv, webUiUrl, type Backend } from './backend';
/** The YAML config, checked (ConfigError names the key path). */
export { loadConfig } from './config-load';
export { ConfigError, type ReplannerConfig } from '../domain/config';
/** What the CLI prints. */
export { pendingQuestions, renderDecisions, renderStatus } from './render';
/** The workflow's messages, for handles of your own (`handle.executeUpdate(answerClarificationUpdate, …)`). */
export {
  answerClarificationUpdate,
  answerConsultationUpdate,
  decisionsQuery,
  eventsQuery,
  pauseUpdate,
  resumeUpdate,
  statusQuery,
  type ClarificationAnswerAck,
  type DecisionsView,
  type PauseAck,
  type Question,
  type RunEvent,
  type RunEventsPage,
  type RunStatus,
} from '../workflows/messages';
export { RunWorkflow, runWorkflowId, type RunInput } from '../workflows/run';
/**
 * What a run gives back: RunResult (what its workflow returns: `handle.result()`), RunStatus (what
 * `getStatus` and `watchRun` return), RunStatusValue (every value of their `status`), the tasks.
 */
export type { RunResult } from '../workflows/run';
export type { ShownRunStatus as RunStatusValue } from '../domain/run/state';
export { TaskState, type Reflection, type TaskRecord } from '../domain/types';
export type { TokenUsage } from '../domain/usage';
