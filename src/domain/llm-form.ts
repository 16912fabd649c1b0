// The fallback ladder (M1) of the form a structured request takes, per endpoint and model (a run
// talks to one: its task queue is routed by both). Pure: the workflows keep the rung a run has
// reached in its state and pass it into every LLM call; the gateway walks down from there.
//
//   json_schema  response_format json_schema with strict: true (tools offered as strict functions)
//   json_object  response_format json_object with the schema beside it (llama.cpp takes it) and
//                in the prompt
//   prompt       no response_format: the schema described in the prompt
//
// Every rung's reply is validated by the same zod schema. The rung only goes down: a server that
// rejected a form once is not asked in that form again during the run.
//
// One more step beside the rungs: every request streams (stream: true, usage included at the end)
// until the server refuses streaming; from then on the run's requests do not stream (`stream:
// false`, remembered like the rung: it only goes down too). Streaming and the form are independent:
// a server may refuse one and take the other.
import { replannerCommand } from './printed-commands';

export const LLM_RUNGS = ['json_schema', 'json_object', 'prompt'] as const;
export type LlmRung = (typeof LLM_RUNGS)[number];
export const TOP_RUNG: LlmRung = 'json_schema';

/** The rung below `rung`, or undefined at the bottom. */
export function nextRung(rung: LlmRung): LlmRung | undefined {
  return LLM_RUNGS[LLM_RUNGS.indexOf(rung) + 1];
}

/** The lower of two rungs (what two workflows of one run learned, merged); undefined is the top. */
export function lowerRung(a: LlmRung | undefined, b: LlmRung | undefined): LlmRung | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return LLM_RUNGS.indexOf(a) >= LLM_RUNGS.indexOf(b) ? a : b;
}

/** A rung from untrusted input (a child's result, a carried state): anything else is undefined (the top). */
export function rungOf(v: unknown): LlmRung | undefined {
  return typeof v === 'string' && (LLM_RUNGS as readonly string[]).includes(v) ? (v as LlmRung) : undefined;
}

/** What every LLM activity input carries (set by the workflow's gate, never by a caller). */
export interface LlmCallSettings {
  /** Where the ladder starts (absent: the top). */
  rung?: LlmRung;
  /** false: the server refused streaming; requests do not stream (absent: they do). */
  stream?: false;
  /** The run's `llm.timeoutSeconds` (the total cap), in ms (absent: the worker's setting). */
  timeoutMs?: number;
  /** The run's progress limits (src/domain/llm-timeouts.ts), in ms (absent: the worker's settings). */
  connectTimeoutMs?: number;
  firstTokenTimeoutMs?: number;
  readTokensPerSecond?: number;
  stallTimeoutMs?: number;
  /** The run's `llm.maxReplyTokens`, sent as max_tokens (absent: none sent). */
  maxReplyTokens?: number;
}

/** What an LLM activity result carries when its call went down the ladder. */
export interface LlmRungReport {
  llmRung?: LlmRung;
  /** false: the server refused streaming. */
  llmStream?: false;
}

/** A `stream: false` from untrusted input (a child's result, a carried state): anything else is undefined (streaming). */
export const noStreamOf = (v: unknown): false | undefined => (v === false ? false : undefined);

/**
 * Whether an HTTP error is the server refusing to stream: a 4xx/5xx whose body names streaming
 * ("streaming is not supported", "stream_options"). Never 401/403/404 (access) nor 408/409/429 (busy).
 */
export function isStreamRefusal(status: number, message: string): boolean {
  if ([401, 403, 404, 408, 409, 429].includes(status) || status < 400) return false;
  return /\bstream(ing|_options)?\b/i.test(message);
}

/**
 * Whether an HTTP error is the server rejecting the request's form (its response_format, strict
 * schema or tools) rather than an outage or a wrong key: a 400/422, or any 4xx/5xx whose body
 * names the request's structured-output fields (llama-cpp-python answers a json_schema
 * response_format with a 500 "Input should be 'text' or 'json_object'"). Never 401/403/404 (access)
 * nor 408/409/429 (busy); never a 400 about the context length (a smaller form would not help).
 */
export function isFormRejection(status: number, message: string): boolean {
  if ([401, 403, 404, 408, 409, 429].includes(status)) return false;
  if (status < 400) return false;
  if (CONTEXT_LENGTH.test(message)) return false;
  if (status === 400 || status === 422) return true;
  return FORM_WORDS.test(message);
}
const FORM_WORDS = /response_format|json_schema|json_object|structured output|\bstrict\b|\btools?\b|tool_choice|function.call/i;
const CONTEXT_LENGTH = /context.length|maximum context|context window|too many tokens|prompt is too long/i;

/** Whether a rejection's body names tool calling (`tools`, `tool_choice`, function calling). */
export function namesTools(message: string): boolean {
  return /\btools?\b|tool_choice|tool.call|function.call/i.test(message);
}

/**
 * What a rejected worker request (it offers tools) means. The server rejects tool calling when
 * the body names tools, or when the request it rejected had nothing else to reject (below the top
 * rung no response_format and no strict function is sent): the run pauses ('unsupported'). At the
 * top rung, a rejection that does not name tools may be of the strict functions: go down.
 */
export function workerRejection(rung: LlmRung, message: string): { next: LlmRung } | 'unsupported' {
  if (namesTools(message) && !/\bstrict\b/i.test(message)) return 'unsupported';
  const next = rung === TOP_RUNG ? nextRung(rung) : undefined;
  return next ? { next } : 'unsupported';
}

/** The fix shown with an `llm_unsupported` pause. */
export const TOOL_CALLS_FIX =
  'use a model and server with tool calls (llama.cpp / llama-cpp-python: --chat_format chatml-function-calling or a model with a tool-call template; ' +
  `vLLM: --enable-auto-tool-choice --tool-call-parser <parser>; Ollama: a model tagged "tools"), restart the worker, then \`${replannerCommand('resume', '<runId>')}\``;

/**
 * A model without native tool calls answers a request offering tools by writing the call as
 * text. The documented rule: a reply with no tool_calls whose content is (or holds, in a ``` block
 * or a <tool_call> tag) a JSON object naming an offered tool (`name`, or `function.name`) with its
 * arguments (`arguments` or `parameters`) means the server does not turn this model's calls into
 * tool_calls. A plain-text answer (a worker's final summary) is not such a reply.
 */
export function toolCallWrittenAsText(content: string, toolNames: readonly string[]): string | undefined {
  const candidates = [content.trim()];
  for (const m of content.matchAll(/```(?:json)?\s*\n?([\s\S]*?)```|<tool_call>([\s\S]*?)<\/tool_call>/gi)) {
    candidates.push((m[1] ?? m[2] ?? '').trim());
  }
  for (const c of candidates) {
    let v: unknown;
    try {
      v = JSON.parse(c);
    } catch {
      continue;
    }
    for (const item of Array.isArray(v) ? v : [v]) {
      if (typeof item !== 'object' || item === null) continue;
      const o = item as Record<string, unknown>;
      const fn = typeof o.function === 'object' && o.function !== null ? (o.function as Record<string, unknown>) : o;
      const name = fn.name;
      if (typeof name === 'string' && toolNames.includes(name) && ('arguments' in fn || 'parameters' in fn)) return name;
    }
  }
  return undefined;
}
