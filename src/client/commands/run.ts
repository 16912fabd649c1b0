// `replanner run`: check the instruction, the workspace and the config before anything starts, then
// start the run holding its workspace (one running run per workspace), and with --wait follow it to
// its end.
import * as fs from 'node:fs';
import { Command } from 'commander';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { MAX_BUDGET_TOKENS } from '../../domain/budget';
import { ConfigError, parseConfig, parseGithubFlag, parseGitlabFlag, type NotificationsConfig, type ReplannerConfig } from '../../domain/config';
import { notifyTargetOf, targetLabel } from '../../domain/notifications';
import { countProblem, instructionProblem, runIdProblem } from '../../domain/run-input';
import { runWorkflowId } from '../../workflows/run';
import { STATUS_KEY } from '../../workflows/search-attributes';
import { webUiUrl } from '../backend';
import { ensureWorker } from '../worker-start';
import { loadConfig } from '../config-load';
import { follow, whileWatching } from '../follow';
import { renderStatus } from '../render';
import { checkModelAnswers, newRunId, readInstructionSource, runningRunOn, storeInstruction } from '../run-start-guards';
import { forgeFlagsOf, withGitSettings } from '../run-git';
import { runOptionsFromConfig, startRun } from '../runs';
import { RunIdTaken, WorkspaceBusy } from '../workspace-lock';
import { act, ensureRunWorker, EXIT, UsageError, type CliContext } from './context';
import { replannerCommand } from '../../domain/printed-commands';

interface RunOptions {
  workspace?: string;
  config?: string;
  budgetTokens?: string;
  github?: string;
  gitlab?: string;
  wait?: boolean;
  ask?: boolean;
  verbose?: boolean;
  id?: string;
  instructionFile?: string;
  json?: boolean;
  branch?: boolean;
  pullRequest?: boolean;
  base?: string;
  remote?: string;
}

export function runCommand(ctx: CliContext): Command {
  return new Command('run')
    .description('start a run (prints its id); --wait: follow it to its end')
    .usage('"<instruction>" --workspace DIR [options]')
    .argument('[instruction]', 'what to do (`-`: read it from stdin, like --instruction-file -)')
    .option('-w, --workspace <dir>', 'the directory the worker may change')
    .option('--instruction-file <file>', 'read the instruction from FILE (`-`: stdin), for instructions over the inline limit')
    .option('--config <file>', 'the YAML config, read and checked before anything starts (default: env REPLANNER_CONFIG)')
    .option('--budget-tokens <n>', "pause with a question (raise or stop) when the run's LLM calls used N tokens")
    .option('--github <owner/repo#N>', 'post the plan checklist and the replan notifications to that issue or pull request')
    .option('--gitlab <group/project!N>', 'the same on a GitLab merge request (!N) or issue (#N)')
    .option('--branch', 'commit each finished task on the branch replanner/<runId> of the workspace (a clean git checkout)')
    .option('--pull-request', 'also push that branch, open one pull or merge request, and follow its checks and reviews')
    .option('--base <branch>', 'with --branch: start from this branch (default: the one checked out)')
    .option('--remote <name>', 'with --pull-request: push to this remote (default: origin)')
    .option('--id <id>', 'the run id to use instead of a random one (an id another run had is refused)')
    .option('--wait', 'wait for the run to end and print its final status')
    .option('--ask', 'with --wait: ask pending questions on the terminal (the default on a terminal without --json)')
    .option('-v, --verbose', 'with --wait: also decisions that change nothing and notification deliveries')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      '\nExit codes: 0 started (--wait: ended DONE) · 1 ended otherwise · 2 usage error, invalid config, busy workspace, the model server refused the key or address · 3 no server, worker or model answers',
    )
    .action(act(ctx, (instruction: string | undefined, o: RunOptions) => run(ctx, instruction, o)));
}

async function run(ctx: CliContext, instructionArg: string | undefined, o: RunOptions): Promise<number> {
  // A long instruction comes by file (`--instruction-file FILE`, or `-` / a bare `-` for stdin).
  const fromFile = o.instructionFile ?? (instructionArg === '-' ? '-' : undefined);
  if (fromFile !== undefined && o.instructionFile !== undefined && instructionArg !== undefined) {
    throw new UsageError('give the instruction either as text or with --instruction-file, not both');
  }
  const inline = fromFile === undefined ? instructionArg : undefined;
  if (fromFile === undefined && inline === undefined) {
    throw new UsageError(`run needs an instruction: ${replannerCommand('run', '"<instruction>"', '--workspace DIR')} (or --instruction-file FILE|-)`);
  }
  const problem = (inline !== undefined ? instructionProblem(inline) : undefined) ?? (o.id !== undefined ? runIdProblem(o.id) : undefined);
  if (problem) throw new UsageError(problem);
  const workspace = o.workspace;
  if (!workspace) throw new UsageError('run needs --workspace DIR (the directory the worker may change)');
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) {
    throw new UsageError(`--workspace ${workspace} is not a directory`);
  }
  let text = inline;
  if (fromFile !== undefined) {
    const r = await readInstructionSource(fromFile, ctx.input);
    if (r.text === undefined) throw new UsageError(r.problem ?? 'no instruction');
    text = r.text;
  }
  // The config is read and checked before anything starts (server, worker, run).
  const forge = forgeFlagsOf(o);
  // G1 / G3: a run that commits its work: a clean checkout, its base and its repository settled here.
  const config = await withGitSettings(runConfig({ ...o, github: forge.github, gitlab: forge.gitlab }), o, workspace, forge.project);
  const options = optionsOf(config, o.config ?? process.env.REPLANNER_CONFIG);
  const tokenWarning = missingTokenWarning(config, process.env);
  if (tokenWarning) ctx.say(tokenWarning);
  // A model that does not answer would only pause the run at once: say so before anything starts.
  await checkModelAnswers(process.env, ctx.say);
  const backend = await ctx.ensureServer();
  // One running run per workspace (two would edit the same files).
  const other = await runningRunOn(backend.client, workspace);
  if (other !== undefined) throw new UsageError(busyMessage(workspace, other));
  // A run id names one run: an id used before, even by a run that ended, is refused.
  if (o.id !== undefined) await refuseUsedId(backend.client, o.id);
  // Only now a worker, for this shell's endpoint and model, when no live one polls its queue.
  await ensureWorker(backend.connection, backend, ctx.say, process.env);
  const runId = o.id ?? newRunId();
  const given = fromFile !== undefined ? await storeInstruction(workspace, runId, text ?? '') : { instruction: text ?? '' };
  // The run holds its workspace (a lock workflow per workspace): of two starts at once, Temporal refuses one.
  const { handle } = await startRun(backend.client, {
    ...given,
    workspace,
    taskQueue: backend.taskQueue,
    runId,
    config,
    options,
    holdWorkspace: true,
  }).catch((e: unknown) => {
    if (e instanceof WorkflowExecutionAlreadyStartedError || e instanceof RunIdTaken) {
      throw new UsageError(`a run with id "${o.id}" is already running; choose another --id or leave it out for a fresh one`, { cause: e });
    }
    if (e instanceof WorkspaceBusy) throw new UsageError(busyMessage(workspace, e.runId), { cause: e });
    throw e;
  });
  const url = webUiUrl(backend.namespace, handle.workflowId);
  if (!o.wait) {
    if (o.json) ctx.json({ runId, workflowId: handle.workflowId, webUi: url });
    else ctx.print(`Started run ${runId} (workflow ${handle.workflowId})\nWeb UI: ${url}\nWatch it: ${replannerCommand('watch', runId)}`);
    return EXIT.OK;
  }
  if (!o.json) ctx.print(`Started run ${runId} — Web UI: ${url}`);
  // stdin gave the instruction: it has no answers to give.
  const asker = fromFile !== '-' ? ctx.askQuestions(backend.client, runId, o) : undefined;
  // The run's events as they happen (with --json only the final status is printed).
  const write = o.json ? () => undefined : ctx.print;
  // A worker lost while following is noticed and started again, as at the start.
  const worker = { start: () => ensureRunWorker(ctx, backend, runId), say: ctx.say };
  const final = await whileWatching(runId, ctx.say, () => follow(backend.client, runId, write, { verbose: o.verbose, asker, worker }), ctx.out);
  await asker?.close();
  if (o.json) ctx.json(final);
  else ctx.print(renderStatus(final));
  return final.status === 'DONE' ? EXIT.OK : EXIT.RUN_NOT_DONE;
}

/** The config file (or defaults) with --budget-tokens and --github / --gitlab over it, checked. */
function runConfig(o: Omit<RunOptions, 'github' | 'gitlab'> & { github?: string; gitlab?: string }): ReplannerConfig {
  const budgetProblem = o.budgetTokens !== undefined ? countProblem('--budget-tokens', o.budgetTokens, 1, MAX_BUDGET_TOKENS) : undefined;
  if (budgetProblem) throw new UsageError(budgetProblem);
  const notifyFlag = notificationsOfFlags(o.github, o.gitlab);
  const loaded = loadRunConfig(o.config);
  // --budget-tokens overrides the config's budget.maxTokens; --github / --gitlab the notifications.
  return parseConfig({
    ...loaded,
    ...(o.budgetTokens !== undefined ? { budget: { ...loaded.budget, maxTokens: Number(o.budgetTokens) } } : {}),
    ...(notifyFlag ? { notifications: withGitlabUrl(notifyFlag, loaded.notifications.gitlab?.url) } : {}),
  });
}

/**
 * The tokens are the worker's, read at each delivery; a worker `run` starts has this shell's
 * environment. Without the token here, say so before anything starts (a worker started elsewhere
 * may have it, so this warns rather than refuses).
 */
export function missingTokenWarning(config: ReplannerConfig, env: NodeJS.ProcessEnv): string | undefined {
  const target = notifyTargetOf(config.notifications);
  if (!target) return undefined;
  const token = target.service === 'github' ? 'GITHUB_TOKEN' : 'GITLAB_TOKEN';
  if (env[token]?.trim()) return undefined;
  return (
    `replanner: warning: ${token} is not set in this shell, so a worker started from it cannot post to ${targetLabel(target)}. ` +
    `Set ${token} here, or give it to the worker that serves the run; without it the run goes on and \`status\` shows what was not posted.`
  );
}

/** An id a run has had (running or ended) is not given to another: `list` and `status` would mix the two. */
async function refuseUsedId(client: Client, id: string): Promise<void> {
  const desc = await client.workflow
    .getHandle(runWorkflowId(id))
    .describe()
    .catch((e: unknown) => {
      if (e instanceof WorkflowNotFoundError) return undefined;
      throw e;
    });
  if (!desc) return;
  if (desc.status.name === 'RUNNING') {
    throw new UsageError(`a run with id "${id}" is already running; choose another --id or leave it out for a fresh one`);
  }
  const ended = desc.typedSearchAttributes.get(STATUS_KEY) ?? desc.status.name;
  throw new UsageError(
    `the run id "${id}" is taken by a run that ended ${ended} (started ${desc.startTime.toISOString()}): ` +
      `an id names one run, so \`status\` and \`watch\` reach it. Choose another --id, or leave it out for a fresh one`,
  );
}

/** The refusal of a second run on a workspace, naming the running one. */
function busyMessage(workspace: string, runId: string): string {
  return `the workspace ${workspace} already has a running run: ${runId} (watch it: ${replannerCommand('watch', runId)}; or cancel it: ${replannerCommand('cancel', runId)})`;
}

/** `--config FILE`, else env REPLANNER_CONFIG, else defaults; then the env overrides. Throws ConfigError. */
function loadRunConfig(file: string | undefined): ReplannerConfig {
  if (file !== undefined && !file.trim()) throw new ConfigError('--config needs a file name');
  return loadConfig({ path: file, env: process.env });
}

/** `--github owner/repo#12` / `--gitlab group/project!45` as the config's notifications section (they replace the file's). */
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
