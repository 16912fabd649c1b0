// Tiny real requests that find out what an OpenAI-compatible endpoint and model can do (M2):
// is it there, does it list the model, which way of asking for JSON it accepts (the fallback ladder:
// json_schema strict → json_object with the schema → prompt-only), and does the model answer with a
// tool call when tools are offered. `replanner doctor` prints them; the gateway's ladder could start
// from what they find. Whether a rejection is about the request's form is decided by the run's own ladder policy (src/domain/llm-form.ts).
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { isFormRejection, LLM_RUNGS, type LlmRung } from '../domain/llm-form';
import { structuredBody } from './gateway';
import { tlsProblem } from './errors';
import { extractJson } from './gateway';
import { httpTransport } from './http-transport';
import { DOCTOR_PURPOSES, PURPOSE_HEADER } from './purposes';
import { clipLineAfter } from '../domain/text';

export interface ProbeSettings {
  apiKey: string;
  baseURL: string;
  model: string;
  timeoutMs: number;
}

/** Why a request got no usable answer, in words a user can act on. */
export interface Failure {
  /** refused/timeout/tls: nothing usable answered; http: the server answered with an error status. */
  kind: 'refused' | 'timeout' | 'tls' | 'http' | 'other';
  status?: number;
  message: string;
}

export function probeClient(s: ProbeSettings): OpenAI {
  // No retries: a probe reports what the first attempt saw.
  return new OpenAI({ apiKey: s.apiKey, baseURL: s.baseURL, maxRetries: 0, timeout: s.timeoutMs, fetch: httpTransport });
}

export function failureOf(err: unknown): Failure {
  if (err instanceof APIError && typeof err.status === 'number') {
    return { kind: 'http', status: err.status, message: oneLine(errorText(err)) };
  }
  if (err instanceof APIConnectionTimeoutError) return { kind: 'timeout', message: 'no answer before the request timed out' };
  if (err instanceof APIConnectionError) {
    const tls = tlsProblem(err);
    if (tls) return { kind: 'tls', message: `${tls.detail} — ${tls.fix.replace(/, restart the worker.*$/, '')}` };
    const cause = err.cause instanceof Error ? err.cause.message : err.message;
    return { kind: /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ECONNRESET/.test(cause) ? 'refused' : 'other', message: oneLine(cause) };
  }
  return { kind: 'other', message: oneLine(err instanceof Error ? err.message : String(err)) };
}

/** The server's own error text (APIError's message starts with the status, which we print apart). */
function errorText(err: { error?: unknown; message: string }): string {
  const body = err.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : err.message;
  return text.trim() || '(an empty error message)';
}

/** One line of a server's text for `doctor`: the first `max` characters, then "…". */
export const oneLine = (s: string, max = 160): string => clipLineAfter(s, max);

// ------------------------------------------------------------------ endpoint and model

export type ModelsProbe = { ok: true; models: string[] } | { ok: false; failure: Failure };

/** GET /models: the endpoint answers, and which models it lists. */
export async function probeModels(client: OpenAI): Promise<ModelsProbe> {
  try {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    return { ok: true, models: ids };
  } catch (err) {
    return { ok: false, failure: failureOf(err) };
  }
}

// ------------------------------------------------------------------ structured output

const CHECK_SCHEMA = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
  additionalProperties: false,
} as const;
const CheckReply = z.strictObject({ ok: z.boolean() });
const SYSTEM = 'You are a health check. Reply with exactly this JSON object and nothing else: {"ok": true}';

/** The request of one rung: the product's own request builder, so doctor asks exactly as runs do. */
export function structuredRequest(rung: LlmRung, model: string): ChatCompletionCreateParamsNonStreaming {
  return structuredBody(model, rung, 'doctor_check', { ...CHECK_SCHEMA }, { system: SYSTEM, user: 'Are you working? Answer {"ok": true}.' });
}

export interface RungAttempt {
  rung: LlmRung;
  /** accepted: the server answered 200 (the reply may still be unusable). */
  outcome: 'works' | 'rejected' | 'bad_reply' | 'failed';
  failure?: Failure;
  /** The start of the reply when it did not match the schema. */
  reply?: string;
  ms: number;
}

export interface StructuredProbe {
  /** The best rung whose request was accepted and whose reply matched the schema. */
  works?: LlmRung;
  attempts: RungAttempt[];
}

/**
 * Down the ladder while the server rejects the request's form; stops at the first rung it accepts
 * (works, or the reply did not match the schema) and at any other failure (an outage, a wrong key).
 */
export async function probeStructured(client: OpenAI, model: string): Promise<StructuredProbe> {
  const attempts: RungAttempt[] = [];
  for (const rung of LLM_RUNGS) {
    const started = Date.now();
    try {
      const completion = await client.chat.completions.create(structuredRequest(rung, model), {
        headers: { [PURPOSE_HEADER]: DOCTOR_PURPOSES.structured(rung) },
      });
      const raw = completion.choices[0]?.message?.content ?? '';
      const ok = CheckReply.safeParse(extractJson(raw)).success;
      attempts.push({ rung, outcome: ok ? 'works' : 'bad_reply', ms: Date.now() - started, ...(ok ? {} : { reply: oneLine(raw, 120) }) });
      return { works: ok ? rung : undefined, attempts };
    } catch (err) {
      const failure = failureOf(err);
      const rejected = failure.kind === 'http' && failure.status !== undefined && isFormRejection(failure.status, failure.message);
      attempts.push({ rung, outcome: rejected ? 'rejected' : 'failed', failure, ms: Date.now() - started });
      if (!rejected) return { attempts };
    }
  }
  return { attempts };
}

// ------------------------------------------------------------------ tool calls

const TOOL = {
  type: 'function' as const,
  function: {
    name: 'report_ok',
    description: 'Report that you are working.',
    parameters: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false },
  },
};

export interface ToolAttempt {
  /** 'auto': tools offered and the choice left to the model, as a run's worker steps need. */
  toolChoice: 'auto' | 'required';
  outcome: 'tool_call' | 'text' | 'rejected' | 'failed';
  failure?: Failure;
  reply?: string;
  ms: number;
}

export interface ToolsProbe {
  /** The model called the tool with the choice left to it (what runs need). */
  works: boolean;
  attempts: ToolAttempt[];
}

/**
 * Offers one tool with tool_choice "auto" (the model chooses, as in runs). A model that answers in text is
 * asked once more with tool_choice "required", to tell "cannot" from "would not".
 */
export async function probeTools(client: OpenAI, model: string): Promise<ToolsProbe> {
  const attempts: ToolAttempt[] = [];
  for (const toolChoice of ['auto', 'required'] as const) {
    const started = Date.now();
    try {
      const completion = await client.chat.completions.create(
        {
          model,
          messages: [{ role: 'user', content: 'Call the report_ok tool with ok set to true.' }],
          tools: [TOOL],
          // "auto" said explicitly: OpenAI reads a missing tool_choice as auto, but llama-cpp-python's
          // chatml-function-calling reads it as "none" and never calls a tool.
          tool_choice: toolChoice,
        },
        { headers: { [PURPOSE_HEADER]: DOCTOR_PURPOSES.tools(toolChoice) } },
      );
      const message = completion.choices[0]?.message;
      const called = (message?.tool_calls ?? []).some((c) => c.type === 'function' && c.function.name === TOOL.function.name);
      attempts.push({
        toolChoice,
        outcome: called ? 'tool_call' : 'text',
        ms: Date.now() - started,
        ...(called ? {} : { reply: oneLine(message?.content ?? '', 120) }),
      });
      if (called) return { works: toolChoice === 'auto', attempts };
    } catch (err) {
      const failure = failureOf(err);
      const rejected = failure.kind === 'http' && failure.status !== undefined && isFormRejection(failure.status, failure.message);
      attempts.push({ toolChoice, outcome: rejected ? 'rejected' : 'failed', failure, ms: Date.now() - started });
      // Tools refused outright, or no answer at all: asking again with "required" tells nothing more.
      return { works: false, attempts };
    }
  }
  return { works: false, attempts };
}
