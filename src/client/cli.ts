// The `replanner` command line. Exit codes: 0 ok (a waited run ended DONE), 1 the run ended
// BLOCKED/FAILED/CANCELLED/STOPPED/TERMINATED/TIMED_OUT, 2 usage error, invalid config or rejected
// answer, 3 Temporal unreachable, run not found, or no worker polls the run's queue.
import { parseArgs } from 'node:util';
import { countProblem, instructionProblem, runIdProblem } from '../domain/run-input';
import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { MAX_BUDGET_TOKENS } from '../domain/budget';
import { ConfigError, parseConfig, type NotificationsConfig, type ReplannerConfig } from '../domain/config';
import { parseGithubFlag, parseGitlabFlag } from '../domain/notifications';
import { loadConfig } from './config-load';
import { newRunId, readInstructionSource, runningRunOn, storeInstruction } from './run-start-guards';
import { BackendError, connect, ensureBackend, webUiUrl, type Backend } from './backend';
import { WORKER_HELP, workerCommand } from './worker-cmd';
import { DOCTOR_HELP, doctorCommand } from './doctor';
import { filesByTask, renderDiffs, runDiffs } from './diff';
import { RunIdTaken, WorkspaceBusy } from './workspace-lock';
import { eventPrinter, watchEvents } from './watch';
import { ensureWorkerForQueue, WorkerStartError } from './worker-start';
import { NoWorkspaceHost } from './workspace-host';
import { ANSWER_HINTS, answerCommand, oneLine, pendingQuestions, renderDecisions, renderStatus } from './render';
import {
  AnswerRejected,
  answerConsultation,
  answerQuestion,
  cancelRun,
  getDecisions,
  getStatus,
  listRuns,
  AlreadyEnded,
  NotFound,
  NoWorker,
  pauseRun,
  resumeRun,
  RunEnded,
  runOptionsFromConfig,
  startRun,
  workerProblem,
  workflowIdOf,
} from './runs';
import type { PauseAck, Question, RunStatus } from '../workflows/messages';
import { MAX_PAUSE_REASON_CHARS } from '../domain/run/state';

/**
 * Ctrl-C while watching stops the watching, not the run: say so, and how to reattach or cancel
 * (exit 130, the shell's code for an interrupt).
 */
async function whileWatching<T>(runId: string, say: (s: string) => void, watch: () => Promise<T>): Promise<T> {
  const onInterrupt = () => {
    say(`\nStopped watching; run ${runId} goes on. Reattach: replanner watch ${runId} · cancel it: replanner cancel ${runId}`);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    return await watch();
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
}

export const EXIT = { OK: 0, RUN_NOT_DONE: 1, USAGE: 2, UNAVAILABLE: 3 } as const;

const HELP = `replanner — a durable, self-replanning LLM agent orchestrator on Temporal

Usage:
  replanner run "<instruction>" --workspace DIR [--config FILE] [--budget-tokens N] [--wait [--ask]] [--json]
                                                       start a run (prints its id); --budget-tokens:
                                                       pause with a question (raise or stop) when the
                                                       run's LLM calls used N tokens (config budget.maxTokens)
  replanner run ... --github owner/repo#N | --gitlab group/project!N (or group/project#N for an issue)
                                                       post the plan checklist (edited in place) and
                                                       the replan notifications to that issue / PR / MR
  replanner run --instruction-file FILE|- --workspace DIR ...
                                                       the same with a long instruction from a file
                                                       or stdin (stored beside the run)
  replanner status <runId> [--json]                    phase, tasks, replans, questions, usage
  replanner watch <runId> [--ask] [--verbose] [--json]
                                                       every event of the run until it ends, once and
                                                       in order: phases, task transitions (with how
                                                       long each took), replan decisions naming their
                                                       task, questions, consultations, notifications,
                                                       pauses; the worker's tool calls while a task
                                                       runs; a line with the elapsed time when a step
                                                       runs long; then the final status. --json: one
                                                       JSON object per line ({seq, time, kind, ...};
                                                       worker steps: kind worker_step; last: kind final)
  replanner answer <runId> <questionId> "<text>" [--json]
                                                       answer a question of the run (clarification,
                                                       confirmation: yes|no, escalation, budget:
                                                       "raise <tokens>" | "raise $<usd>" | stop)
  replanner decisions <runId> [--json]                 the replan decision log, counters, questions
  replanner diff <runId> [taskId] [--json]             the files each task changed (+added −removed lines;
                                                       a git diff where the workspace is a repository)
  replanner list [--json] [--limit N]                  recent runs
  replanner cancel <runId> [--json]                    cancel a run and its tasks
  replanner pause <runId> ["reason"] [--json]          pause a run at its next safe point: no new
                                                       phase, task, worker step or LLM call starts;
                                                       calls in flight finish and are kept
  replanner resume <runId> [--json]                    resume a paused run where it stopped (also
                                                       after an LLM pause: retries the LLM at once)
  replanner consult <runId> <taskId> <choice> ["text"] [--json]
                                                       answer a task's Duck Pacemaker consultation
  replanner worker [--no-sandbox] [--sandbox-network]  run a worker in the foreground
  replanner worker status [--json]                     the workers \`run\` started: queue, endpoint, model,
                                                       pid, alive, started, log
  replanner worker stop <queue>|--all [--json]         stop them gracefully (SIGTERM: tasks in flight end)
  replanner doctor [--json]                            check that a run from this shell can succeed: the
                                                       Temporal server, the worker, the LLM endpoint,
                                                       the model, structured output and tool calls,
                                                       each ✓ or ✗ with what to fix (exit 0: all good,
                                                       1: something to fix)

Options:
  --workspace, -w DIR  the directory the worker may change (run)
  --config FILE        the YAML config (replanning, task_replanning, execution, refinement,
                       pacemaker); read and checked before anything starts (run)
  --github owner/repo#N
                       the GitHub issue or pull request to notify (run; config notifications.github;
                       the worker needs GITHUB_TOKEN)
  --gitlab group/project!N | group/project#N
                       the GitLab merge request (!) or issue (#) to notify (run; config
                       notifications.gitlab; the worker needs GITLAB_TOKEN)
  --wait               wait for the run to end and print its final status (run)
  --ask                ask pending questions on the terminal and send the answers (watch, run --wait);
                       the default when stdin is a terminal and --json is not given
  --json               machine-readable output (every command)
  --verbose, -v        also decisions that change nothing ("no replan") and notification deliveries (watch, run --wait)
  --id ID              the run id to use instead of a random one (run)
  --instruction-file FILE
                       read the instruction from FILE (\`-\`: stdin), for instructions over the inline
                       limit; stored in <workspace>/.replanner/runs/<runId>/instruction.md (run)
  --limit N            how many runs to list (list, default 20)
  --no-sandbox         run the worker's commands unconfined, with no bubblewrap sandbox (worker;
                       logged loudly; REPLANNER_SANDBOX=off). A run cannot ask for this.
  --sandbox-network    let the worker's commands use the network (worker; REPLANNER_SANDBOX_NETWORK=1;
                       default: none). A run's config may only narrow it.
  --all                every worker \`run\` started (worker stop)

Questions (shown by \`status\` and \`watch\`): the run asks when the LLM needs a clarification, when a
low-confidence replan needs your confirmation (answer yes or no), or when a wanted replan cannot run
(answer with an instruction). Without an answer the run may go on with the stated assumptions after
the question's timeout. A rejected answer (unknown question, empty, no longer pending, a confirmation
not answered yes/no) exits 2.

Consultations (shown by \`status\` with their choices): each of the four situations offers its own four
choices (seed 002); answer with the number 1-4 or the key \`status\` shows. Choices that give guidance
or name what to consult need the text, which goes into the task's next worker request. A rejected
answer (nothing pending, a choice not offered, no text where needed) exits 2.

Environment:
  TEMPORAL_ADDRESS (localhost:7233)  TEMPORAL_NAMESPACE (default)
  OPENAI_API_KEY  OPENAI_BASE_URL  REPLANNER_MODEL   the LLM (any OpenAI-compatible server)
  REPLANNER_TASK_QUEUE        the task queue of runs and workers; default: replanner-<hash of
                              OPENAI_BASE_URL + REPLANNER_MODEL>, so each endpoint and model has its own
  REPLANNER_HOST  REPLANNER_WORKSPACE_ROOTS   a worker's host name (the machine's) and the workspaces
                              it owns (':'-separated directories; default /, every one); a run's
                              workspace work goes to its owner's worker (see \`worker --help\`)
  REPLANNER_WORKER_IDLE_EXIT  how long a worker \`run\` started waits without work before it exits
                              (15m; 90s, 1h, off), and only while no run on its queue is open (a run's
                              timer, e.g. a question's auto-assume, needs a worker when it fires).
                              A worker started by hand exits only when this is set.
  REPLANNER_MAX_CONCURRENT_COMMANDS  sandboxed commands one worker runs at once (default: the CPU
                              count); the rest wait for a slot. REPLANNER_MAX_CONCURRENT_ACTIVITIES
                              (128) bounds all activities, LLM calls included.
  REPLANNER_CONFIG            the config file when --config is not given
  REPLANNING_ENABLED          true|false|1|0 → replanning.enabled
  REPLANNING_MIN_CONFIDENCE   0..1 → replanning.llm_decision.min_confidence_threshold
  MAX_TOTAL_REPLANS           whole number → replanning.global.max_total_replans
  (the three overrides win over the config file)
  GITHUB_TOKEN  GITHUB_API_URL (https://api.github.com)   the worker's, for --github (never sent in a run)
  GITLAB_TOKEN  GITLAB_URL (https://gitlab.com)           the worker's, for --gitlab (never sent in a run)
  REPLANNER_NOTIFY_ALLOW      the worker's: the only targets runs may post to (owner/repo, group/*, …)

When nothing answers at TEMPORAL_ADDRESS, \`run\` starts the persisted local dev server
(.replanner/temporal.db, Web UI on :8233), and says so. When no live worker polls the run's task
queue, \`run\` starts one with your shell's LLM settings (log .replanner/workers/<queue>.log); when
your OPENAI_API_KEY differs from the one it started with, \`run\` and \`resume\` restart it. resume,
answer, consult, pause, watch and cancel start one for a running run whose worker is gone.

A run Temporal itself ended (\`temporal workflow terminate\`, an execution timeout) shows as TERMINATED or
TIMED_OUT with the reason. status, decisions and watch of a running run whose task queue no worker
polls name that queue and how to start its worker (\`replanner worker\` with the environment that
routes to it) and exit 3 when the run has recorded nothing to show yet.

watch exits 0 when the run ended DONE, 1 when it ended otherwise, 3 when it cannot be read (no such
run, no worker and nothing recorded), 130 on Ctrl-C (the run goes on). When watch fell behind the
run's event log (it keeps the newest 300 events) it says how many events it missed.

Exit codes: 0 ok · 1 the run ended BLOCKED, FAILED, CANCELLED, STOPPED (by its budget), TERMINATED or
TIMED_OUT (pause, resume, answer, cancel: the run already ended; doctor: something to fix) · 2 usage error, invalid config or
rejected answer · 3 Temporal unreachable / run not found / no worker for the run and none can be started
from this shell (status, decisions, watch: no worker polls the run's task queue and it recorded no state) /
run: no worker owns the workspace (a worker's REPLANNER_WORKSPACE_ROOTS must hold it)
`;

class UsageError extends Error {}

/** O1: what `pause` / `resume` say. */
export function pauseLine(runId: string, cmd: 'pause' | 'resume', ack: PauseAck): string {
  // O3: a budget pause ends only by answering its question.
  if (cmd === 'resume' && ack.status === 'PAUSED' && ack.pause?.kind === 'budget') {
    return `Run ${runId} is still paused by its budget (${ack.pause.reason ?? ''}); resume does not raise it: replanner answer ${runId} <questionId> "raise <tokens>" (or stop).`;
  }
  if (cmd === 'resume') return ack.changed ? `Run ${runId} resumed.` : `Run ${runId} is not paused (${ack.status}); nothing to resume.`;
  const why = ack.pause?.reason ? ` (${ack.pause.reason})` : '';
  return ack.changed
    ? `Run ${runId} paused${why}: calls in flight finish, nothing new starts. Resume: replanner resume ${runId}`
    : `Run ${runId} was already paused since ${ack.pause?.since ?? '?'}${why}.`;
}

/** A validator's rejection of an answer is the user's input error (exit 2), with its reason. */
async function rejectedIsUsage<T>(answering: Promise<T>): Promise<T> {
  try {
    return await answering;
  } catch (e) {
    if (e instanceof AnswerRejected) throw new UsageError(`the answer was rejected: ${e.message}`);
    throw e;
  }
}

export interface Output {
  write(s: string): unknown;
}

/** Where `watch` / `run --wait` read answers to questions from (stdin by default). */
export type Input = NodeJS.ReadableStream & { isTTY?: boolean };

export async function main(
  argv: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
  input: Input = process.stdin,
): Promise<number> {
  const print = (s: string) => out.write(`${s}\n`);
  const say = (s: string) => err.write(`${s}\n`);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string', short: 'w' },
        wait: { type: 'boolean' },
        json: { type: 'boolean' },
        limit: { type: 'string' },
        id: { type: 'string' },
        'instruction-file': { type: 'string' },
        config: { type: 'string' },
        'budget-tokens': { type: 'string' },
        github: { type: 'string' },
        gitlab: { type: 'string' },
        ask: { type: 'boolean' },
        verbose: { type: 'boolean', short: 'v' },
        'no-sandbox': { type: 'boolean' },
        'sandbox-network': { type: 'boolean' },
        all: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    say(`replanner: ${(e as Error).message}\n\n${HELP}`);
    return EXIT.USAGE;
  }
  const {
    values: o,
    positionals: [cmd, ...rest],
  } = parsed;
  if (o.help || cmd === 'help') {
    print(cmd === 'worker' ? WORKER_HELP : cmd === 'doctor' ? DOCTOR_HELP : HELP);
    return EXIT.OK;
  }
  if (!cmd) {
    say(HELP);
    return EXIT.USAGE;
  }
  const json = (v: unknown) => print(JSON.stringify(v, null, 2));
  // Questions are asked on --ask, or on a terminal unless the output is JSON. In JSON mode the
  // prompts go to stderr so stdout stays parseable.
  const asking = Boolean(o.ask) || (!o.json && Boolean(input.isTTY));
  let asker: QuestionAsker | undefined;
  const startAsker = (client: Client, runId: string) => (asker = new QuestionAsker(client, runId, input, o.json ? err : out));
  let backend: Backend | undefined;
  /** V2: follows the run's event log until it ends, feeding each status to the question asker. */
  const follow = (client: Client, runId: string, write: (s: string) => void, asJson = false): Promise<RunStatus> => {
    const p = eventPrinter(write, { runId, verbose: Boolean(o.verbose), json: asJson });
    return watchEvents(
      client,
      runId,
      {
        ...p,
        onStatus: (s) => {
          p.onStatus(s);
          asker?.offer(s);
        },
      },
      { onUnavailable: (why) => p.fallBack(why) },
    );
  };
  try {
    switch (cmd) {
      case 'run': {
        // S3: a long instruction comes by file (`--instruction-file FILE`, or `-` / a bare `-` for stdin).
        const fromFile = o['instruction-file'] ?? (rest[0] === '-' ? '-' : undefined);
        if (fromFile !== undefined && o['instruction-file'] !== undefined && rest[0] !== undefined) {
          throw new UsageError('give the instruction either as text or with --instruction-file, not both');
        }
        const inline = fromFile === undefined ? rest[0] : undefined;
        if (fromFile === undefined && inline === undefined) {
          throw new UsageError('run needs an instruction: replanner run "<instruction>" --workspace DIR (or --instruction-file FILE|-)');
        }
        const problem = (inline !== undefined ? instructionProblem(inline) : undefined) ?? (o.id !== undefined ? runIdProblem(o.id) : undefined);
        if (problem) throw new UsageError(problem);
        if (!o.workspace) throw new UsageError('run needs --workspace DIR (the directory the worker may change)');
        if (!fs.existsSync(o.workspace) || !fs.statSync(o.workspace).isDirectory()) {
          throw new UsageError(`--workspace ${o.workspace} is not a directory`);
        }
        let text = inline;
        if (fromFile !== undefined) {
          const r = await readInstructionSource(fromFile, input);
          if (r.text === undefined) throw new UsageError(r.problem ?? 'no instruction');
          text = r.text;
        }
        // X12: the config is read and checked before anything starts (server, worker, run).
        const budgetProblem =
          o['budget-tokens'] !== undefined ? countProblem('--budget-tokens', o['budget-tokens'], 1, MAX_BUDGET_TOKENS) : undefined;
        if (budgetProblem) throw new UsageError(budgetProblem);
        const notifyFlag = notificationsOfFlags(o.github, o.gitlab);
        const loaded = loadRunConfig(o.config);
        // O3: --budget-tokens overrides the config's budget.maxTokens; X10: --github / --gitlab the notifications.
        const config = parseConfig({
          ...loaded,
          ...(o['budget-tokens'] !== undefined ? { budget: { ...loaded.budget, maxTokens: Number(o['budget-tokens']) } } : {}),
          ...(notifyFlag ? { notifications: withGitlabUrl(notifyFlag, loaded.notifications.gitlab?.url) } : {}),
        });
        const options = optionsOf(config, o.config ?? process.env.REPLANNER_CONFIG);
        backend = await ensureBackend(say);
        // S3: one running run per workspace (two would edit the same files).
        const other = await runningRunOn(backend.client, o.workspace);
        if (other !== undefined) throw new UsageError(busyMessage(o.workspace, other));
        const runId = o.id ?? newRunId();
        const given = fromFile !== undefined ? await storeInstruction(o.workspace, runId, text ?? '') : { instruction: text ?? '' };
        // The run holds its workspace (a lock workflow per workspace): of two starts at once, Temporal refuses one.
        const { handle } = await startRun(backend.client, {
          ...given,
          workspace: o.workspace,
          taskQueue: backend.taskQueue,
          runId,
          config,
          options,
          holdWorkspace: true,
        }).catch((e: unknown) => {
          if (e instanceof WorkflowExecutionAlreadyStartedError || e instanceof RunIdTaken) {
            throw new UsageError(`a run with id "${o.id}" is already running; choose another --id or leave it out for a fresh one`);
          }
          if (e instanceof WorkspaceBusy) throw new UsageError(busyMessage(o.workspace!, e.runId));
          throw e;
        });
        const url = webUiUrl(backend.namespace, handle.workflowId);
        if (!o.wait) {
          if (o.json) json({ runId, workflowId: handle.workflowId, webUi: url });
          else print(`Started run ${runId} (workflow ${handle.workflowId})\nWeb UI: ${url}\nWatch it: replanner watch ${runId}`);
          return EXIT.OK;
        }
        if (!o.json) print(`Started run ${runId} — Web UI: ${url}`);
        // stdin gave the instruction: it has no answers to give.
        if (asking && fromFile !== '-') startAsker(backend.client, runId);
        // V2: the run's events as they happen (with --json only the final status is printed).
        const final = await whileWatching(runId, say, () => follow(backend!.client, runId, o.json ? () => undefined : print));
        await asker?.close();
        if (o.json) json(final);
        else print(renderStatus(final));
        return final.status === 'DONE' ? EXIT.OK : EXIT.RUN_NOT_DONE;
      }
      case 'status': {
        const runId = needRunId(rest);
        backend = await connect();
        const s = await getStatus(backend.client, runId);
        // V3: the files each task changed, where this shell can read the workspace's transcripts.
        const files = filesByTask(s.workspace, runId);
        if (o.json) json(Object.keys(files).length ? { ...s, files } : s);
        else print(renderStatus(s, files));
        // The memo answered for a run nobody serves: say so, and how to start its worker.
        if (s.status === 'RUNNING' || s.status === 'PAUSED') {
          const problem = await workerProblem(backend.client, runId);
          if (problem) say(`replanner: ${problem}`);
        }
        return EXIT.OK;
      }
      case 'watch': {
        const runId = needRunId(rest);
        backend = await connect();
        await ensureRunWorker(backend, runId, say);
        if (asking) startAsker(backend.client, runId);
        // V2: every event of the run once, in order (--json: one JSON object per line), then the final status.
        const final = await whileWatching(runId, say, () => follow(backend!.client, runId, print, o.json));
        await asker?.close();
        if (o.json) print(JSON.stringify({ kind: 'final', time: new Date().toISOString(), status: final }));
        else print(renderStatus(final));
        return final.status === 'DONE' ? EXIT.OK : EXIT.RUN_NOT_DONE;
      }
      case 'list': {
        const limitProblem = o.limit !== undefined ? countProblem('--limit', o.limit, 1, 1000) : undefined;
        if (limitProblem) throw new UsageError(limitProblem);
        backend = await connect();
        const runs = await listRuns(backend.client, Number(o.limit ?? 20));
        if (o.json) json(runs);
        else if (!runs.length) print('No runs yet. Start one: replanner run "<instruction>" --workspace DIR');
        else for (const r of runs) print(`${r.runId}\t${r.status ?? r.temporalStatus}\t${r.phase ?? ''}\t${r.startTime}\t${r.instruction ?? ''}`);
        return EXIT.OK;
      }
      case 'cancel': {
        const runId = needRunId(rest);
        backend = await connect();
        await ensureRunWorker(backend, runId, say);
        try {
          await cancelRun(backend.client, runId);
        } catch (e) {
          if (!(e instanceof AlreadyEnded)) throw e;
          if (o.json) json({ runId, cancelRequested: false, reason: e.message });
          else say(`replanner: ${e.message}`);
          return EXIT.RUN_NOT_DONE;
        }
        if (o.json) json({ runId, cancelRequested: true });
        else print(`Cancellation requested for run ${runId}; its running tasks are being stopped.`);
        return EXIT.OK;
      }
      case 'pause':
      case 'resume': {
        const runId = needRunId(rest);
        // Unquoted reason words are joined, so `pause r waiting for review` works too.
        const reason = rest.slice(1).join(' ').trim();
        if (cmd === 'resume' && reason) throw new UsageError('resume takes only a run id: replanner resume <runId>');
        if (reason.length > MAX_PAUSE_REASON_CHARS) throw new UsageError(`the reason is longer than ${MAX_PAUSE_REASON_CHARS} characters`);
        backend = await connect();
        // resume (after a 401, for instance) restarts the auto-started worker when the key differs.
        await ensureRunWorker(backend, runId, say, { restart: cmd === 'resume', required: true });
        try {
          const ack = cmd === 'pause' ? await pauseRun(backend.client, runId, reason || undefined) : await resumeRun(backend.client, runId);
          if (o.json) json(ack);
          else print(pauseLine(runId, cmd, ack));
          return EXIT.OK;
        } catch (e) {
          if (!(e instanceof RunEnded)) throw e;
          if (o.json) json({ runId, error: 'run already ended', status: e.status });
          say(`replanner: ${e.message}; nothing to ${cmd}`);
          return EXIT.RUN_NOT_DONE;
        }
      }
      case 'consult': {
        const [runId, taskId, choice] = rest;
        // Unquoted guidance words are joined, so `consult r t guidance use lib/x.ts` works too.
        const guidance = rest.slice(3).join(' ') || undefined;
        if (!runId || !taskId || choice === undefined) {
          throw new UsageError('consult needs a run id, a task id and a choice: replanner consult <runId> <taskId> <choice> ["guidance"]');
        }
        backend = await connect();
        await ensureRunWorker(backend, runId, say, { required: true });
        const ack = await rejectedIsUsage(answerConsultation(backend.client, runId, taskId, { choice, guidance }));
        if (o.json) json(ack);
        else print(`Answered consultation ${ack.consultationId} of task ${ack.taskId}: ${ack.choice} (${ack.effect})`);
        return EXIT.OK;
      }
      case 'answer': {
        const [runId, questionId] = rest;
        // Unquoted answer words are joined, so `answer r q1 use JSON` works too.
        const text = rest.slice(2).join(' ').trim();
        if (!runId || !questionId || !text) {
          throw new UsageError('answer needs a run id, a question id and the answer: replanner answer <runId> <questionId> "<text>"');
        }
        backend = await connect();
        await ensureRunWorker(backend, runId, say, { required: true });
        let ack;
        try {
          ack = await rejectedIsUsage(answerQuestion(backend.client, runId, questionId, text));
        } catch (e) {
          if (!(e instanceof AlreadyEnded)) throw e;
          if (o.json) json({ runId, answered: false, reason: e.message });
          else say(`replanner: ${e.message}`);
          return EXIT.RUN_NOT_DONE;
        }
        if (o.json) json(ack);
        else print(answeredLine(ack));
        return EXIT.OK;
      }
      case 'diff': {
        // V3: the files each task changed (the worker's transcripts; a git diff where the workspace is a repository).
        const runId = needRunId(rest);
        const taskId = rest[1];
        if (rest.length > 2) throw new UsageError(`diff takes a run id and at most one task id (got "${rest.join(' ')}")`);
        backend = await connect();
        const s = await getStatus(backend.client, runId);
        const diffs = runDiffs(s.workspace, runId, taskId);
        if (taskId !== undefined && diffs.length === 0) {
          const known = runDiffs(s.workspace, runId).map((d) => d.taskId);
          throw new UsageError(`run ${runId} has no task "${taskId}" that worked${known.length ? ` (tasks: ${known.join(', ')})` : ''}`);
        }
        if (o.json) json({ runId, workspace: s.workspace, tasks: diffs });
        else print(renderDiffs(runId, diffs));
        return EXIT.OK;
      }
      case 'decisions': {
        const runId = needRunId(rest);
        backend = await connect();
        const view = await getDecisions(backend.client, runId);
        if (o.json) json(view);
        else print(renderDecisions(runId, view));
        return EXIT.OK;
      }
      case 'worker': {
        if (rest.length) return await workerCommand(rest, { json: Boolean(o.json), all: Boolean(o.all) }, print, say);
        const { runWorkerProcess, TemporalUnreachable } = await import('../worker-main');
        // S1: the sandbox switches are the worker's own; they travel in its environment.
        if (o['no-sandbox']) process.env.REPLANNER_SANDBOX = 'off';
        if (o['sandbox-network']) process.env.REPLANNER_SANDBOX_NETWORK = '1';
        try {
          await runWorkerProcess();
        } catch (e) {
          if (!(e instanceof TemporalUnreachable)) throw e;
          say(`replanner: ${e.message}`);
          return EXIT.UNAVAILABLE;
        }
        return EXIT.OK;
      }
      case 'doctor': {
        if (rest.length) throw new UsageError(`doctor takes no arguments (got "${rest.join(' ')}")`);
        return await doctorCommand({ json: Boolean(o.json) }, print);
      }
      default:
        throw new UsageError(`unknown command "${cmd}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      say(`replanner: ${e.message}\n(see replanner --help)`);
      return EXIT.USAGE;
    }
    if (e instanceof ConfigError) {
      say(`replanner: ${e.message}`);
      return EXIT.USAGE;
    }
    if (
      e instanceof BackendError ||
      e instanceof NotFound ||
      e instanceof WorkerStartError ||
      e instanceof NoWorker ||
      e instanceof NoWorkspaceHost
    ) {
      say(`replanner: ${e.message}`);
      return EXIT.UNAVAILABLE;
    }
    say(`replanner: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT.RUN_NOT_DONE;
  } finally {
    await asker?.close();
    await backend?.close();
  }
}

/** S3: the refusal of a second run on a workspace, naming the running one. */
function busyMessage(workspace: string, runId: string): string {
  return `the workspace ${workspace} already has a running run: ${runId} (watch it: replanner watch ${runId}; or cancel it: replanner cancel ${runId})`;
}

/** X12: `--config FILE`, else env REPLANNER_CONFIG, else defaults; then the env overrides. Throws ConfigError. */
function loadRunConfig(file: string | undefined): ReplannerConfig {
  if (file !== undefined && !file.trim()) throw new ConfigError('--config needs a file name');
  return loadConfig({ path: file, env: process.env });
}

/** X10: `--github owner/repo#12` / `--gitlab group/project!45` as the config's notifications section (they replace the file's). */
function notificationsOfFlags(github: string | undefined, gitlab: string | undefined): NotificationsConfig | undefined {
  if (github !== undefined && gitlab !== undefined) throw new UsageError('give --github or --gitlab, not both');
  if (github !== undefined) {
    const r = parseGithubFlag(github);
    if (!r.ok) throw new UsageError(r.reason);
    return { github: r.value };
  }
  if (gitlab !== undefined) {
    const r = parseGitlabFlag(gitlab);
    if (!r.ok) throw new UsageError(r.reason);
    return { gitlab: r.value };
  }
  return undefined;
}

/** The config file's GitLab url stays with a --gitlab flag (the flag names only the project and number). */
function withGitlabUrl(n: NotificationsConfig, url: string | undefined): NotificationsConfig {
  return n.gitlab && url ? { gitlab: { ...n.gitlab, url } } : n;
}

/** runOptionsFromConfig, with the file named in its errors like loadConfig does. */
function optionsOf(config: ReplannerConfig, file: string | undefined) {
  try {
    return runOptionsFromConfig(config);
  } catch (e) {
    if (e instanceof ConfigError && file?.trim()) e.message += ` [from file ${file.trim()}]`;
    throw e;
  }
}

export function answeredLine(ack: { questionId: string; stillPending: string[] }): string {
  return `answered ${ack.questionId}${ack.stillPending.length ? ` (still waiting: ${ack.stillPending.join(', ')})` : ''}`;
}

/** Issue 12: a running run's task queue needs a live worker for the command to take effect. */
async function ensureRunWorker(
  backend: Backend,
  runId: string,
  say: (s: string) => void,
  o: { restart?: boolean; required?: boolean } = {},
): Promise<void> {
  const desc = await backend.client.workflow
    .getHandle(workflowIdOf(runId))
    .describe()
    .catch(() => undefined);
  // An unknown or finished run needs no worker: the command itself says so.
  if (desc?.status.name !== 'RUNNING') return;
  await ensureWorkerForQueue(backend.connection, backend, desc.taskQueue, say, process.env, o.restart, o.required);
}

function needRunId(rest: string[]): string {
  if (!rest[0]) throw new UsageError('this command needs a run id');
  return rest[0];
}

/** Lines of an input stream, one at a time; `undefined` at end of input, `null` when a read was cancelled. */
export class LineReader {
  private readonly buffered: string[] = [];
  private readonly waiters: ((line: string | undefined | null) => void)[] = [];
  private ended = false;
  private readonly rl: readline.Interface;

  constructor(input: NodeJS.ReadableStream) {
    this.rl = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
    this.rl.on('line', (line) => {
      const w = this.waiters.shift();
      if (w) w(line);
      else this.buffered.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      for (const w of this.waiters.splice(0)) w(undefined);
    });
  }

  next(): { line: Promise<string | undefined | null>; cancel: () => void } {
    if (this.buffered.length) return { line: Promise.resolve(this.buffered.shift()!), cancel: () => {} };
    if (this.ended) return { line: Promise.resolve(undefined), cancel: () => {} };
    let waiter!: (line: string | undefined | null) => void;
    const line = new Promise<string | undefined | null>((resolve) => (waiter = resolve));
    this.waiters.push(waiter);
    return {
      line,
      cancel: () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        waiter(null);
      },
    };
  }

  close(): void {
    this.rl.close();
  }
}

/**
 * X14 on the terminal: asks each pending question once, reads one line per answer and sends it with
 * answerClarification. A rejected answer is explained and asked again while the question is still
 * pending; a question that stops waiting meanwhile (answered elsewhere, timed out) is dropped; end of
 * input stops asking (watching goes on).
 */
export class QuestionAsker {
  private readonly asked = new Set<string>();
  private readonly queue: Question[] = [];
  private readonly lines: LineReader;
  private running: Promise<void> | undefined;
  private stopped = false;
  private eof = false;
  private current: { id: string; cancel: () => void } | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly runId: string,
    input: NodeJS.ReadableStream,
    private readonly out: Output,
  ) {
    this.lines = new LineReader(input);
  }

  /** Feeds the newest status: queues new questions, withdraws the prompt of one no longer pending. */
  offer(s: RunStatus): void {
    if (this.stopped) return;
    const pending = pendingQuestions(s);
    if (this.current && !pending.some((q) => q.id === this.current!.id)) this.current.cancel();
    for (const q of pending) {
      if (this.asked.has(q.id)) continue;
      this.asked.add(q.id);
      this.queue.push(q);
    }
    if (!this.running && this.queue.length && !this.eof) {
      this.running = this.drain().finally(() => (this.running = undefined));
    }
  }

  /** Stops asking; waits for an answer being sent to finish. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopped = true;
      this.current?.cancel();
      this.lines.close();
      await this.running;
    })();
    return this.closing;
  }

  private print(line: string): void {
    this.out.write(`${line}\n`);
  }

  private async drain(): Promise<void> {
    while (!this.stopped && !this.eof) {
      const q = this.queue.shift();
      if (!q) return;
      await this.ask(q);
    }
  }

  private async ask(q: Question): Promise<void> {
    const hint = (ANSWER_HINTS[q.kind] ?? ANSWER_HINTS.clarification).short;
    this.print(`? ${q.id} (${q.kind}, ${q.phase}): ${oneLine(q.text, 400)}`);
    if (q.assumptions.length) this.print(`  without an answer the run assumes: ${oneLine(q.assumptions.join('; '), 300)}`);
    for (;;) {
      if (this.stopped) return;
      this.out.write(`  ${q.id} — ${hint} (end of input stops asking)> `);
      const read = this.lines.next();
      this.current = { id: q.id, cancel: read.cancel };
      const line = await read.line;
      this.current = undefined;
      if (line === null) {
        if (!this.stopped) this.print(`\n  ${q.id} is no longer waiting for an answer`);
        return;
      }
      if (line === undefined) {
        this.eof = true;
        if (!this.stopped) {
          this.print(`\n  input ended: not asking any more; answer with ${answerCommand(this.runId, q)}`);
        }
        return;
      }
      const answer = line.trim();
      if (!answer) {
        this.print(`  (empty answer: type ${q.kind === 'confirmation' ? 'yes or no' : 'your answer'}, or end input to stop asking)`);
        continue;
      }
      try {
        const ack = await answerQuestion(this.client, this.runId, q.id, answer);
        this.print(`  ${answeredLine(ack)}`);
        return;
      } catch (e) {
        if (!(e instanceof AnswerRejected)) {
          this.print(`  could not send the answer: ${(e as Error).message}; answer with ${answerCommand(this.runId, q)}`);
          return;
        }
        this.print(`  rejected: ${e.message}`);
        const s = await getStatus(this.client, this.runId).catch(() => undefined);
        if (s && !pendingQuestions(s).some((x) => x.id === q.id)) {
          this.print(`  ${q.id} is no longer waiting for an answer`);
          return;
        }
      }
    }
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
