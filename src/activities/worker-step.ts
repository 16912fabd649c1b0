// One worker step: exactly ONE LLM request (purpose worker_step, tools offered), then
// the tool calls that reply asked for, inside the same activity. TaskWorkflow runs the loop, one
// activity per step, so the history shows every step and a crash loses at most the step in flight.
// Tools run inside the step rather than in an activity of their own: that saves a round trip and
// ~6 history events per step, and it is safe on retry: the step file is the step's journal. The
// LLM reply is written to it before any tool runs (a retry reads it there, not from the LLM), and
// each tool result is persisted in it before the next tool runs, so a retry repeats neither the LLM
// call nor a finished tool call (only a tool call cut off by a crash or by the attempt's
// cancellation runs again). The step file's
// directory is unique per worker iteration (its iterationKey), as the journal's key is per activity.
//
// Transcript layout, one file per step so every write is idempotent:
//   <workspace>/.replanner/runs/<runId>/tasks/<taskId>/iteration-<n>.<iteration key>/
//     prompt.json     system + user prompt (written by step 1)
//     step-001.json   the assistant's reply, its usage, each tool call with its result
// The messages of step k are rebuilt from prompt.json + steps 1..k-1.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { stepFileChanges } from '../domain/file-changes';
import { failureLine, type WorkerStepReport } from '../domain/worker-steps';
import type { TaskSpec } from '../domain/types';
import { TOP_RUNG, type LlmCallSettings, type LlmRung, type LlmRungReport } from '../domain/llm-form';
import type { LlmGateway, RawReply } from '../llm/gateway';
import type { Prompt } from '../llm/prompts/common';
import { workerPrompt, type StuckPromptInput } from '../llm/prompts/task';
import type { TokenUsage } from '../domain/usage';
import { startActivityHeartbeat, type Heartbeat } from './heartbeat';
import { readInstruction, readJson, removeJournaled, runDir, safeName, writeJsonAtomic } from './run-files';
import { clipMiddle } from '../domain/text';
import { toolCallSignature } from '../domain/pacemaker/vitals';
import { callPrint, MAX_CALL_PRINTS, replyPrint } from '../domain/stuck/fingerprint';
import { narrowSandbox, sandboxSettingsFromEnv } from './tools/sandbox';
import { runTool, TOOL_DEFINITIONS } from './tools';

/** What the prompt needs: carried by step 1 only. */
export interface WorkerPromptInput {
  /** The instruction, or with `instructionFile` its head (step 1 reads the file: readInstruction). */
  instruction: string;
  instructionFile?: string;
  task: TaskSpec;
  steps: string[];
  feedback?: string;
  guidance?: string;
  /** The previous iteration was ended by the stuck detector: what it repeated and what the tools answered. */
  stuck?: StuckPromptInput;
}

export interface WorkerStepInput {
  runId: string;
  workspace: string;
  taskId: string;
  iteration: number;
  /**
   * Unique per worker iteration (the workflow draws it): names the transcript directory, so two
   * task executions, or an iteration number run twice by one execution, never share step files.
   */
  iterationKey: string;
  /** 1-based step within the iteration. */
  step: number;
  commandTimeoutMs?: number;
  /** The run's wish for network in commands (config `execution.network`); it only narrows the worker's setting. */
  network?: boolean;
  /** Step 1 only. */
  prompt?: WorkerPromptInput;
  /** The structured-output fallback ladder's rung and request timeout, set by the calling workflow's gate. */
  llm?: LlmCallSettings;
}

export interface WorkerStepResult extends WorkerStepReport, LlmRungReport {
  step: number;
  usage: TokenUsage;
}

interface StepCall {
  id: string;
  name: string;
  arguments: string;
  /** Set once the tool has run (persisted before the next one starts). */
  ok?: boolean;
  output?: string;
}

interface StepFile {
  step: number;
  content: string;
  calls: StepCall[];
  usage: TokenUsage;
  /** The fallback ladder's rung the reply came at (absent: the top). */
  rung?: LlmRung;
  /** False when the server did not stream the reply. */
  stream?: false;
}

const TOOL_OUTPUT_CHARS = 6000;
/** A reply may ask for any number of tool calls; beyond this many a step runs none of the rest. */
const MAX_TOOL_CALLS_PER_STEP = 32;
const MAX_SIGNATURES = 20;

/** The iteration's directory (workspace-relative parts validated by the caller). */
function iterationDir(input: Pick<WorkerStepInput, 'workspace' | 'runId' | 'taskId' | 'iteration' | 'iterationKey'>): string {
  return path.join(runDir(input.workspace, input.runId), 'tasks', safeName(input.taskId), `iteration-${input.iteration}.${input.iterationKey}`);
}

const stepFile = (dir: string, step: number) => path.join(dir, `step-${String(step).padStart(3, '0')}.json`);
const promptFile = (dir: string) => path.join(dir, 'prompt.json');

function invalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'InvalidWorkerStep', message, nonRetryable: true });
}

export async function runWorkerStep(llm: LlmGateway, input: WorkerStepInput): Promise<WorkerStepResult> {
  if (!Number.isInteger(input.iteration) || input.iteration < 1) throw invalid(`invalid iteration ${String(input.iteration)}`);
  if (!Number.isInteger(input.step) || input.step < 1 || input.step > 999) throw invalid(`invalid step ${String(input.step)}`);
  if (typeof input.taskId !== 'string' || !input.taskId) throw invalid('a worker step needs a task id');
  if (typeof input.iterationKey !== 'string' || !/^[A-Za-z0-9-]{4,36}$/.test(input.iterationKey)) throw invalid('invalid iteration key');
  const ctx = Context.current();
  const dir = iterationDir(input);
  const logPath = path.relative(input.workspace, dir);
  // Heartbeat on a timer: one LLM call or command can outlast the heartbeat timeout.
  const beat = startActivityHeartbeat({ step: input.step });
  try {
    if (input.step === 1) {
      if (!input.prompt) throw invalid('step 1 of a worker iteration needs the prompt input');
      // Same input, same content: rewriting it on a retry is harmless.
      const instruction = await readInstruction({ runId: input.runId, workspace: input.workspace, ...input.prompt });
      await writeJsonAtomic(promptFile(dir), workerPrompt({ ...input.prompt, instruction, iteration: input.iteration }));
    }
    const file = stepFile(dir, input.step);
    const rec = (await readJson<StepFile>(file)) ?? (await askStep(llm, input, dir, file, beat));
    for (const [i, call] of rec.calls.entries()) {
      if (call.ok !== undefined) continue; // ran before a retry: never again
      throwIfCancelled(ctx.cancellationSignal);
      const result =
        i < MAX_TOOL_CALLS_PER_STEP
          ? await runTool(input.workspace, call.name, parseArgs(call.arguments), {
              commandTimeoutMs: input.commandTimeoutMs,
              // The worker's switches (env / flags) bound whatever the run asked for.
              sandbox: narrowSandbox(sandboxSettingsFromEnv(), { network: input.network }),
              signal: ctx.cancellationSignal,
            })
          : { ok: false, output: `not run: at most ${MAX_TOOL_CALLS_PER_STEP} tool calls per step` };
      // A call cut off by this attempt's cancellation (the worker stopping, a heartbeat timeout) did
      // not finish: it is not recorded, so the attempt that retries the step runs it again.
      if (result.aborted) throwIfCancelled(ctx.cancellationSignal);
      call.ok = result.ok;
      call.output = clipMiddle(result.output, TOOL_OUTPUT_CHARS);
      await writeJsonAtomic(file, rec);
      // No beat per tool call: the timer's beats keep the step alive and bring a cancellation; one
      // here was one more server write per step (bench/README.md, "Parallel 16 (session 7)").
    }
    // A command killed by the cancellation ends the step as cancelled, not as a result.
    throwIfCancelled(ctx.cancellationSignal);
    const actions = rec.calls.map((c) => toolCallSignature(c.name, c.arguments, c.ok === true));
    // The files changed, with line counts, for the task's current details (no event of their own).
    const changed = stepFileChanges(rec.calls);
    const failed = rec.calls.find((c) => c.ok === false);
    return {
      step: input.step,
      ...(rec.calls.length === 0
        ? { summary: clipMiddle(rec.content.trim() || '(the worker gave no summary)', 2000), reply: replyPrint(rec.content) }
        : {}),
      toolCalls: rec.calls.length,
      toolErrors: rec.calls.filter((c) => c.ok !== true).length,
      actions: actions.slice(-MAX_SIGNATURES),
      usage: rec.usage,
      logPath,
      ...(changed.files.length ? { files: changed.files } : {}),
      ...(changed.more ? { moreFiles: changed.more } : {}),
      ...(rec.rung ? { llmRung: rec.rung } : {}),
      ...(rec.stream === false ? { llmStream: false as const } : {}),
      // watch and the task's details say why a call failed.
      ...(failed ? { failure: failureLine(failed.output ?? '') } : {}),
      // What the stuck detector compares, a few hashes and short lines per call (never the output).
      ...(rec.calls.length
        ? { prints: rec.calls.slice(-MAX_CALL_PRINTS).map((c) => callPrint(c.name, c.arguments, c.ok === true, c.output ?? '')) }
        : {}),
    };
  } finally {
    beat.stop();
  }
}

/**
 * The step's one LLM request. The step file is this call's journal: the reply is written there the
 * moment it is complete, before the gateway checks it (a retry finds it there and asks no LLM
 * again); a reply the check refuses (a tool call written as text) leaves no step file behind. The
 * heartbeat carries the call's progress.
 */
async function askStep(llm: LlmGateway, input: WorkerStepInput, dir: string, file: string, beat: Heartbeat): Promise<StepFile> {
  const messages = await messagesBefore(dir, input.step);
  const recOf = (r: RawReply, rung?: LlmRung): StepFile => ({
    step: input.step,
    content: r.content,
    calls: r.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    usage: r.usage,
    ...(rung && rung !== TOP_RUNG ? { rung } : {}),
    ...(r.streamed ? {} : { stream: false as const }),
  });
  let written = false;
  try {
    const { message, usage, rung, stream } = await llm.chat({
      purpose: 'worker_step',
      messages,
      tools: TOOL_DEFINITIONS,
      signal: Context.current().cancellationSignal,
      llm: input.llm,
      onProgress: (p) => beat.update({ step: input.step, llm: p }),
      onReply: async (r) => {
        await writeJsonAtomic(file, recOf(r));
        written = true;
      },
    });
    const calls = (message.tool_calls ?? []).flatMap((c) =>
      c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
    );
    const rec: StepFile = {
      step: input.step,
      content: message.content ?? '',
      calls,
      usage,
      ...(rung !== TOP_RUNG ? { rung } : {}),
      ...(stream === false ? { stream } : {}),
    };
    await writeJsonAtomic(file, rec);
    return rec;
  } catch (err) {
    if (written) await removeJournaled(file);
    throw err;
  }
}

/** The conversation step k sends: the prompt, then each earlier step's reply and tool results. */
async function messagesBefore(dir: string, step: number): Promise<ChatCompletionMessageParam[]> {
  const prompt = await readJson<Prompt>(promptFile(dir));
  if (!prompt) throw invalid(`worker step ${step}: ${promptFile(dir)} is missing`);
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: prompt.system },
    { role: 'user', content: prompt.user },
  ];
  for (let k = 1; k < step; k += 1) {
    const rec = await readJson<StepFile>(stepFile(dir, k));
    if (!rec) throw invalid(`worker step ${step}: ${stepFile(dir, k)} is missing`);
    messages.push(...stepMessages(rec));
  }
  return messages;
}

function stepMessages(rec: StepFile): ChatCompletionMessageParam[] {
  const toolCalls = rec.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
  return [
    { role: 'assistant', content: rec.content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
    ...rec.calls.map((c): ChatCompletionMessageParam => ({ role: 'tool', tool_call_id: c.id, content: c.output ?? '(no result)' })),
  ];
}

/** The judge's (and the re-decomposition's) view of an iteration: each tool call with its abridged result. */
export async function evidenceFromTranscript(workspace: string, logPath: string, maxChars = 12000): Promise<string> {
  const dir = path.resolve(workspace, logPath || '.');
  // Only a transcript directory of this workspace, whatever a (forged) logPath says.
  if (!logPath || !dir.startsWith(path.join(path.resolve(workspace), '.replanner', 'runs') + path.sep)) return '(no transcript)';
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => /^step-\d{3}\.json$/.test(n)).sort();
  } catch {
    return '(no transcript)';
  }
  const lines: string[] = [];
  for (const name of names) {
    const rec = await readJson<StepFile>(path.join(dir, name)).catch(() => undefined);
    for (const c of rec?.calls ?? []) {
      lines.push(`> ${c.name} ${clipMiddle(c.arguments, 400)}`);
      if (c.output !== undefined) lines.push(clipMiddle(c.output, 800));
    }
  }
  return lines.length ? clipMiddle(lines.join('\n'), maxChars) : '(no tool calls)';
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return { __invalid_json__: raw };
  }
}

function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason ?? new Error('cancelled');
}
