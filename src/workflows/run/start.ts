// What a run starts from: its input (or what continue-as-new carried), the options its children get
// with their input, and the checks made before anything is scheduled (bounded input, a valid config).
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { runBudgetOf } from '../../domain/budget';
import { checkRunOptions, ConfigError, parseConfig, type ReplannerConfig } from '../../domain/config';
import { rungOf, type LlmCallSettings } from '../../domain/llm-form';
import { setBudget } from '../../domain/run/budget-ledger';
import { failRun } from '../../domain/run/phases';
import { initialRunState, type RunState } from '../../domain/run/state';
import type { RunStatusView } from '../../domain/run/views';
import { instructionForStatus, runInputProblem } from '../../domain/run-input';
import type { Phase } from '../../domain/types';
import { hostNameProblem, hostQueueOf } from '../../domain/workspace-host';
import type { RunRef } from '../../activities';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from '../options';
import type { RunEntity } from './entity';

export interface RunInput {
  runId: string;
  /** The whole instruction, or with `instructionFile` only its head (for display). */
  instruction: string;
  /** A long instruction stored with the run (`instructionFilePath`); activities read prompts' text from it. */
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
  /** The replanning config (YAML + env, loaded by the client); validated again at start. Absent: defaults. */
  config?: unknown;
  /** Set by continue-as-new: where the previous run of this workflow left off. */
  carry?: RunCarry;
}

/** Everything a continued run needs: the whole state, the phase to run next, and the workspace lock it holds. */
export interface RunCarry {
  state: RunState;
  next: Phase;
  lock?: HeldLock;
  /** G4: the run was following its pull request: it follows on (its phases had run out). */
  following?: true;
}

/** The run's workspace lock (its child `workspace-<sha256>`) and the token that lets it go (./workspace.ts). */
export interface HeldLock {
  lockId: string;
  token: string;
}

export type RunResult = Pick<RunStatusView, 'runId' | 'status' | 'tasks' | 'reflection' | 'usage' | 'blocked'>;

export { runWorkflowId } from '../run-id';

export function resultOf(s: RunStatusView): RunResult {
  return { runId: s.runId, status: s.status, tasks: s.tasks, reflection: s.reflection, usage: s.usage, blocked: s.blocked };
}

export interface RunStart {
  /** What the run's children get with their input (the config's parts are added by `configure`). */
  options: RunOptions;
  /** The run as its activities see it. */
  run: RunRef;
  /** What is wrong with a fresh start's input (the run then fails at once, after its handlers are set). */
  inputProblem: string | undefined;
  /** The state the run starts from: carried, or new. */
  initial: RunState;
}

export function runStartOf(input: RunInput): RunStart {
  // A start without an object (e.g. `temporal workflow start --input null`) would fail every workflow task.
  if (typeof (input as unknown) !== 'object' || input === null) {
    throw ApplicationFailure.nonRetryable('invalid input: the run input must be an object', 'InvalidInput');
  }
  const { workflowId, taskQueue } = workflowInfo();
  const options: RunOptions = { ...DEFAULT_RUN_OPTIONS, ...input.options, hostQueue: undefined, runWorkflowId: workflowId };
  // Workspace affinity: the host queue follows from the run's own queue and its host (never from options).
  if (input.host !== undefined && hostNameProblem(input.host) === undefined) options.hostQueue = hostQueueOf(taskQueue, input.host);
  // Checked before anything is scheduled (a 1 MB instruction would otherwise fail every workflow task).
  const inputProblem = input.carry ? undefined : (runInputProblem(input) ?? (input.host !== undefined ? hostNameProblem(input.host) : undefined));
  const run: RunRef = {
    runId: input.runId,
    workspace: input.workspace,
    instruction: input.instruction,
    ...(input.instructionFile !== undefined ? { instructionFile: input.instructionFile } : {}),
    ...(options.hostQueue !== undefined ? { host: input.host } : {}),
  };
  const initial = input.carry?.state ?? initialRunState(inputProblem ? { ...input, instruction: instructionForStatus(input.instruction) } : input);
  // The structured-output fallback ladder's rung lives in the run's state (carried across continue-as-new); every
  // workflow of the run starts its calls there, and a lower rung any of them learns comes back here.
  const carriedRung = rungOf(initial.llmRung);
  if (carriedRung) options.llm = { rung: carriedRung };
  if (initial.llmNoStream === true) options.llm = { ...options.llm, stream: false };
  return { options, run, inputProblem, initial };
}

/** An input or config the run cannot start with: it fails at once, its state saying why. */
function failAtStart(entity: RunEntity, error: string, type: 'InvalidInput' | 'InvalidConfig'): never {
  entity.apply((s) => failRun(s, error));
  entity.publish();
  throw ApplicationFailure.nonRetryable(error, type);
}

/**
 * The run's checked input and parsed config; an invalid one fails the run at once (the
 * config's error names the key). The parsed config is the source of truth for the phases and tasks
 * (never options from the caller): its parts are set in `options`, its budget in the run's state.
 */
export function configure(input: RunInput, start: RunStart, entity: RunEntity): ReplannerConfig {
  if (start.inputProblem) failAtStart(entity, `invalid input: ${start.inputProblem}`, 'InvalidInput');
  let config: ReplannerConfig;
  try {
    config = parseConfig(input.config);
    checkRunOptions(input.options);
  } catch (e) {
    failAtStart(entity, e instanceof ConfigError ? e.message : `invalid config: ${(e as Error).message}`, 'InvalidConfig');
  }
  const { options } = start;
  options.refinement = config.refinement;
  options.pacemaker = config.pacemaker;
  options.commandNetwork = config.execution.network;
  // The run's LLM limits (for slow local models; absent: the worker's) and reply cap (small local
  // models can otherwise generate until their context is full).
  const limits = llmLimitsOf(config.llm);
  if (Object.keys(limits).length) options.llm = { ...options.llm, ...limits };
  entity.apply((s) => setBudget(s, runBudgetOf(config.budget)));
  return config;
}

/** The run's LLM settings from its config, in ms: only those it sets (the worker's fill the rest). */
function llmLimitsOf(c: ReplannerConfig['llm']): LlmCallSettings {
  const ms = (sec: number | undefined) => (sec === undefined ? undefined : Math.round(sec * 1000));
  const set = {
    timeoutMs: ms(c.timeoutSeconds),
    connectTimeoutMs: ms(c.connectTimeoutSeconds),
    firstTokenTimeoutMs: ms(c.firstTokenTimeoutSeconds),
    readTokensPerSecond: c.readTokensPerSecond,
    stallTimeoutMs: ms(c.stallTimeoutSeconds),
    maxReplyTokens: c.maxReplyTokens,
  };
  return Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined));
}
