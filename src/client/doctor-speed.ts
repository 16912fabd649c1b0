// `replanner doctor`'s speed check: one request the size of a run's largest prompt (its
// largest JSON call: the worker's tool calls are about as large, and may not stream), built
// by the run's own prompt builders from a sample run, streamed through the product's gateway with
// the limits this shell's worker would use. From its timings: how fast the model reads a prompt and
// writes a reply (tokens/s), the expected time of each purpose's call, and whether the limits fit
// (src/domain/llm-timeouts.ts: timeoutMisfits names the setting to raise).
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { z } from 'zod';
import { TOOL_DEFINITIONS } from '../activities/tools';
import type { LlmRung } from '../domain/llm-form';
import {
  estimateCall,
  estimateTokens,
  timeoutMisfits,
  type CallEstimate,
  type LlmProgress,
  type LlmTimeouts,
  type ModelSpeed,
  type TimeoutMisfit,
} from '../domain/llm-timeouts';
import type { Goal, TaskSpec } from '../domain/types';
import { limitsOf, LlmGateway, structuredBody, type LlmSettings } from '../llm/gateway';
import type { Prompt } from '../llm/prompts/common';
import { actionSequencePrompt, decompositionPrompt, goalUnderstandingPrompt, reflectionPrompt } from '../llm/prompts/planning';
import { qualityJudgePrompt } from '../llm/prompts/quality';
import { replanDecisionPrompt } from '../llm/prompts/replan';
import { judgePrompt, workerPrompt } from '../llm/prompts/task';
import { DOCTOR_PURPOSES, type Purpose } from '../llm/purposes';
import { ActionSequenceSchema, decisionSchemaFor, DecompositionSchema, GoalSchema, JudgeSchema, ReflectionSchema } from '../llm/schemas';
import { promptChars } from '../llm/stream';
import { toStrictJsonSchema } from '../llm/strict-schema';
import { QualityJudgeResultSchema } from '../domain/refinement/quality';
import { TOOL_NAMES } from '../activities/tools';

/** A purpose's prompt as a run builds it, and the reply it typically gets (tokens). */
interface SampleCall {
  purpose: Purpose;
  prompt: Prompt;
  schema?: z.ZodType;
  tools?: ChatCompletionTool[];
  replyTokens: number;
}

const INSTRUCTION = 'Create a file hello.txt that contains the word hello, and a test that checks it.';
const GOAL: Goal = {
  main_objective: 'Create hello.txt containing the word hello, with a test that checks it',
  success_criteria: ['hello.txt exists and contains the word hello', 'a test checks the content and passes'],
  constraints: ['only files inside the workspace'],
  ambiguities: [],
  assumptions: ['plain text, no trailing newline required'],
  task_profile: 'MULTI_STEP_TASK',
};
const TASKS: TaskSpec[] = ['write hello.txt', 'write a test for hello.txt', 'run the test'].map((title, i) => ({
  id: `t${i + 1}`,
  title,
  description: `${title}, as the goal says`,
  acceptanceCriteria: [`${title} is done and verified`],
  dependencies: i ? [`t${i}`] : [],
  scopePaths: i ? ['test_hello.sh'] : ['hello.txt'],
  profile: 'FILE_OPERATION',
}));
const EVIDENCE = Array.from({ length: 12 }, (_, i) => `> run_command {"argv":["sh","test_hello.sh"]}\nrun ${i}: ok, hello.txt contains hello`).join(
  '\n',
);

/** The calls of a small run, each prompt built as the run builds it. */
function sampleCalls(instruction: string): SampleCall[] {
  const listing = 'README.md\nsrc/\ntest/';
  return [
    {
      purpose: 'goal_understanding',
      prompt: goalUnderstandingPrompt({ instruction, workspaceListing: listing }),
      schema: GoalSchema,
      replyTokens: 200,
    },
    { purpose: 'task_decomposition', prompt: decompositionPrompt({ instruction, goal: GOAL }), schema: DecompositionSchema, replyTokens: 350 },
    {
      purpose: 'quality_judge',
      prompt: qualityJudgePrompt({ instruction, goal: GOAL, tasks: TASKS, qualityThreshold: 70 }),
      schema: QualityJudgeResultSchema,
      replyTokens: 150,
    },
    {
      purpose: 'action_sequence',
      prompt: actionSequencePrompt({ instruction, goal: GOAL, tasks: TASKS }),
      schema: ActionSequenceSchema,
      replyTokens: 250,
    },
    {
      purpose: 'replan_decision',
      prompt: replanDecisionPrompt({ instruction, context: { phase: 'task_decomposition', goal: GOAL, tasks: TASKS }, toolNames: TOOL_NAMES }),
      schema: decisionSchemaFor('task_decomposition'),
      replyTokens: 150,
    },
    {
      purpose: 'worker_step',
      prompt: workerPrompt({ instruction, task: TASKS[0]!, steps: ['write hello.txt', 'check its content'], iteration: 1 }),
      tools: TOOL_DEFINITIONS,
      replyTokens: 120,
    },
    {
      purpose: 'judge',
      prompt: judgePrompt({ instruction, task: TASKS[0]!, workerSummary: 'wrote hello.txt', evidence: EVIDENCE }),
      schema: JudgeSchema,
      replyTokens: 120,
    },
    {
      purpose: 'reflection',
      prompt: reflectionPrompt({ instruction, goal: GOAL, tasks: TASKS.map((t) => ({ ...t, state: 'DONE' as const })) }),
      schema: ReflectionSchema,
      replyTokens: 200,
    },
  ];
}

/** A call's prompt size in tokens, as sent at `rung` (the schema is in the prompt below the top). */
function promptTokensOf(c: SampleCall, model: string, rung: LlmRung): number {
  const messages = [
    { role: 'system' as const, content: c.prompt.system },
    { role: 'user' as const, content: c.prompt.user },
  ];
  if (!c.schema) return estimateTokens(promptChars({ model, messages, ...(c.tools ? { tools: c.tools } : {}) }));
  return estimateTokens(promptChars(structuredBody(model, rung, c.purpose, toStrictJsonSchema(c.schema), c.prompt)));
}

export interface SpeedReport {
  /** The purpose whose prompt was sent (the largest), and its size. */
  purpose: string;
  promptTokens: number;
  /** Measured: time to the first token, tokens written and the time they took. */
  firstTokenMs?: number;
  writtenTokens?: number;
  writeMs?: number;
  speed?: ModelSpeed;
  /** The server's count of the prompt's tokens, when it gave one. */
  serverPromptTokens?: number;
  calls: CallEstimate[];
  limits: LlmTimeouts;
  misfits: TimeoutMisfit[];
  /** The request failed (a limit struck, or the server): its message. */
  error?: string;
}

/** The longest reply the speed probe asks for: enough tokens to time the writing. */
const PROBE_REPLY_TOKENS = 64;

/** Sends the largest prompt of a run, streaming, and measures; `rung`: the structured-output rung doctor found. */
export async function measureSpeed(settings: LlmSettings, rung: LlmRung, instruction = INSTRUCTION): Promise<SpeedReport> {
  const calls = sampleCalls(instruction);
  const sized = calls.map((c) => ({ c, tokens: promptTokensOf(c, settings.model, rung) }));
  // The largest JSON call's: a tool call may not stream where JSON does (llama-cpp-python cannot
  // stream a tool choice), and a whole reply cannot time reading apart from writing.
  const largest = sized.filter(({ c }) => c.schema).reduce((a, b) => (b.tokens > a.tokens ? b : a));
  const limits = limitsOf(settings, undefined);
  const gateway = new LlmGateway(settings);
  const marks: { reading?: number; first?: number; last?: number; tokens: number } = { tokens: 0 };
  const onProgress = (p: LlmProgress) => {
    const now = Date.now();
    if (p.state === 'reading') marks.reading ??= now;
    if (p.state === 'writing') {
      marks.first ??= now;
      if ((p.tokens ?? 0) > marks.tokens) [marks.tokens, marks.last] = [p.tokens ?? 0, now];
    }
  };
  const llm = { rung, maxReplyTokens: PROBE_REPLY_TOKENS };
  const report: SpeedReport = { purpose: largest.c.purpose, promptTokens: largest.tokens, calls: [], limits, misfits: [] };
  let usage: { promptTokens: number; completionTokens: number } | undefined;
  try {
    const { c } = largest;
    usage = (await gateway.text({ purpose: c.purpose, purposeHeader: DOCTOR_PURPOSES.speed, llm, onProgress, schema: c.schema!, ...c.prompt })).usage;
  } catch (err) {
    report.error = err instanceof Error ? err.message : String(err);
  }
  // The prompt's size as estimated for every purpose alike (a server's own count may leave out the tools).
  // A server that sends no usage (llama-cpp-python ignores include_usage) leaves our own estimate there: not its count.
  report.serverPromptTokens = usage?.promptTokens && usage.promptTokens !== report.promptTokens ? usage.promptTokens : undefined;
  if (marks.reading === undefined || marks.first === undefined) return report;
  report.firstTokenMs = marks.first - marks.reading;
  report.writtenTokens = marks.tokens;
  report.writeMs = marks.last !== undefined ? marks.last - marks.first : 0;
  const read = report.promptTokens / Math.max(report.firstTokenMs / 1000, 0.001);
  // The first token arrived at `first`; the others over writeMs (too few to tell: as fast as reading's end).
  const write = marks.tokens > 1 && report.writeMs > 0 ? (marks.tokens - 1) / (report.writeMs / 1000) : read;
  report.speed = { readTokensPerSecond: read, writeTokensPerSecond: write };
  report.calls = sized.map(({ c, tokens }) => estimateCall(report.speed!, c.purpose, tokens, c.replyTokens));
  report.misfits = timeoutMisfits(limits, report.speed, report.calls);
  return report;
}

const secs = (ms: number) =>
  ms < 10_000
    ? `${(ms / 1000).toFixed(1)} s`
    : ms < 60_000
      ? `${Math.round(ms / 1000)} s`
      : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
const num = (n: number) => Math.round(n).toLocaleString('en-US');
const rate = (n: number) => (n >= 10 ? num(n) : n.toFixed(1));

/** The speed check's line: ✓ when every call's expected time fits the limits (with room), else ✗ with the setting to raise. */
export function speedCheck(r: SpeedReport): { name: 'speed'; mark: 'ok' | 'fail'; summary: string; fix?: string } {
  const what = `a ~${num(r.promptTokens)}-token prompt (${r.purpose}'s, the largest JSON call a run makes${r.serverPromptTokens ? `; ${num(r.serverPromptTokens)} by the server's count` : ''})`;
  if (!r.speed) {
    return {
      name: 'speed',
      mark: 'fail',
      summary: `Speed: ${what} got no reply: ${r.error ?? 'no token arrived'}`,
      fix: 'raise the setting the message names, or use a faster model or machine',
    };
  }
  const { readTokensPerSecond: read, writeTokensPerSecond: write } = r.speed;
  const measured = `read ${what} in ${secs(r.firstTokenMs!)} (${rate(read)} tokens/s), wrote ${r.writtenTokens} tokens at ${rate(write)} tokens/s`;
  const expected = `expected per call: ${r.calls.map((c) => `${c.purpose} ${secs(c.totalMs)}`).join(', ')}`;
  const limits = `first token within ${secs(r.limits.firstTokenMs)} + ${rate(r.limits.readTokensPerSecond)} tokens/s of prompt, stall ${secs(r.limits.stallMs)}${r.limits.totalMs ? `, total ${secs(r.limits.totalMs)}` : ''}`;
  if (!r.misfits.length) return { name: 'speed', mark: 'ok', summary: `Speed: ${measured}; ${expected}; the limits fit (${limits})` };
  const worst = r.misfits.map((m) =>
    m.limit === 'stall'
      ? `a gap of ~${secs(m.expectedMs)} between tokens (×2 for a busier machine) is past the stall limit of ${secs(m.limitMs)}`
      : `${m.purpose}'s ${m.limit === 'first_token' ? 'first token' : 'whole call'} is expected after ~${secs(m.expectedMs)} (×2 for a busier machine), past the ${secs(m.limitMs)} the limit allows`,
  );
  const raise = r.misfits.map((m) => m.raise).join(', ');
  return {
    name: 'speed',
    mark: 'fail',
    summary: `Speed: ${measured}; ${expected}; the limits do not fit with room: ${worst.join('; ')}`,
    fix: `raise ${raise} in the run's config (or the worker's REPLANNER_LLM_* variable: see docs/reference.md, "LLM providers")`,
  };
}
