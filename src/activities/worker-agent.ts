// The worker: an LLM tool-calling loop on the workspace (issue 3). The transcript is saved after
// every step under .replanner/runs/<runId>/tasks/, so a retried activity resumes where it stopped
// instead of repeating finished LLM calls; only a compact result goes back into workflow history.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Context } from '@temporalio/activity';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { TaskSpec } from '../domain/types';
import type { LlmGateway } from '../llm/gateway';
import { workerPrompt } from '../llm/prompts/task';
import { addUsage, ZERO_USAGE, type TokenUsage } from '../llm/usage';
import { clip, readJson, runDir, safeName, writeJsonAtomic } from './run-files';
import { runTool, TOOL_DEFINITIONS } from './tools';

export interface WorkerInput {
  runId: string;
  workspace: string;
  instruction: string;
  task: TaskSpec;
  steps: string[];
  iteration: number;
  feedback?: string;
  guidance?: string;
  maxSteps?: number;
  commandTimeoutMs?: number;
}

export interface WorkerResult {
  summary: string;
  /** Workspace-relative path of the full transcript. */
  logPath: string;
  steps: number;
  toolCalls: number;
  toolErrors: number;
  /** Short signatures of the tool calls made (pacemaker: repetition → focus). */
  actionSignatures: string[];
  finished: boolean;
  usage: TokenUsage;
}

interface Transcript {
  messages: ChatCompletionMessageParam[];
  steps: number;
  toolCalls: number;
  toolErrors: number;
  actionSignatures: string[];
  usage: TokenUsage;
  summary?: string;
}

const DEFAULT_MAX_STEPS = 24;
const TOOL_OUTPUT_CHARS = 6000;

export function transcriptPath(input: Pick<WorkerInput, 'workspace' | 'runId' | 'task' | 'iteration'>, wfRunId: string): string {
  return path.join(runDir(input.workspace, input.runId), 'tasks', safeName(input.task.id), `iteration-${input.iteration}.${wfRunId}.json`);
}

export async function runWorker(llm: LlmGateway, input: WorkerInput): Promise<WorkerResult> {
  const ctx = Context.current();
  const file = transcriptPath(input, ctx.info.workflowExecution?.runId ?? ctx.info.activityId);
  const prompt = workerPrompt(input);
  const t: Transcript = (await readJson<Transcript>(file)) ?? {
    messages: [
      { role: 'system', content: prompt.system },
      { role: 'user', content: prompt.user },
    ],
    steps: 0,
    toolCalls: 0,
    toolErrors: 0,
    actionSignatures: [],
    usage: ZERO_USAGE,
  };
  const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS;
  // Heartbeat on a timer as well: one LLM call can outlast the heartbeat timeout.
  const beat = setInterval(() => ctx.heartbeat({ step: t.steps }), 3000);
  try {
    while (t.summary === undefined && t.steps < maxSteps) {
      throwIfCancelled(ctx.cancellationSignal);
      const { message, usage } = await llm.chat({
        purpose: 'worker_step',
        messages: t.messages,
        tools: TOOL_DEFINITIONS,
        signal: ctx.cancellationSignal,
      });
      t.steps += 1;
      t.usage = addUsage(t.usage, usage);
      const calls = message.tool_calls ?? [];
      t.messages.push({ role: 'assistant', content: message.content ?? '', ...(calls.length ? { tool_calls: calls } : {}) });
      if (calls.length === 0) {
        t.summary = message.content?.trim() || '(the worker gave no summary)';
      }
      for (const call of calls) {
        if (call.type !== 'function') continue;
        throwIfCancelled(ctx.cancellationSignal);
        const args = parseArgs(call.function.arguments);
        const result = await runTool(input.workspace, call.function.name, args, {
          commandTimeoutMs: input.commandTimeoutMs,
          signal: ctx.cancellationSignal,
        });
        t.toolCalls += 1;
        if (!result.ok) t.toolErrors += 1;
        t.actionSignatures.push(signature(call.function.name, args, result.ok));
        t.messages.push({ role: 'tool', tool_call_id: call.id, content: clip(result.output, TOOL_OUTPUT_CHARS) });
      }
      await writeJsonAtomic(file, t);
      ctx.heartbeat({ step: t.steps });
    }
  } finally {
    clearInterval(beat);
  }
  const finished = t.summary !== undefined;
  return {
    summary: clip(t.summary ?? `stopped after ${t.steps} steps without a final answer`, 2000),
    logPath: path.relative(input.workspace, file),
    steps: t.steps,
    toolCalls: t.toolCalls,
    toolErrors: t.toolErrors,
    actionSignatures: t.actionSignatures.slice(-20),
    finished,
    usage: t.usage,
  };
}

/** The judge's view of a transcript: each tool call with its (abridged) result. */
export async function evidenceFromTranscript(workspace: string, logPath: string, maxChars = 12000): Promise<string> {
  const t = await readJson<Transcript>(path.join(workspace, logPath));
  if (!t) return '(no transcript)';
  const lines: string[] = [];
  for (const m of t.messages.slice(2)) {
    if (m.role === 'assistant' && 'tool_calls' in m && m.tool_calls?.length) {
      for (const c of m.tool_calls) if (c.type === 'function') lines.push(`> ${c.function.name} ${clip(c.function.arguments, 400)}`);
    } else if (m.role === 'tool') {
      const text = typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join('');
      lines.push(clip(text, 800));
    }
  }
  return clip(lines.join('\n'), maxChars);
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return { __invalid_json__: raw };
  }
}

function signature(name: string, args: unknown, ok: boolean): string {
  return `${name}(${clip(JSON.stringify(args) ?? '', 80)})${ok ? '' : '!'}`;
}

function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason ?? new Error('cancelled');
}

export async function workspaceListing(workspace: string): Promise<string> {
  try {
    const entries = await fs.readdir(workspace, { withFileTypes: true });
    return entries
      .filter((e) => e.name !== '.replanner' && e.name !== '.git' && e.name !== 'node_modules')
      .slice(0, 100)
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .join('\n');
  } catch {
    return '(workspace not readable)';
  }
}
