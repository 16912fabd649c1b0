// `replanner doctor` (M2): can a run started from this shell succeed? It checks, in order, the
// Temporal server, a worker on the task queue this shell routes to, the sandbox its commands run
// in, the LLM endpoint, the model,
// structured output (which rung of the json_schema → json_object → prompt-only ladder works), tool
// calls, and the model's speed on a prompt the size of a run's largest (./doctor-speed.ts: whether
// the LLM limits fit), each with a real request, and says what to fix. It starts nothing and changes nothing.
//
// Marks: ✓ works · ✗ a run cannot succeed until this is fixed · – not running yet, but
// `replanner run` starts it (the local dev server, a worker), or not checked because an earlier
// check failed. Exit codes: 0 a run can succeed (no ✗) · 1 at least one ✗ · 2 usage error.
import type { Connection } from '@temporalio/client';
import { llmSettingsFromEnv } from '../llm/gateway';
import type { LlmRung } from '../domain/llm-form';
import { oneLine, probeClient, probeModels, probeStructured, probeTools, type Failure, type StructuredProbe, type ToolsProbe } from '../llm/probes';
import { connectOrWhy, devServerSettings, settingsFromEnv } from './backend';
import { replannerCommand, serverCommand } from '../domain/printed-commands';
import { connectTimeoutFrom } from '../domain/connect-timeout';
import { ConfigError } from '../domain/config/issues';
import { describeTarget, isLocalDevTarget, nothingAnswers, type TemporalTarget } from '../connection';
import { livenessOf } from './workers';
import { routeOf } from '../route';
import { restartReason } from '../domain/worker-lifecycle';
import { measureSpeed, speedCheck, type SpeedReport } from './doctor-speed';
import { sandboxAvailability, sandboxSettingsFromEnv } from '../activities/tools/sandbox';

type Mark = 'ok' | 'fail' | 'info';

/** The tiny probes' timeout when the worker sets no total cap: they are a few tokens each. */
const PROBE_TIMEOUT_MS = 180_000;
type CheckName = 'temporal' | 'worker' | 'sandbox' | 'endpoint' | 'model' | 'structured_output' | 'tool_calls' | 'speed';

export interface Check {
  name: CheckName;
  mark: Mark;
  /** One line: what was found. */
  summary: string;
  /** What to do about it (✗ and – lines). */
  fix?: string;
}

export interface DoctorReport {
  /** A run started from this shell can succeed: no check failed. */
  ok: boolean;
  checks: Check[];
  /** settings: profile, address, namespace, TLS and API key set or not (src/connection.ts; never a secret). */
  temporal: { address: string; namespace: string; version?: string; settings?: string };
  route: { taskQueue: string; endpoint: string; model: string };
  /** The structured-output rung that works, which runs use. */
  structuredRung?: LlmRung;
  /** The model's measured speed, the expected time of each purpose's call, and whether the limits fit. */
  speed?: SpeedReport;
}

/** What `replanner doctor --help` says after its options. */
export const DOCTOR_NOTES = `Checks, each with a real request: the Temporal server (TEMPORAL_ADDRESS) and its version; a worker
polling the task queue this shell routes to, and its LLM settings; the sandbox commands run in
(bubblewrap, run once as a command runs); the LLM endpoint (OPENAI_BASE_URL)
and the model it lists (REPLANNER_MODEL); a tiny structured-output call (json_schema strict, else
json_object with the schema, else prompt-only JSON: it says which one runs will use); a tiny tool call;
then one prompt the size of a run's largest, streamed: how fast the model reads and writes (tokens/s),
the expected time of each purpose's call, and whether the LLM limits fit (else which setting to raise).
It starts and changes nothing.

Marks: ✓ works · ✗ fix this before a run can succeed (the line says how) · – not running yet but
\`run\` starts it, or not checked because an earlier check failed.
Exit codes: 0 a run can succeed · 1 at least one ✗ · 2 usage error`;

export async function runDoctor(env: NodeJS.ProcessEnv = process.env): Promise<DoctorReport> {
  const target = settingsFromEnv(env);
  const route = routeOf(env);
  const llm = llmSettingsFromEnv(env);
  const checks: Check[] = [];
  const report: DoctorReport = {
    ok: false,
    checks,
    temporal: { address: target.address, namespace: target.namespace },
    route: { taskQueue: route.taskQueue, endpoint: route.endpoint, model: route.model },
  };

  // The same wait as every other command (REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS).
  const waitMs = connectTimeoutFrom(env.REPLANNER_TEMPORAL_CONNECT_TIMEOUT_SECONDS);
  if (typeof waitMs !== 'number') throw new ConfigError(waitMs.error);
  const { connection, why } = await connectOrWhy(target, waitMs);
  report.temporal.settings = `${target.address} (${describeTarget(target)})`;
  try {
    checks.push(await temporalCheck(connection, target, report, why, env));
    checks.push(await workerCheck(connection, target.namespace, env));
  } finally {
    await connection?.close();
  }
  checks.push(sandboxCheck(env));

  const client = probeClient({ ...llm, timeoutMs: llm.timeoutMs ?? PROBE_TIMEOUT_MS });
  const models = await probeModels(client);
  if (
    !models.ok &&
    (models.failure.kind === 'refused' || models.failure.kind === 'timeout' || models.failure.kind === 'tls' || models.failure.kind === 'other')
  ) {
    checks.push({
      name: 'endpoint',
      mark: 'fail',
      summary: `LLM endpoint ${llm.baseURL}: ${unreachable(models.failure)}`,
      fix: endpointFix(llm.baseURL, models.failure),
    });
    for (const name of ['model', 'structured_output', 'tool_calls', 'speed'] as const) {
      checks.push({ name, mark: 'info', summary: `${TITLES[name]}: not checked (the LLM endpoint does not answer)` });
    }
  } else {
    checks.push({ name: 'endpoint', mark: 'ok', summary: `LLM endpoint ${llm.baseURL}: answers` });
    checks.push(modelCheck(models, llm.model, llm.baseURL));
    const structured = await probeStructured(client, llm.model);
    report.structuredRung = structured.works;
    checks.push(structuredCheck(structured, llm.baseURL));
    checks.push(toolsCheck(await probeTools(client, llm.model), llm.baseURL));
    if (structured.works) {
      report.speed = await measureSpeed(llm, structured.works);
      checks.push(speedCheck(report.speed));
    } else checks.push({ name: 'speed', mark: 'info', summary: `${TITLES.speed}: not checked (no way of asking for JSON works)` });
  }
  report.ok = checks.every((c) => c.mark !== 'fail');
  return report;
}

const TITLES: Record<CheckName, string> = {
  temporal: 'Temporal server',
  worker: 'Worker',
  sandbox: 'Sandbox',
  endpoint: 'LLM endpoint',
  model: 'Model',
  structured_output: 'Structured output',
  tool_calls: 'Tool calls',
  speed: 'Speed',
};

async function temporalCheck(
  connection: Connection | undefined,
  target: TemporalTarget,
  report: DoctorReport,
  why: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Check> {
  const address = `${target.address} (${describeTarget(target)})`;
  if (!connection) {
    if (isLocalDevTarget(target) && nothingAnswers(why)) {
      return {
        name: 'temporal',
        mark: 'info',
        summary: `Temporal server at ${address}: not running`,
        fix: `\`run\` starts the local dev server (or start it now, in another shell: ${serverCommand(devServerSettings(env))})`,
      };
    }
    return {
      name: 'temporal',
      mark: 'fail',
      summary: `Temporal server at ${address}: does not answer`,
      // src/connection.ts names the setting (TLS, CA, API key) when the failure points at one.
      fix: !nothingAnswers(why)
        ? why
        : 'start it, or set TEMPORAL_ADDRESS to a server that runs (unset, the local dev server on localhost:7233 is used)',
    };
  }
  const info = await connection.workflowService.getClusterInfo({}).catch(() => undefined);
  report.temporal.version = info?.serverVersion || undefined;
  return { name: 'temporal', mark: 'ok', summary: `Temporal server at ${address}: reachable, version ${info?.serverVersion || 'unknown'}` };
}

async function workerCheck(connection: Connection | undefined, namespace: string, env: NodeJS.ProcessEnv): Promise<Check> {
  const route = routeOf(env);
  const queue = `task queue "${route.taskQueue}"`;
  if (!connection) {
    return {
      name: 'worker',
      mark: 'info',
      summary: `Worker on ${queue}: not checked (no Temporal server)`,
      fix: '`run` starts one with this shell’s LLM settings',
    };
  }
  let found;
  try {
    found = await livenessOf(connection, namespace, route.taskQueue, env);
  } catch (e) {
    return {
      name: 'worker',
      mark: 'fail',
      summary: `Worker on ${queue}: could not ask the server (${oneLine((e as Error).message)})`,
      fix: `check TEMPORAL_NAMESPACE (${namespace})`,
    };
  }
  const { liveness, record } = found;
  if (liveness.alive && liveness.by === 'recorded' && record) {
    const settings = `model ${record.model} at ${record.endpoint}, pid ${record.pid}`;
    const why = restartReason(record, route);
    return why
      ? { name: 'worker', mark: 'info', summary: `Worker on ${queue}: polls (${settings})`, fix: `\`run\` restarts it: ${why}` }
      : { name: 'worker', mark: 'ok', summary: `Worker on ${queue}: polls (${settings}, started by \`run\`)` };
  }
  if (liveness.alive && liveness.by === 'poller') {
    return {
      name: 'worker',
      mark: 'ok',
      summary: `Worker on ${queue}: polls (${liveness.identity}; started outside \`run\`, so its LLM settings are not known here — the queue name stands for model ${route.model} at ${route.endpoint})`,
    };
  }
  return {
    name: 'worker',
    mark: 'info',
    summary: `Worker on ${queue}: none polls`,
    fix: `\`run\` starts one with this shell’s LLM settings (or run one yourself: ${replannerCommand('worker')})`,
  };
}

function unreachable(f: Failure): string {
  if (f.kind === 'refused') return `does not answer (${f.message})`;
  if (f.kind === 'timeout') return 'no answer before the request timed out';
  if (f.kind === 'tls') return `TLS failed (${f.message})`;
  return `failed (${f.message})`;
}

function endpointFix(baseURL: string, f: Failure): string {
  if (f.kind === 'tls') return f.message;
  if (f.kind === 'timeout')
    return `check that the server at ${baseURL} is up and not overloaded; a slow local model needs a longer REPLANNER_LLM_TIMEOUT_MS`;
  return `start the model server at ${baseURL}, or set OPENAI_BASE_URL to where it listens (e.g. http://localhost:11434/v1 for Ollama)`;
}

/** 401/403/404 in words; other statuses as they came. */
function httpFix(status: number | undefined, baseURL: string): string {
  if (status === 401 || status === 403) return `set OPENAI_API_KEY to a key ${baseURL} accepts`;
  if (status === 404) return `check OPENAI_BASE_URL (usually ends in /v1) and REPLANNER_MODEL`;
  if (status === 429) return 'the endpoint is rate limiting this key: wait, or raise its limits';
  return `the model server at ${baseURL} refused the request${status !== undefined ? ` (HTTP ${status})` : ''}: its own log says why`;
}

/**
 * Commands of a worker started from this shell run in bubblewrap: checked as a command runs
 * (src/activities/tools/sandbox.ts), so ✓ means commands can start.
 */
function sandboxCheck(env: NodeJS.ProcessEnv): Check {
  if (!sandboxSettingsFromEnv(env).enabled) {
    return {
      name: 'sandbox',
      mark: 'info',
      summary: 'Sandbox: off in this shell (REPLANNER_SANDBOX=off): a worker started from it runs commands unconfined',
    };
  }
  const a = sandboxAvailability(env);
  if (a.ok) return { name: 'sandbox', mark: 'ok', summary: `Sandbox: commands run in ${a.version} (${a.path})` };
  return {
    name: 'sandbox',
    mark: 'fail',
    summary: `Sandbox: commands cannot run: ${a.reason}`,
    fix: 'install bubblewrap (`bash scripts/ensure-sandbox`), or start the worker with --no-sandbox to run commands unconfined (not recommended)',
  };
}

function modelCheck(models: Awaited<ReturnType<typeof probeModels>>, model: string, baseURL: string): Check {
  if (!models.ok) {
    const { status, message } = models.failure;
    if (status === 401 || status === 403) {
      return {
        name: 'model',
        mark: 'fail',
        summary: `Model ${model}: the endpoint refused the key (HTTP ${status}: ${message})`,
        fix: httpFix(status, baseURL),
      };
    }
    return {
      name: 'model',
      mark: 'info',
      summary: `Model ${model}: the endpoint does not list models (HTTP ${status}); the calls below tell whether it serves it`,
    };
  }
  if (models.models.includes(model)) return { name: 'model', mark: 'ok', summary: `Model ${model}: listed` };
  const listed = models.models.length ? models.models.slice(0, 8).join(', ') + (models.models.length > 8 ? ', …' : '') : 'none';
  return {
    name: 'model',
    mark: 'fail',
    summary: `Model ${model}: not listed by ${baseURL} (it lists: ${listed})`,
    fix: `set REPLANNER_MODEL to one it lists, or load the model into the server`,
  };
}

const RUNG_WORDS: Record<LlmRung, string> = {
  json_schema: 'json_schema (strict)',
  json_object: 'json_object',
  prompt: 'prompt-only JSON',
};

function failureWords(f: Failure | undefined): string {
  if (!f) return '';
  // A validation error's own words where the server sends a pydantic dump (llama-cpp-python does).
  const gist = /'msg': (?:"([^"]+)"|'([^']+)')/.exec(f.message);
  const text = oneLine(gist ? (gist[1] ?? gist[2] ?? f.message) : f.message, 100);
  return f.status !== undefined ? `HTTP ${f.status}: ${text}` : text;
}

function structuredCheck(p: StructuredProbe, baseURL: string): Check {
  const name = 'structured_output';
  const rejected = p.attempts.filter((a) => a.outcome === 'rejected').map((a) => `${RUNG_WORDS[a.rung]} rejected (${failureWords(a.failure)})`);
  const last = p.attempts[p.attempts.length - 1];
  const before = rejected.length ? `${rejected.join('; ')}; ` : '';
  if (p.works) {
    const how = p.works === 'json_schema' ? 'json_schema (strict) works: runs will use it' : `${RUNG_WORDS[p.works]} works: runs will use it`;
    return { name, mark: 'ok', summary: `Structured output: ${before}${how}` };
  }
  if (last?.outcome === 'bad_reply') {
    return {
      name,
      mark: 'fail',
      summary: `Structured output: ${before}${RUNG_WORDS[last.rung]} accepted, but the reply did not match a one-field schema: ${last.reply ?? ''}`,
      fix: 'use a model that follows JSON instructions (a larger or instruction-tuned one)',
    };
  }
  if (last?.outcome === 'rejected') {
    return {
      name,
      mark: 'fail',
      summary: `Structured output: ${before.replace(/; $/, '')}: no way of asking for JSON works`,
      fix: `use a server and model that answer in JSON (see "LLM providers" in the README); the log of the model server at ${baseURL} says why it refused`,
    };
  }
  return {
    name,
    mark: 'fail',
    summary: `Structured output: ${before}${last ? `${RUNG_WORDS[last.rung]} failed (${failureWords(last.failure)})` : 'not checked'}`,
    fix: httpFix(last?.failure?.status, baseURL),
  };
}

function toolsCheck(p: ToolsProbe, baseURL: string): Check {
  const name = 'tool_calls';
  const [auto, required] = p.attempts;
  if (p.works) return { name, mark: 'ok', summary: 'Tool calls: the model answered with a tool call' };
  const enable =
    'use a server and model with tool calls (vLLM: --enable-auto-tool-choice --tool-call-parser <parser>; llama.cpp: --chat_format chatml-function-calling; Ollama: a model tagged "tools")';
  if (auto?.outcome === 'rejected') {
    return { name, mark: 'fail', summary: `Tool calls: the server rejects requests with tools (${failureWords(auto.failure)})`, fix: enable };
  }
  if (auto?.outcome === 'failed') {
    return {
      name,
      mark: 'fail',
      summary: `Tool calls: the request failed (${failureWords(auto.failure)})`,
      fix: httpFix(auto.failure?.status, baseURL),
    };
  }
  const forced =
    required?.outcome === 'tool_call'
      ? 'with tool_choice "required" it does call it, but runs leave the choice to the model'
      : required
        ? `with tool_choice "required": ${required.outcome === 'text' ? 'text again' : `rejected (${failureWords(required.failure)})`}`
        : '';
  return {
    name,
    mark: 'fail',
    summary: `Tool calls: offered a tool, the model answered in text (${auto?.reply ? `"${auto.reply}"` : 'empty'})${forced ? `; ${forced}` : ''}`,
    fix: `every task's worker works through tool calls: ${enable}`,
  };
}

const MARKS: Record<Mark, string> = { ok: '✓', fail: '✗', info: '–' };

export function renderDoctor(r: DoctorReport): string {
  const lines = r.checks.map((c) => `${MARKS[c.mark]} ${c.summary}${c.fix ? `\n    → ${c.fix}` : ''}`);
  lines.push(
    r.ok
      ? `A run from this shell can succeed (task queue "${r.route.taskQueue}", model ${r.route.model} at ${r.route.endpoint}).`
      : 'A run from this shell cannot succeed yet: fix the ✗ lines above.',
  );
  return lines.join('\n');
}
