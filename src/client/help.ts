// `replanner --help`: the whole CLI on one page (each command's own help is built from its options),
// with the commands in the form that works in the README's shell (`npx replanner …`) and the ports
// this environment's settings give (V7).
import { devServerPorts, replannerCommand, serverCommand, type DevServerSettings } from '../domain/printed-commands';

/** The commands, in the form the README's shell runs them. */
const USAGE = `replanner — a durable, self-replanning LLM agent orchestrator on Temporal

Usage:
  npx replanner run "<instruction>" --workspace DIR [--config FILE] [--budget-tokens N] [--wait [--ask]] [--json]
                                                           start a run (prints its id); --budget-tokens:
                                                           pause with a question (raise or stop) when the
                                                           run's LLM calls used N tokens (config budget.maxTokens)
  npx replanner run ... --github owner/repo#N | --gitlab group/project!N (or group/project#N for an issue)
                                                           post the plan checklist (edited in place) and
                                                           a comment on each plan change and question to
                                                           that issue / PR / MR
  npx replanner run --instruction-file FILE|- --workspace DIR ...
                                                           the same with a long instruction from a file
                                                           or stdin (stored beside the run)
  npx replanner status <runId> [--json]                    phase, tasks, plan changes, questions, usage
  npx replanner watch <runId> [--ask] [--verbose] [--json]
                                                           every event of the run until it ends, once and
                                                           in order: phases, task transitions (with how
                                                           long each took), decisions about the plan naming
                                                           their task, questions, notifications,
                                                           pauses; the worker's tool calls while a task
                                                           runs; a line with the elapsed time when a step
                                                           runs long; then the final status. --json: one
                                                           JSON object per line ({seq, time, kind, ...};
                                                           worker steps: kind worker_step; last: kind final)
  npx replanner answer <runId> <questionId> "<text>" [--json]
                                                           answer a question of the run (clarification,
                                                           confirmation: yes|no, escalation, budget:
                                                           "raise <tokens>" | "raise $<usd>" | stop)
  npx replanner decisions <runId> [--json]                 every decision about the plan, the plan changes
                                                           made, every question
  npx replanner diff <runId> [taskId] [--json]             the files each task changed (+added −removed lines;
                                                           a git diff where the workspace is a repository)
  npx replanner list [--json] [--limit N]                  recent runs
  npx replanner cancel <runId> [--json]                    cancel a run and its tasks
  npx replanner pause <runId> ["reason"] [--json]          pause a run at its next safe point: no new
                                                           phase, task, worker step or LLM call starts;
                                                           calls in flight finish and are kept
  npx replanner resume <runId> [--json]                    resume a paused run where it stopped (also
                                                           after an LLM pause: retries the LLM at once)
  npx replanner consult <runId> <taskId> <choice> ["text"] [--json]
                                                           answer a task that asks how to go on
  npx replanner worker [--no-sandbox] [--sandbox-network]  run a worker in the foreground
  npx replanner worker status [--json]                     the workers \`run\` started: queue, endpoint, model,
                                                           pid, alive, started, log
  npx replanner worker stop <queue>|--all [--json]         stop them gracefully (SIGTERM: tasks in flight end)
  npx replanner scripted-model [--port N] [--scenario ask|plain]
                                                           serve a scripted stand-in for an LLM (not a real
                                                           model), to try run, watch, answer, pause and diff
                                                           with no API key; prints what to export
  npx replanner temporal <temporal command ...>            the Temporal CLI Replanner fetched, with the same
                                                           server, namespace and credentials, e.g.
                                                           npx replanner temporal workflow list
  npx replanner doctor [--json]                            check that a run from this shell can succeed: the
                                                           Temporal server, the worker, the LLM endpoint,
                                                           the model, structured output and tool calls,
                                                           each ✓ or ✗ with what to fix (exit 0: all good,
                                                           1: something to fix)
`;

const OPTIONS = `Options:
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
  --json               machine-readable output (every command but worker, scripted-model and temporal;
                       an error is then also a JSON object on stdout)
  --verbose, -v        also decisions that keep the plan ("plan kept") and notification deliveries (watch, run --wait)
  --id ID              the run id to use instead of a random one; an id another run had is refused (run)
  --instruction-file FILE
                       read the instruction from FILE (\`-\`: stdin), for instructions over the inline
                       limit; stored in <workspace>/.replanner/runs/<runId>/instruction.md (run)
  --limit N            how many runs to list (list, default 20)
  --no-sandbox         run the worker's commands unconfined, with no bubblewrap sandbox (worker;
                       logged loudly; REPLANNER_SANDBOX=off). A run cannot ask for this.
  --sandbox-network    let the worker's commands use the network (worker; REPLANNER_SANDBOX_NETWORK=1;
                       default: none). A run's config may only narrow it.
  --all                every worker \`run\` started (worker stop)
  --version, -V        this package's version, the Temporal SDK's and the Temporal CLI's (--json too)

Questions (shown by \`status\` and \`watch\`): the run asks when the model needs a clarification, when a
change of plan it is unsure of needs your confirmation (answer yes or no), or when a change it wants
cannot run (answer with an instruction). Without an answer the run may go on with the stated assumptions after
the question's timeout. A rejected answer (unknown question, empty, no longer pending, a confirmation
not answered yes/no) exits 2.

A task that asks how to go on (shown by \`status\` and \`watch\` with its numbered choices): when a task
is stuck it asks you, with four choices that fit the situation; answer with \`consult\` and
the number 1-4. Choices that give guidance or name what to look at need your text, which goes into
the task's next worker request. A rejected answer (nothing pending, a choice not offered, no text
where needed) exits 2.

`;

const EXITS = `watch exits 0 when the run ended DONE, 1 when it ended otherwise, 3 when it cannot be read (no such
run, no worker and nothing recorded), 130 on Ctrl-C (the run goes on). When watch fell behind the
run's event log (it keeps the newest 300 events) it says how many events it missed.

Exit codes: 0 ok · 1 the run ended BLOCKED, FAILED, CANCELLED, STOPPED (by its budget), TERMINATED or
TIMED_OUT (pause, resume, answer, cancel: the run already ended; doctor: something to fix) · 2 usage error, invalid config or
rejected answer · 3 Temporal unreachable / run not found / no worker for the run and none can be started
from this shell (status, decisions, watch: no worker polls the run's task queue and it recorded no state) /
run: no worker owns the workspace (a worker's REPLANNER_WORKSPACE_ROOTS must hold it)
`;

/** The help page for this environment: its TEMPORAL_ADDRESS and Web UI port. */
export function helpText(env: NodeJS.ProcessEnv = process.env): string {
  // The variable itself (a profile's address is what `doctor` shows): the help loads no Temporal code.
  const address = env.TEMPORAL_ADDRESS || 'localhost:7233';
  const server: DevServerSettings = { address, ...(env.TEMPORAL_UI_PORT ? { uiPort: env.TEMPORAL_UI_PORT } : {}) };
  const ports = devServerPorts(server);
  return `${USAGE}
Each command's arguments and options: ${replannerCommand('<command>', '--help')}

${OPTIONS}Environment:
  TEMPORAL_ADDRESS (localhost:7233; now ${address})  TEMPORAL_NAMESPACE (default)
  TEMPORAL_UI_PORT            the local dev server's Web UI port (default: TEMPORAL_ADDRESS's port
                              + 1000; now ${ports.ui}); TEMPORAL_UI_URL: another server's Web UI
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

When nothing answers at TEMPORAL_ADDRESS (${address}), \`run\` starts the persisted local dev server
(.replanner/temporal.db, on port ${ports.frontend}, Web UI http://localhost:${ports.ui}), and says so; to start it yourself,
in another shell: ${serverCommand(server)}. When no live worker polls the run's task
queue, \`run\` starts one with your shell's LLM settings (log .replanner/workers/<queue>.log); when
your OPENAI_API_KEY differs from the one it started with, \`run\` and \`resume\` restart it. resume,
answer, consult, pause, watch and cancel start one for a running run whose worker is gone.

A run Temporal itself ended (terminated with the Temporal CLI or the Web UI, or past an execution
timeout) shows as TERMINATED or TIMED_OUT with the reason. status, decisions and watch of a running
run whose task queue no worker polls name that queue and how to start its worker (the \`worker\`
command with the environment that routes to it) and exit 3 when the run has recorded nothing to
show yet.

${EXITS}`;
}
