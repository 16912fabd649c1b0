// What an OpenAI-compatible server can do, read from how it answers (SPEC M1, M2). Pure: no I/O, so
// `replanner doctor` and the gateway's fallback ladder can share one reading of a rejection.
//
// Why a status alone does not decide: servers disagree on how they refuse a request they cannot
// parse. OpenAI and vLLM answer 400; llama-cpp-python's server answers HTTP 500 with its pydantic
// error ("response_format.type: Input should be 'text' or 'json_object'"). A 500 that names the
// feature is a malformed request, not an outage; a 500 that does not is treated as an outage.

/** The ways of asking for a JSON reply, best first (the ladder). */
export const STRUCTURED_RUNGS = ['json_schema', 'json_object', 'prompt_only'] as const;
export type StructuredRung = (typeof STRUCTURED_RUNGS)[number];

/** 401/403/404 (key, base URL, model) and 408/409/429 (try later) are never about the request's form. */
const NOT_ABOUT_FORM = new Set([401, 403, 404, 408, 409, 429]);

function rejectsFeature(status: number | undefined, message: string, names: RegExp): boolean {
  if (status === undefined || NOT_ABOUT_FORM.has(status)) return false;
  if (status >= 400 && status < 500) return true;
  return status >= 500 && names.test(message);
}

/**
 * The server refused the request because of its `response_format` (a 4xx other than access and
 * rate limits, or a 5xx whose body names response_format / json_schema / json_object): the next
 * rung down may work. Anything else is not a reason to change the request's form.
 */
export function isResponseFormatRejection(status: number | undefined, message: string): boolean {
  return rejectsFeature(status, message, /response_format|json_schema|json_object/i);
}

/** The server refused the request because of its `tools` / `tool_choice` (read like the above). */
export function isToolsRejection(status: number | undefined, message: string): boolean {
  return rejectsFeature(status, message, /\btools?\b|tool_choice|function/i);
}

/** The rung below `rung`, or undefined at the bottom. */
export function nextRung(rung: StructuredRung): StructuredRung | undefined {
  return STRUCTURED_RUNGS[STRUCTURED_RUNGS.indexOf(rung) + 1];
}
