// `replanner doctor`'s checks answered as a real model answers them: the tiny structured-output
// call with the JSON it asks for, at any rung; the tool call by calling the tool it offers; the speed
// check with a streamed reply at a steady pace. So doctor passes on the README's try-it settings,
// as runs on the scripted model succeed.
import { LLM_RUNGS } from '../domain/llm-form';
import { DOCTOR_PURPOSES } from '../llm/purposes';
import type { RecordedRequest, Reply, Responder } from './types';

/** What doctor's structured-output check asks for ("Reply with exactly this JSON object"). */
const CHECK_REPLY = { ok: true };

/** The tool a request offers (doctor's: report_ok), called with ok: true. */
function callOfferedTool(req: RecordedRequest): Reply {
  const tools = (req.body as { tools?: { function?: { name?: unknown } }[] } | undefined)?.tools;
  const name = tools?.[0]?.function?.name;
  if (typeof name !== 'string') return { content: 'No tool was offered.' };
  return { toolCalls: [{ name, arguments: CHECK_REPLY }] };
}

/** Registers an answer for each of doctor's purposes through `on` (the server's `always`, or a wrapper of it). */
export function scriptDoctorProbes(on: (purpose: string, responder: Responder) => void): void {
  for (const rung of LLM_RUNGS) on(DOCTOR_PURPOSES.structured(rung), { json: CHECK_REPLY });
  for (const choice of ['auto', 'required'] as const) on(DOCTOR_PURPOSES.tools(choice), callOfferedTool);
  // Streamed in 16 tokens 5 ms apart, after the server's own latency (the model "reading" the prompt).
  on(DOCTOR_PURPOSES.speed, { pace: { tokens: 16, tokenMs: 5 }, then: { json: CHECK_REPLY } });
}
